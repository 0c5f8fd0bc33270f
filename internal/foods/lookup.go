package foods

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/metrics"
	"github.com/sous-app/sous/internal/nutrition"
)

// Profiles reads the foods among ids that the organization can use (USDA's, and its own) as
// the nutrition package takes them: amounts per 100 g of edible portion, household measures in
// their order. An id of no such food is absent from the map (an item linked to it analyses as
// no_food). One read of the foods' revisions, however many foods, when their profiles are in the
// replica's memory at those revisions (see profileCache); three more for those that are not. q
// may be bound to a pool or a transaction.
//
// USDA's reference tables keep no refuse percentage, so a USDA food's RefusePercent is zero:
// an item written as purchased then counts whole unless its recipe line states a trim yield.
func Profiles(ctx context.Context, q *db.Queries, orgID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]nutrition.Food, error) {
	if len(ids) == 0 {
		return map[uuid.UUID]nutrition.Food{}, nil
	}
	revs, err := q.FoodProfileRevisions(ctx, db.FoodProfileRevisionsParams{OrgID: orgID, Ids: ids})
	if err != nil || len(revs) == 0 {
		return map[uuid.UUID]nutrition.Food{}, err
	}
	out := make(map[uuid.UUID]nutrition.Food, len(revs))
	var missing []uuid.UUID
	for _, r := range revs {
		if f, ok := profiles.get(profileKeyOf(r.Source, orgID, r.ID), r.Revision); ok {
			out[r.ID] = f
			continue
		}
		missing = append(missing, r.ID)
	}
	metrics.FoodProfiles.WithLabelValues(metrics.FoodProfileHit).Add(float64(len(out)))
	if len(missing) == 0 {
		return out, nil
	}
	metrics.FoodProfiles.WithLabelValues(metrics.FoodProfileMiss).Add(float64(len(missing)))
	read, err := readProfiles(ctx, q, orgID, missing)
	if err != nil {
		return nil, err
	}
	for id, p := range read {
		out[id] = p.food
		if p.consistent {
			profiles.put(profileKeyOf(p.source, orgID, id), p.revision, p.food)
		}
	}
	return out, nil
}

// readProfile is a food's profile as its three reads found it. consistent says every read saw
// the same revision (an edit committed between them makes the profile a mix of two, served to
// this one request but never kept).
type readProfile struct {
	source, revision string
	consistent       bool
	food             nutrition.Food
}

// readProfiles reads the profiles of ids from the database.
func readProfiles(ctx context.Context, q *db.Queries, orgID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]readProfile, error) {
	heads, err := q.FoodProfileHeads(ctx, db.FoodProfileHeadsParams{OrgID: orgID, Ids: ids})
	if err != nil || len(heads) == 0 {
		return map[uuid.UUID]readProfile{}, err
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
func assembleProfiles(heads []db.FoodProfileHeadsRow, values []db.FoodProfileValuesRow, weights []db.FoodProfileWeightsRow) (map[uuid.UUID]readProfile, error) {
	out := make(map[uuid.UUID]readProfile, len(heads))
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
		out[h.ID] = readProfile{source: h.Source, revision: h.Revision, consistent: true, food: f}
		basis[h.ID] = h.BasisGrams
	}
	// seen marks what the later reads report at another revision than the heads' (or not at
	// all: a food deleted between the reads).
	seen := make(map[uuid.UUID]bool, len(heads))
	check := func(id uuid.UUID, revision string) (readProfile, bool) {
		p, ok := out[id]
		if !ok {
			return p, false
		}
		seen[id] = true
		if revision != p.revision {
			p.consistent = false
			out[id] = p
		}
		return p, true
	}
	for _, v := range values {
		p, ok := check(v.FoodID, v.Revision)
		if !ok || v.Nutrient == nil || v.Amount == nil {
			continue
		}
		key := *v.Nutrient
		if k, ok := keyOfSR[key]; ok {
			key = k
		}
		n, ok := nutrition.ParseNutrient(key)
		if !ok {
			continue
		}
		// The same per-100 g figure GET /foods/{id} shows for a per-serving spec sheet.
		p.food.Per100g[n] = per100(*v.Amount, basis[v.FoodID])
	}
	for id, p := range out {
		if !seen[id] {
			p.consistent = false
			out[id] = p
		}
	}
	clear(seen)
	for _, w := range weights {
		p, ok := check(w.FoodID, w.Revision)
		if !ok || w.Amount == nil || w.Measure == nil || w.Grams == nil {
			continue
		}
		p.food.Measures = append(p.food.Measures, nutrition.Measure{Amount: *w.Amount, Description: *w.Measure, Grams: *w.Grams})
		out[w.FoodID] = p
	}
	for id, p := range out {
		if p.source != "org" && !seen[id] {
			p.consistent = false
			out[id] = p
		}
	}
	return out, nil
}

// Exists reports whether id is a food the organization can use: USDA's or its own.
func Exists(ctx context.Context, q *db.Queries, orgID, id uuid.UUID) (bool, error) {
	revs, err := q.FoodProfileRevisions(ctx, db.FoodProfileRevisionsParams{OrgID: orgID, Ids: []uuid.UUID{id}})
	return len(revs) > 0, err
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
