package kitchen

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
)

// wantKey is one run the generator makes: a recipe in a day part.
type wantKey struct {
	part   string
	recipe uuid.UUID
}

// want is how many portions of it, from the forecast's portions of the recipe or covers ×
// portions per cover.
type want struct {
	portions decimal.Decimal
	ppc      decimal.Decimal
	forecast *decimal.Decimal
}

// exploded is a site-date's effective menu × forecasts: the runs to make, in menu order, with
// the recipes' forest at their current versions.
type exploded struct {
	byPart map[string]db.Forecast
	wanted map[wantKey]*want
	order  []wantKey
	forest Tree
}

// explode reads a site-date's effective menu and forecasts for the day parts (all when nil).
func explode(ctx context.Context, q *db.Queries, orgID, siteID uuid.UUID, date time.Time, parts []string) (exploded, error) {
	x := exploded{byPart: map[string]db.Forecast{}, wanted: map[wantKey]*want{}, forest: Tree{Recipes: map[uuid.UUID]Version{}}}
	forecasts, err := q.ForecastsOf(ctx, db.ForecastsOfParams{OrgID: orgID, SiteID: siteID, Date: pgDateT{Time: date, Valid: true}})
	if err != nil {
		return x, err
	}
	for _, f := range forecasts {
		x.byPart[f.DayPart] = f
	}
	if len(forecasts) == 0 {
		return x, nil
	}
	eff, err := effectiveMenu(ctx, q, orgID, siteID, date, "")
	if err != nil {
		return x, err
	}
	var roots []uuid.UUID
	for _, it := range eff.Items {
		if parts != nil && !containsString(parts, it.DayPart) {
			continue
		}
		f, ok := x.byPart[it.DayPart]
		if !ok {
			continue // no forecast: nothing to make for the day part
		}
		var items []forecastItem
		_ = json.Unmarshal(f.Items, &items)
		k := wantKey{it.DayPart, it.RecipeID}
		w, seen := x.wanted[k]
		if !seen {
			w = &want{}
			x.wanted[k] = w
			x.order = append(x.order, k)
			roots = append(roots, it.RecipeID)
		}
		named := false
		for _, fi := range items {
			if fi.RecipeID == it.RecipeID {
				named = true
				if w.forecast == nil {
					p := fi.Portions
					w.forecast, w.portions = &p, p
				}
			}
		}
		if !named {
			w.ppc = w.ppc.Add(it.PortionsPerCover)
			w.portions = w.portions.Add(it.PortionsPerCover.Mul(decimal.NewFromInt(int64(f.Covers))))
		}
	}
	if len(roots) > 0 {
		if x.forest, err = loadForest(ctx, q, orgID, dedupe(roots), nil); err != nil {
			return x, err
		}
	}
	return x, nil
}

// ForecastNeeds is what the forecast production of a site over from..to needs, item by item, in
// each item's base unit: each date's effective menu × forecasts exploded as the run generator
// does (portions, batching, current versions), every recipe scaled, sub-recipes included, summed.
// No run is written.
func ForecastNeeds(ctx context.Context, q *db.Queries, orgID, siteID uuid.UUID, from, to time.Time) (map[uuid.UUID]decimal.Decimal, error) {
	needs := map[uuid.UUID]decimal.Decimal{}
	for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
		x, err := explode(ctx, q, orgID, siteID, d, nil)
		if err != nil {
			return nil, err
		}
		for _, k := range x.order {
			w := x.wanted[k]
			if !w.portions.IsPositive() {
				continue
			}
			t := x.forest
			t.Root = k.recipe
			portions := w.portions
			p, err := planOf(t, &portions, Amount{})
			if err != nil {
				return nil, apierr.Invalid(fmt.Sprintf("Recipe %q cannot be scaled: %v", t.Recipes[k.recipe].Body.Name, err))
			}
			p.scaled.ItemNeeds(needs)
		}
	}
	return needs, nil
}
