package kitchen

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/quantity"
)

// pinsOf reads a run's pinned versions.
func pinsOf(r db.ProductionRun) map[uuid.UUID]int {
	var m map[string]int
	_ = json.Unmarshal(r.Versions, &m)
	out := make(map[uuid.UUID]int, len(m))
	for k, v := range m {
		if id, err := uuid.Parse(k); err == nil {
			out[id] = v
		}
	}
	return out
}

// runTree loads the tree of a run at its pinned versions and scales it to the run.
func runTree(ctx context.Context, q *db.Queries, r db.ProductionRun) (Tree, Scaled, error) {
	t, err := loadTree(ctx, q, r.OrgID, r.RecipeID, int(r.RecipeVersion), pinsOf(r))
	if err != nil {
		return t, Scaled{}, err
	}
	s, err := Scale(t, Amount{r.Quantity, r.Unit}, true)
	return t, s, err
}

func (h *Handlers) GetBatchCard(ctx context.Context, req api.GetBatchCardRequestObject) (api.GetBatchCardResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	r, err := loadRun(ctx, q, a, req.Id)
	if err != nil {
		return nil, err
	}
	t, s, err := runTree(ctx, q, r)
	if err != nil {
		return nil, err
	}
	var e explain
	_ = json.Unmarshal(r.Explain, &e)
	b := t.Recipes[t.Root].Body
	card := api.BatchCard{
		RunId: r.ID, RecipeId: r.RecipeID, RecipeName: b.Name, RecipeVersion: int(r.RecipeVersion), SiteId: r.SiteID, Date: apiDate(r.Date),
		DayPart: r.DayPart, Station: r.Station, Status: api.RunStatus(r.Status), Quantity: api.Quantity(quantity.Format(s.Need)), Unit: s.Unit,
		Batches: s.Batches, BatchQuantity: api.Quantity(quantity.Format(s.BatchQuantity)), ScaleFactor: api.Quantity(quantity.Format(s.Factor)),
		RaisedToMinBatch: e.RaisedToMin, Steps: b.Steps, CriticalLimits: limitsToAPI(b.CriticalLimits),
		Allergens: api.RecipeAllergens{}, Contains: []api.Allergen{}, MayContain: []api.Allergen{}, SubRecipes: []api.CardSection{},
	}
	if card.Steps == nil {
		card.Steps = []string{}
	}
	if r.Portions != nil {
		p := api.Quantity(quantity.Format(*r.Portions))
		card.Portions = &p
	}
	if e.RaisedToMin && b.MinBatch != nil {
		note := fmt.Sprintf("Raised from %s %s to the recipe's minimum batch of %s %s.", quantity.Format(s.Requested), s.Unit, quantity.Format(*b.MinBatch), s.Unit)
		card.Note = &note
	} else if s.Batches > 1 {
		note := fmt.Sprintf("Make %d batches of %s %s (maximum batch %s %s).", s.Batches, quantity.Format(s.BatchQuantity), s.Unit, quantity.Format(*b.MaxBatch), s.Unit)
		card.Note = &note
	}
	card.Lines = cardLines(s, true)
	var sections func(Scaled)
	sections = func(sc Scaled) {
		for _, l := range sc.Lines {
			if l.Sub == nil {
				continue
			}
			sub := *l.Sub
			sb := t.Recipes[sub.RecipeID].Body
			steps := sb.Steps
			if steps == nil {
				steps = []string{}
			}
			card.SubRecipes = append(card.SubRecipes, api.CardSection{RecipeId: sub.RecipeID, Name: sub.Name, Version: sub.Version,
				Quantity: api.Quantity(quantity.Format(sub.Need)), Unit: sub.Unit, ScaleFactor: api.Quantity(quantity.Format(sub.Factor)),
				Lines: cardLines(sub, false), Steps: steps})
			sections(sub)
		}
	}
	sections(s)
	allergens := t.RollUpAllergens(t.Root)
	for k, v := range allergens {
		card.Allergens[k] = api.AllergenPresence(v)
	}
	for _, c := range Contains(allergens) {
		card.Contains = append(card.Contains, api.Allergen(c))
	}
	for _, m := range t.MayContain(t.Root) {
		card.MayContain = append(card.MayContain, api.Allergen(m))
	}
	if b.ShelfLifeHours != nil && r.Status != "planned" {
		events, err := q.ListRunEvents(ctx, db.ListRunEventsParams{OrgID: r.OrgID, RunID: r.ID})
		if err != nil {
			return nil, err
		}
		for _, ev := range events {
			if ev.Type == "status" {
				u := ev.At.Add(time.Duration(*b.ShelfLifeHours) * time.Hour).UTC()
				card.UseBy = &u
				break
			}
		}
	}
	return api.GetBatchCard200JSONResponse(card), nil
}

// cardLines writes a scaled recipe's lines; a top-level card shows one batch for the cook, a
// sub-recipe section the whole quantity it makes.
func cardLines(s Scaled, perBatch bool) []api.CardLine {
	out := make([]api.CardLine, 0, len(s.Lines))
	for _, l := range s.Lines {
		shown := l.Quantity
		if perBatch {
			shown = l.BatchQuantity
		}
		dq, du := Display(shown, l.Unit)
		c := api.CardLine{ItemId: l.ItemID, RecipeId: l.RecipeID, Name: l.Name, Quantity: api.Quantity(quantity.Format(l.Quantity)),
			BatchQuantity: api.Quantity(quantity.Format(l.BatchQuantity)), Unit: l.Unit, Display: quantity.Format(dq) + " " + du}
		if l.Note != "" {
			n := l.Note
			c.Note = &n
		}
		if l.TrimYieldPercent != nil {
			tq := api.Quantity(quantity.Format(*l.TrimYieldPercent))
			c.TrimYieldPercent = &tq
		}
		if l.ItemID != nil {
			ap := api.Quantity(quantity.Format(l.AsPurchased))
			c.AsPurchased = &ap
		}
		out = append(out, c)
	}
	return out
}

var _ = openapi_types.Date{}
