package foods

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
)

// foodCursor is a page's last row: its relevance score (searches only), lowercased name and
// id. The score is the float8 the query computed; JSON keeps a float64 exactly.
type foodCursor struct {
	Search bool      `json:"q,omitempty"`
	Score  float64   `json:"s,omitempty"`
	Name   string    `json:"n"`
	ID     uuid.UUID `json:"i"`
}

// foodRow is one food of a page, USDA's or the organization's.
type foodRow struct {
	source, ndbNo, name, group string
	sortName                   string // lower(name), as the database orders it
	id                         uuid.UUID
	score                      float64
	// portions is the food's household measures as the search read them (nil from a listing,
	// which reads them for its page after).
	portions []byte
}

func (h *Handlers) ListFoods(ctx context.Context, req api.ListFoodsRequestObject) (api.ListFoodsResponseObject, error) {
	p := req.Params
	limit := paging.Limit(p.Limit)
	q := ""
	if p.Q != nil {
		q = strings.TrimSpace(*p.Q)
	}
	var source *string
	if p.Source != nil {
		s := string(*p.Source)
		source = &s
	}
	var cur *foodCursor
	if p.Cursor != nil {
		var c foodCursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.ID != uuid.Nil && c.Search == (q != "") }); err != nil {
			return nil, err
		}
		cur = &c
	}
	queries := db.New(h.pool)
	var rows []foodRow
	if q != "" {
		params := db.SearchFoodsParams{OrgID: req.OrgId, Q: q, Source: source, MaxRows: paging.Fetch(limit)}
		if cur != nil {
			params.CursorScore, params.CursorName, params.CursorID = &cur.Score, &cur.Name, &cur.ID
		}
		var found []db.SearchFoodsRow
		err := pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
			// Planning this statement for its parameters costs more than running it (about 3 ms,
			// against a median run under 2 ms with SR28 and 10,000 own foods), and its plan does
			// not depend on q: the bounded index scans are the plan for any words. So it keeps
			// one generic plan per connection. That plan is not frozen on
			// empty tables: the import's ANALYZE (and autovacuum's, as foods are added)
			// invalidates it, and the next search plans again for the tables' real sizes.
			if _, err := tx.Exec(ctx, "SET LOCAL plan_cache_mode = force_generic_plan"); err != nil {
				return err
			}
			var err error
			found, err = db.New(tx).SearchFoods(ctx, params)
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, r := range found {
			rows = append(rows, foodRow{source: r.Source, id: r.ID, ndbNo: r.NdbNo, name: r.Name, sortName: r.SortName, group: r.FoodGroup, score: r.Score,
				portions: r.Portions})
		}
	} else {
		params := db.ListFoodsParams{OrgID: req.OrgId, Source: source, MaxRows: paging.Fetch(limit)}
		if cur != nil {
			params.CursorName, params.CursorID = &cur.Name, &cur.ID
		}
		found, err := queries.ListFoods(ctx, params)
		if err != nil {
			return nil, err
		}
		for _, r := range found {
			rows = append(rows, foodRow{source: r.Source, id: r.ID, ndbNo: r.NdbNo, name: r.Name, sortName: r.SortName, group: r.FoodGroup})
		}
	}
	out := api.ListFoods200JSONResponse{Body: make([]api.Food, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last foodRow) any {
		return foodCursor{Search: q != "", Score: last.score, Name: last.sortName, ID: last.id}
	})
	if q != "" {
		for _, r := range rows {
			portions, err := searchedPortions(r)
			if err != nil {
				return nil, err
			}
			out.Body = append(out.Body, foodToAPI(r, portions))
		}
		return out, nil
	}
	portions, err := portionsOf(ctx, queries, req.OrgId, rows)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out.Body = append(out.Body, foodToAPI(r, portions[r.id]))
	}
	return out, nil
}

// usdaPortion is a USDA household measure as SearchFoods writes it, amounts as JSON numbers.
type usdaPortion struct {
	Amount  decimal.Decimal `json:"amount"`
	Measure string          `json:"measure"`
	Grams   decimal.Decimal `json:"grams"`
}

// searchedPortions is the household measures SearchFoods read with a food: USDA's formatted as
// portionsOf formats them, an organization's as stored.
func searchedPortions(r foodRow) ([]api.FoodPortion, error) {
	if r.source != sourceUSDA {
		return readPortions(r.portions), nil
	}
	var ps []usdaPortion
	if err := json.Unmarshal(r.portions, &ps); err != nil {
		return nil, fmt.Errorf("foods: food %s portions: %w", r.id, err)
	}
	out := make([]api.FoodPortion, 0, len(ps))
	for _, p := range ps {
		out = append(out, api.FoodPortion{Amount: fmtDec(p.Amount), Measure: p.Measure, Grams: fmtDec(p.Grams)})
	}
	return out, nil
}

// portionsOf reads the household measures of a page's foods, by food id.
func portionsOf(ctx context.Context, q *db.Queries, orgID uuid.UUID, rows []foodRow) (map[uuid.UUID][]api.FoodPortion, error) {
	var ndbNos []string
	var orgIDs []uuid.UUID
	idOf := map[string]uuid.UUID{}
	for _, r := range rows {
		if r.source == sourceUSDA {
			ndbNos = append(ndbNos, r.ndbNo)
			idOf[r.ndbNo] = r.id
		} else {
			orgIDs = append(orgIDs, r.id)
		}
	}
	out := map[uuid.UUID][]api.FoodPortion{}
	if len(ndbNos) > 0 {
		weights, err := q.UsdaWeightsOf(ctx, ndbNos)
		if err != nil {
			return nil, err
		}
		for _, w := range weights {
			id := idOf[w.NdbNo]
			out[id] = append(out[id], api.FoodPortion{Amount: fmtDec(w.Amount), Measure: w.Measure, Grams: fmtDec(w.Grams)})
		}
	}
	if len(orgIDs) > 0 {
		stored, err := q.OrgFoodPortionsOf(ctx, db.OrgFoodPortionsOfParams{OrgID: orgID, Ids: orgIDs})
		if err != nil {
			return nil, err
		}
		for _, s := range stored {
			out[s.ID] = readPortions(s.Portions)
		}
	}
	return out, nil
}

func foodToAPI(r foodRow, portions []api.FoodPortion) api.Food {
	f := api.Food{Id: r.id, Source: api.FoodSource(r.source), Name: r.name, Portions: portions}
	if f.Portions == nil {
		f.Portions = []api.FoodPortion{}
	}
	if r.source == sourceUSDA {
		ndb, group := r.ndbNo, r.group
		f.NdbNo, f.FoodGroup = &ndb, &group
	}
	return f
}

const (
	sourceUSDA = "usda"
	sourceOrg  = "org"
)

var errFoodNotFound = apierr.NotFound("Food")

func (h *Handlers) GetFood(ctx context.Context, req api.GetFoodRequestObject) (api.GetFoodResponseObject, error) {
	q := db.New(h.pool)
	if org, err := q.GetOrgFood(ctx, db.GetOrgFoodParams{OrgID: req.OrgId, ID: req.Id}); err == nil {
		d, err := orgFoodDetail(ctx, q, org)
		if err != nil {
			return nil, err
		}
		return api.GetFood200JSONResponse(d), nil
	} else if !pg.IsNoRows(err) {
		return nil, err
	}
	f, err := q.GetUsdaFood(ctx, req.Id)
	if pg.IsNoRows(err) {
		return nil, errFoodNotFound
	}
	if err != nil {
		return nil, err
	}
	values, err := q.UsdaNutrientValuesOf(ctx, db.UsdaNutrientValuesOfParams{NdbNo: f.NdbNo, NutrNos: srNumbers})
	if err != nil {
		return nil, err
	}
	per100g := map[string]*string{}
	for _, v := range values {
		s := fmtDec(v.Value)
		per100g[keyOfSR[v.NutrNo]] = &s
	}
	portions, err := portionsOf(ctx, q, req.OrgId, []foodRow{{source: sourceUSDA, ndbNo: f.NdbNo, id: f.ID}})
	if err != nil {
		return nil, err
	}
	base := foodToAPI(foodRow{source: sourceUSDA, id: f.ID, ndbNo: f.NdbNo, name: f.Name, group: f.FoodGroup}, portions[f.ID])
	return api.GetFood200JSONResponse(api.FoodDetail{Id: base.Id, Source: base.Source, NdbNo: base.NdbNo, Name: base.Name,
		FoodGroup: base.FoodGroup, Portions: base.Portions, Per100g: nutrientsToAPI(per100g)}), nil
}

// nutrientsToAPI writes every key, the unknown ones null.
func nutrientsToAPI(values map[string]*string) api.Nutrients {
	all := make(map[string]*string, len(Nutrients))
	for _, n := range Nutrients {
		all[n.Key] = values[n.Key]
	}
	raw, _ := json.Marshal(all)
	var out api.Nutrients
	_ = json.Unmarshal(raw, &out)
	return out
}
