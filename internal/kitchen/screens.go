package kitchen

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/quantity"
)

// MaxHold is how long after it began holding a held run's deadline falls on wallboards, unless
// its shelf life is shorter: 4 hours, the Food Code's limit for time as a public health control.
const MaxHold = 4 * time.Hour

// Screens is what the kitchen puts on the site's screens (the devices package calls it).
type Screens struct{ pool *pgxpool.Pool }

func NewScreens(pool *pgxpool.Pool) *Screens { return &Screens{pool: pool} }

// productionTimer and handoff are a wallboard's production timers and handoffs as encoded:
// structs rather than maps, so that a board polled several times a second neither builds nor
// sorts a map per run. Fields are in the order of their JSON names, the order in which the maps
// they replace were encoded, so the bytes (and the state's ETag) are unchanged.
type productionTimer struct {
	HoldDeadline *time.Time `json:"holdDeadline,omitempty"`
	Portions     *string    `json:"portions,omitempty"`
	Quantity     string     `json:"quantity"`
	Recipe       string     `json:"recipe"`
	RecipeID     uuid.UUID  `json:"recipeId"`
	RunID        uuid.UUID  `json:"runId"`
	Since        time.Time  `json:"since"`
	Station      *string    `json:"station,omitempty"`
	Status       string     `json:"status"`
	Unit         string     `json:"unit"`
}

type handoff struct {
	At      time.Time `json:"at"`
	From    *string   `json:"from,omitempty"`
	Note    *string   `json:"note,omitempty"`
	Recipe  string    `json:"recipe"`
	RunID   uuid.UUID `json:"runId"`
	Station string    `json:"station"`
}

var emptyList = json.RawMessage(`[]`)

// Production answers a kitchen wallboard's production timers (the site's runs of date in
// prepped, in_progress or holding at the stations; every station when none is configured) and,
// when handoffs is true, the handoffs made to those stations since dayStart, as the state's
// JSON arrays.
func (s *Screens) Production(ctx context.Context, orgID, siteID uuid.UUID, date, dayStart time.Time, stations []string, handoffs bool) (json.RawMessage, json.RawMessage, error) {
	lower := make([]string, len(stations))
	for i, st := range stations {
		lower[i] = strings.ToLower(st)
	}
	q := db.New(s.pool)
	rows, err := q.LiveRuns(ctx, db.LiveRunsParams{OrgID: orgID, SiteID: siteID, Date: pgtype.Date{Time: date, Valid: true}, Stations: lower})
	if err != nil {
		return nil, nil, err
	}
	prod := make([]productionTimer, 0, len(rows))
	for _, r := range rows {
		p := productionTimer{RunID: r.ID, RecipeID: r.RecipeID, Recipe: r.RecipeName, Status: r.Status, Since: r.StatusSince.UTC(),
			Quantity: quantity.Format(r.Quantity), Unit: r.Unit, Station: r.Station}
		if r.Portions != nil {
			v := quantity.Format(*r.Portions)
			p.Portions = &v
		}
		if r.Status == "holding" && r.HoldingSince != nil {
			hold := MaxHold
			if r.ShelfLifeHours != nil && time.Duration(*r.ShelfLifeHours)*time.Hour < hold {
				hold = time.Duration(*r.ShelfLifeHours) * time.Hour
			}
			at := r.HoldingSince.Add(hold).UTC()
			p.HoldDeadline = &at
		}
		prod = append(prod, p)
	}
	prodJSON, err := json.Marshal(prod)
	if err != nil {
		return nil, nil, err
	}
	if !handoffs {
		return prodJSON, emptyList, nil
	}
	hs, err := q.HandoffsSince(ctx, db.HandoffsSinceParams{OrgID: orgID, SiteID: siteID, Since: dayStart, Stations: lower})
	if err != nil {
		return nil, nil, err
	}
	hand := make([]handoff, 0, len(hs))
	for _, h := range hs {
		var d struct {
			Station string  `json:"station"`
			From    *string `json:"from"`
			Note    *string `json:"note"`
		}
		_ = json.Unmarshal(h.Data, &d)
		hand = append(hand, handoff{RunID: h.RunID, Recipe: h.RecipeName, Station: d.Station, At: h.At.UTC(), From: d.From, Note: d.Note})
	}
	handJSON, err := json.Marshal(hand)
	if err != nil {
		return nil, nil, err
	}
	return prodJSON, handJSON, nil
}

// Menu answers a menu board's items: the site's effective menu of date for the day part, with
// prices and allergens when the board shows them.
func (s *Screens) Menu(ctx context.Context, orgID, siteID uuid.UUID, date time.Time, dayPart string, prices, allergens bool) ([]map[string]any, error) {
	q := db.New(s.pool)
	e, err := effectiveMenu(ctx, q, orgID, siteID, date, dayPart)
	if err != nil || len(e.Items) == 0 {
		return []map[string]any{}, err
	}
	ids := make([]uuid.UUID, 0, len(e.Items))
	for _, it := range e.Items {
		ids = append(ids, it.RecipeID)
	}
	t, err := loadForest(ctx, q, orgID, dedupe(ids), nil)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(e.Items))
	for _, it := range e.Items {
		m := map[string]any{"recipeId": it.RecipeID, "name": t.Recipes[it.RecipeID].Body.Name, "dayPart": it.DayPart}
		if prices && it.PriceCents != nil {
			m["priceCents"] = *it.PriceCents
		}
		if allergens {
			m["contains"] = nonNil(Contains(t.RollUpAllergens(it.RecipeID)))
			m["mayContain"] = nonNil(t.MayContain(it.RecipeID))
		}
		out = append(out, m)
	}
	return out, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// RecipeCard is a recipe as a screen shows it when cast: name, version, yield, portion,
// ingredients, steps, allergens contained and may-contain. A recipe that does not exist in the
// organization, or is archived, is errRecipeNotFound.
func (s *Screens) RecipeCard(ctx context.Context, q *db.Queries, orgID, recipeID uuid.UUID) (map[string]any, error) {
	t, err := loadTree(ctx, q, orgID, recipeID, 0, nil)
	if err != nil {
		return nil, err
	}
	v := t.Recipes[recipeID]
	if v.Archived {
		return nil, errRecipeNotFound
	}
	b := v.Body
	lines := make([]map[string]any, 0, len(b.Ingredients))
	for _, in := range b.Ingredients {
		name := ""
		if in.ItemID != nil {
			name = t.Items[*in.ItemID].Name
		} else {
			name = t.Recipes[*in.RecipeID].Body.Name
		}
		dq, du := Display(in.Quantity, in.Unit)
		lines = append(lines, map[string]any{"name": name, "quantity": quantity.Format(in.Quantity), "unit": in.Unit, "display": quantity.Format(dq) + " " + du})
	}
	steps := b.Steps
	if steps == nil {
		steps = []string{}
	}
	return map[string]any{
		"id": recipeID, "name": b.Name, "version": v.Version, "yield": b.Yield.String(), "portion": b.Portion.String(),
		"ingredients": lines, "steps": steps, "contains": nonNil(Contains(t.RollUpAllergens(recipeID))), "mayContain": nonNil(t.MayContain(recipeID)),
	}, nil
}
