package foods

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/quantity"
)

// Bounds on what a spec sheet can say, per 100 g of food.
var (
	hundred    = decimal.NewFromInt(100)
	maxPer100g = decimal.NewFromInt(1_000_000)
)

// per100gPlaces is how many decimal places a per-serving sheet's values keep when written per
// 100 g (the division does not terminate: 110 kcal per 28 g is 392.857142… per 100 g).
const per100gPlaces = 6

// foodInput is a create or update body, checked.
type foodInput struct {
	name       string
	perServing bool
	basis      decimal.Decimal // grams the amounts are given for: 100, or the serving's weight
	amounts    map[string]decimal.Decimal
	portions   []byte
	allergens  []byte
}

// readFood checks a spec sheet. Every failure is a 400 naming the field; nothing is written.
func readFood(b *api.FoodRequest) (foodInput, error) {
	in := foodInput{name: strings.TrimSpace(b.Name), basis: hundred, amounts: map[string]decimal.Decimal{}}
	if in.name == "" {
		return in, apierr.InvalidField("name", "must not be blank")
	}
	var given *api.NutrientsInput
	field := "per100g"
	switch {
	case b.Per100g != nil && b.PerServing != nil:
		return in, apierr.InvalidField("perServing", "give nutrients per100g or perServing, not both")
	case b.Per100g == nil && b.PerServing == nil:
		return in, apierr.InvalidField("per100g", "give nutrients per100g, or perServing with servingGrams")
	case b.PerServing != nil:
		if b.ServingGrams == nil {
			return in, apierr.InvalidField("servingGrams", "is required with perServing")
		}
		g, err := parseAmount("servingGrams", *b.ServingGrams)
		if err != nil {
			return in, err
		}
		if !g.IsPositive() {
			return in, apierr.InvalidField("servingGrams", "must be more than 0")
		}
		in.perServing, in.basis, given, field = true, g, b.PerServing, "perServing"
	default:
		if b.ServingGrams != nil {
			return in, apierr.InvalidField("servingGrams", "goes with perServing, not per100g")
		}
		given = b.Per100g
	}
	values := map[string]*string{}
	raw, _ := json.Marshal(given)
	_ = json.Unmarshal(raw, &values)
	if b.AddedSugarsG != nil {
		if v, ok := values[keyAddedSugars]; ok && v != nil && *v != *b.AddedSugarsG {
			return in, apierr.InvalidField("addedSugarsG", fmt.Sprintf("differs from %s.addedSugarsG", field))
		}
		values[keyAddedSugars] = b.AddedSugarsG
	}
	for _, n := range Nutrients {
		v := values[n.Key]
		if v == nil {
			continue
		}
		name := field + "." + n.Key
		if n.Key == keyAddedSugars && b.AddedSugarsG != nil {
			name = "addedSugarsG"
		}
		d, err := parseAmount(name, *v)
		if err != nil {
			return in, err
		}
		// amount per basis grams > 10⁶ per 100 g, compared exactly: amount × 100 > 10⁶ × basis.
		if d.Mul(hundred).GreaterThan(maxPer100g.Mul(in.basis)) {
			return in, apierr.InvalidField(name, "is more than 1000000 per 100 g")
		}
		in.amounts[n.Key] = d
	}
	macros := in.amounts[keyFat].Add(in.amounts[keyCarbohydrate]).Add(in.amounts[keyProtein])
	if macros.GreaterThan(in.basis) {
		return in, apierr.InvalidField(field, fmt.Sprintf("fat, carbohydrate and protein add up to %s g per 100 g, more than the 100 g they are in",
			quantity.Format(per100(macros, in.basis))))
	}
	portions := []storedPortion{}
	if b.Portions != nil {
		for i, p := range *b.Portions {
			f := fmt.Sprintf("portions.%d", i)
			amount, err := parseAmount(f+".amount", p.Amount)
			if err != nil {
				return in, err
			}
			grams, err := parseAmount(f+".grams", p.Grams)
			if err != nil {
				return in, err
			}
			measure := strings.TrimSpace(p.Measure)
			switch {
			case !amount.IsPositive():
				return in, apierr.InvalidField(f+".amount", "must be more than 0")
			case !grams.IsPositive():
				return in, apierr.InvalidField(f+".grams", "must be more than 0")
			case measure == "":
				return in, apierr.InvalidField(f+".measure", "must not be blank")
			}
			portions = append(portions, storedPortion{Amount: quantity.Format(amount), Measure: measure, Grams: quantity.Format(grams)})
		}
	}
	in.portions, _ = json.Marshal(portions)
	statements := map[string]string{}
	if b.Allergens != nil {
		raw, _ := json.Marshal(b.Allergens)
		_ = json.Unmarshal(raw, &statements)
	}
	in.allergens, _ = json.Marshal(statements)
	return in, nil
}

// parseAmount reads a non-negative decimal string of at most 6 places.
func parseAmount(field, s string) (decimal.Decimal, error) {
	d, err := quantity.Parse(s)
	switch {
	case errors.Is(err, quantity.ErrTooPrecise):
		return d, apierr.InvalidField(field, fmt.Sprintf("has more than %d decimal places", quantity.MaxPlaces))
	case err != nil:
		return d, apierr.InvalidField(field, "must be a decimal number such as \"12.5\"")
	case d.IsNegative():
		return d, apierr.InvalidField(field, "must not be negative")
	}
	return d, nil
}

// per100 is amount per basis grams written per 100 g.
func per100(amount, basis decimal.Decimal) decimal.Decimal {
	if basis.Equal(hundred) {
		return amount
	}
	return amount.Mul(hundred).DivRound(basis, per100gPlaces)
}

// storedPortion is a portion as org_foods.portions keeps it (decimal strings).
type storedPortion struct {
	Amount  string `json:"amount"`
	Measure string `json:"measure"`
	Grams   string `json:"grams"`
}

func readPortions(raw []byte) []api.FoodPortion {
	var stored []storedPortion
	_ = json.Unmarshal(raw, &stored)
	out := make([]api.FoodPortion, 0, len(stored))
	for _, p := range stored {
		out = append(out, api.FoodPortion{Amount: p.Amount, Measure: p.Measure, Grams: p.Grams})
	}
	return out
}

func (in foodInput) write(ctx context.Context, q *db.Queries, orgID, id uuid.UUID) error {
	if err := q.DeleteOrgFoodNutrients(ctx, db.DeleteOrgFoodNutrientsParams{OrgID: orgID, FoodID: id}); err != nil {
		return err
	}
	p := db.InsertOrgFoodNutrientsParams{OrgID: orgID, FoodID: id}
	for _, n := range Nutrients {
		if d, ok := in.amounts[n.Key]; ok {
			p.Nutrients, p.Amounts = append(p.Nutrients, n.Key), append(p.Amounts, d)
		}
	}
	if len(p.Nutrients) == 0 {
		return nil
	}
	return q.InsertOrgFoodNutrients(ctx, p)
}

func (h *Handlers) CreateFood(ctx context.Context, req api.CreateFoodRequestObject) (api.CreateFoodResponseObject, error) {
	in, err := readFood(req.Body)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out api.FoodDetail
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		row, err := q.CreateOrgFood(ctx, db.CreateOrgFoodParams{OrgID: req.OrgId, ID: uuid.Must(uuid.NewV7()), Name: in.name,
			PerServing: in.perServing, BasisGrams: in.basis, Portions: in.portions, Allergens: in.allergens, Now: now})
		if err != nil {
			return err
		}
		if err := in.write(ctx, q, req.OrgId, row.ID); err != nil {
			return err
		}
		if out, err = orgFoodDetail(ctx, q, row); err != nil {
			return err
		}
		return audit.Record(ctx, q, req.OrgId, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateFood201JSONResponse{Body: out}, nil
}

func (h *Handlers) UpdateFood(ctx context.Context, req api.UpdateFoodRequestObject) (api.UpdateFoodResponseObject, error) {
	in, err := readFood(req.Body)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out api.FoodDetail
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		// The update locks the row; no row (a USDA food's id is not an organization food either)
		// is 404, as for any other id.
		row, err := q.UpdateOrgFood(ctx, db.UpdateOrgFoodParams{OrgID: req.OrgId, ID: req.Id, Name: in.name,
			PerServing: in.perServing, BasisGrams: in.basis, Portions: in.portions, Allergens: in.allergens, Now: now})
		if pg.IsNoRows(err) {
			return errFoodNotFound
		}
		if err != nil {
			return err
		}
		if err := in.write(ctx, q, req.OrgId, row.ID); err != nil {
			return err
		}
		if out, err = orgFoodDetail(ctx, q, row); err != nil {
			return err
		}
		return audit.Record(ctx, q, req.OrgId, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateFood200JSONResponse(out), nil
}

func (h *Handlers) DeleteFood(ctx context.Context, req api.DeleteFoodRequestObject) (api.DeleteFoodResponseObject, error) {
	err := pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		n, err := q.DeleteOrgFood(ctx, db.DeleteOrgFoodParams{OrgID: req.OrgId, ID: req.Id})
		if err != nil {
			return err
		}
		if n == 0 {
			return errFoodNotFound
		}
		return audit.Record(ctx, q, req.OrgId, req.Id, h.clock.Now())
	})
	if err != nil {
		return nil, err
	}
	return api.DeleteFood204Response{}, nil
}

// orgFoodDetail is an organization food with its nutrients per 100 g (and per serving, as
// entered, when it was entered so).
func orgFoodDetail(ctx context.Context, q *db.Queries, f db.OrgFood) (api.FoodDetail, error) {
	rows, err := q.OrgFoodNutrients(ctx, db.OrgFoodNutrientsParams{OrgID: f.OrgID, FoodID: f.ID})
	if err != nil {
		return api.FoodDetail{}, err
	}
	per100g, perServing := map[string]*string{}, map[string]*string{}
	for _, r := range rows {
		a, s := quantity.Format(per100(r.Amount, f.BasisGrams)), quantity.Format(r.Amount)
		per100g[r.Nutrient], perServing[r.Nutrient] = &a, &s
	}
	out := api.FoodDetail{Id: f.ID, Source: api.FoodSource(sourceOrg), Name: f.Name, Portions: readPortions(f.Portions),
		Per100g: nutrientsToAPI(per100g), CreatedAt: &f.CreatedAt, UpdatedAt: &f.UpdatedAt}
	if f.PerServing {
		ps, g := nutrientsToAPI(perServing), quantity.Format(f.BasisGrams)
		out.PerServing, out.ServingGrams = &ps, &g
	}
	var allergens api.ItemAllergens
	_ = json.Unmarshal(f.Allergens, &allergens)
	out.Allergens = &allergens
	return out, nil
}

func fmtDec(d decimal.Decimal) string { return quantity.Format(d) }
