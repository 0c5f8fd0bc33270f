package foods

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/nutrition"
)

// Profiles reads the foods among ids that the organization can use (USDA's, and its own) as
// the nutrition package takes them: amounts per 100 g of edible portion, household measures in
// their order. An id of no such food is absent from the map (an item linked to it analyses as
// no_food). Three reads, however many foods; q may be bound to a pool or a transaction.
//
// USDA's reference tables keep no refuse percentage, so a USDA food's RefusePercent is zero:
// an item written as purchased then counts whole unless its recipe line states a trim yield.
func Profiles(ctx context.Context, q *db.Queries, orgID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]nutrition.Food, error) {
	if len(ids) == 0 {
		return map[uuid.UUID]nutrition.Food{}, nil
	}
	heads, err := q.FoodProfileHeads(ctx, db.FoodProfileHeadsParams{OrgID: orgID, Ids: ids})
	if err != nil || len(heads) == 0 {
		return map[uuid.UUID]nutrition.Food{}, err
	}
	values, err := q.FoodProfileValues(ctx, db.FoodProfileValuesParams{OrgID: orgID, Ids: ids, NutrNos: srNumbers})
	if err != nil {
		return nil, err
	}
	var weights []db.FoodProfileWeightsRow
	for _, h := range heads {
		if h.Source != "org" {
			if weights, err = q.FoodProfileWeights(ctx, ids); err != nil {
				return nil, err
			}
			break
		}
	}
	return assembleProfiles(heads, values, weights)
}

// assembleProfiles builds profiles from the rows of the three profile reads (FoodProfileHeads,
// FoodProfileValues, FoodProfileWeights).
func assembleProfiles(heads []db.FoodProfileHeadsRow, values []db.FoodProfileValuesRow, weights []db.FoodProfileWeightsRow) (map[uuid.UUID]nutrition.Food, error) {
	out := make(map[uuid.UUID]nutrition.Food, len(heads))
	basis := make(map[uuid.UUID]decimal.Decimal, len(heads))
	for _, h := range heads {
		f := nutrition.Food{Name: h.Name, Per100g: make(nutrition.Amounts, len(Nutrients))}
		if h.Source == "org" {
			var ps []storedPortion
			if err := json.Unmarshal(h.Portions, &ps); err != nil {
				return nil, fmt.Errorf("foods: food %s portions: %w", h.ID, err)
			}
			for _, p := range ps {
				m, err := measureOf(p.Amount, p.Measure, p.Grams)
				if err != nil {
					return nil, fmt.Errorf("foods: food %s portions: %w", h.ID, err)
				}
				f.Measures = append(f.Measures, m)
			}
		}
		out[h.ID] = f
		basis[h.ID] = h.BasisGrams
	}
	for _, v := range values {
		f, ok := out[v.FoodID]
		if !ok {
			continue
		}
		key := v.Nutrient
		if k, ok := keyOfSR[key]; ok {
			key = k
		}
		n, ok := nutrition.ParseNutrient(key)
		if !ok {
			continue
		}
		// The same per-100 g figure GET /foods/{id} shows for a per-serving spec sheet.
		f.Per100g[n] = per100(v.Amount, basis[v.FoodID])
	}
	for _, w := range weights {
		f, ok := out[w.FoodID]
		if !ok {
			continue
		}
		f.Measures = append(f.Measures, nutrition.Measure{Amount: w.Amount, Description: w.Measure, Grams: w.Grams})
		out[w.FoodID] = f
	}
	return out, nil
}

// Exists reports whether id is a food the organization can use: USDA's or its own.
func Exists(ctx context.Context, q *db.Queries, orgID, id uuid.UUID) (bool, error) {
	heads, err := q.FoodProfileHeads(ctx, db.FoodProfileHeadsParams{OrgID: orgID, Ids: []uuid.UUID{id}})
	return len(heads) > 0, err
}

func measureOf(amount, measure, grams string) (nutrition.Measure, error) {
	a, err := decimal.NewFromString(amount)
	if err != nil {
		return nutrition.Measure{}, err
	}
	g, err := decimal.NewFromString(grams)
	if err != nil {
		return nutrition.Measure{}, err
	}
	return nutrition.Measure{Amount: a, Description: measure, Grams: g}, nil
}
