package kitchen

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	openapi_types "github.com/oapi-codegen/runtime/types"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/quantity"
)

var errRunNotFound = apierr.NotFound("Production run")

// Run statuses, in order.
var statuses = []string{"planned", "prepped", "in_progress", "holding", "done"}

func statusRank(s string) int {
	for i, x := range statuses {
		if x == s {
			return i
		}
	}
	return -1
}

// explain is how a run's quantity was reached, as stored.
type explain struct {
	ForecastID       *uuid.UUID       `json:"forecastId,omitempty"`
	Covers           *int             `json:"covers,omitempty"`
	PortionsPerCover *decimal.Decimal `json:"portionsPerCover,omitempty"`
	ForecastPortions *decimal.Decimal `json:"forecastPortions,omitempty"`
	Portions         decimal.Decimal  `json:"portions"`
	Yield            Amount           `json:"yield"`
	ScaleFactor      decimal.Decimal  `json:"scaleFactor"`
	Batches          int              `json:"batches"`
	BatchQuantity    decimal.Decimal  `json:"batchQuantity"`
	RaisedToMin      bool             `json:"raisedToMinBatch"`
}

// plan is a run as computed before it is written.
type plan struct {
	dayPart   *string
	recipeID  uuid.UUID
	version   int
	name      string
	shelfLife *int32
	pins      map[uuid.UUID]int
	station   *string
	portions  *decimal.Decimal
	scaled    Scaled
	explain   explain
}

func (p plan) versionsJSON() []byte {
	m := make(map[string]int, len(p.pins))
	for id, v := range p.pins {
		m[id.String()] = v
	}
	raw, _ := json.Marshal(m)
	return raw
}

func (p plan) explainJSON() []byte {
	raw, _ := json.Marshal(p.explain)
	return raw
}

// planOf scales the tree's root recipe for portions, or for a quantity when portions is nil.
func planOf(t Tree, portions *decimal.Decimal, need Amount) (plan, error) {
	root := t.Recipes[t.Root]
	b := root.Body
	p := plan{recipeID: t.Root, version: root.Version, name: b.Name, station: b.Station, portions: portions}
	if b.ShelfLifeHours != nil {
		h := int32(*b.ShelfLifeHours)
		p.shelfLife = &h
	}
	if portions != nil {
		need = Amount{Quantity: portions.Mul(b.Portion.Quantity), Unit: b.Portion.Unit}
	}
	s, err := Scale(t, need, true)
	if err != nil {
		return p, err
	}
	// Only the recipes the tree of this root reaches are pinned.
	p.pins = map[uuid.UUID]int{}
	var pin func(uuid.UUID)
	pin = func(id uuid.UUID) {
		if _, ok := p.pins[id]; ok {
			return
		}
		p.pins[id] = t.Recipes[id].Version
		for _, sub := range t.Recipes[id].Body.SubRecipeIDs() {
			pin(sub)
		}
	}
	pin(t.Root)
	p.scaled = s
	p.explain = explain{Yield: b.Yield, ScaleFactor: s.Factor, Batches: s.Batches, BatchQuantity: s.BatchQuantity, RaisedToMin: s.RaisedToMin}
	if portions != nil {
		p.explain.Portions = *portions
	} else if pq, err := toYield(b, b.Portion); err == nil && pq.IsPositive() {
		p.explain.Portions = s.Requested.DivRound(pq, 6)
	}
	return p, nil
}

func runToAPI(r db.ProductionRun) api.ProductionRun {
	var e explain
	_ = json.Unmarshal(r.Explain, &e)
	out := api.ProductionRun{
		Id: r.ID, SiteId: r.SiteID, Date: apiDate(r.Date), DayPart: r.DayPart, RecipeId: r.RecipeID, RecipeName: r.RecipeName,
		RecipeVersion: int(r.RecipeVersion), Station: r.Station, Status: api.RunStatus(r.Status), Source: api.ProductionRunSource(r.Source),
		Quantity: api.Quantity(quantity.Format(r.Quantity)), Unit: r.Unit, Batches: int(r.Batches), StatusSince: r.StatusSince,
		HoldingSince: r.HoldingSince, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		Explain: api.RunExplain{ForecastId: e.ForecastID, Covers: e.Covers, Portions: api.Quantity(quantity.Format(e.Portions)),
			Yield: amountToAPI(e.Yield), ScaleFactor: api.Quantity(quantity.Format(e.ScaleFactor)), Batches: e.Batches,
			BatchQuantity: api.Quantity(quantity.Format(e.BatchQuantity)), RaisedToMinBatch: e.RaisedToMin},
	}
	if r.Portions != nil {
		s := api.Quantity(quantity.Format(*r.Portions))
		out.Portions = &s
	}
	if e.PortionsPerCover != nil {
		s := api.Quantity(quantity.Format(*e.PortionsPerCover))
		out.Explain.PortionsPerCover = &s
	}
	if e.ForecastPortions != nil {
		s := api.Quantity(quantity.Format(*e.ForecastPortions))
		out.Explain.ForecastPortions = &s
	}
	return out
}

// loadRun reads a run the caller may see, with its recipe's name.
func loadRun(ctx context.Context, q *db.Queries, a authz.Access, id uuid.UUID) (db.ProductionRun, error) {
	r, err := q.GetRun(ctx, db.GetRunParams{OrgID: a.OrgID, ID: id})
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(r.SiteID)) {
		return r, errRunNotFound
	}
	return r, err
}

func (h *Handlers) GetProductionRun(ctx context.Context, req api.GetProductionRunRequestObject) (api.GetProductionRunResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	r, err := loadRun(ctx, db.New(h.pool), a, req.Id)
	if err != nil {
		return nil, err
	}
	return api.GetProductionRun200JSONResponse(runToAPI(r)), nil
}

func (h *Handlers) ListProductionRuns(ctx context.Context, req api.ListProductionRunsRequestObject) (api.ListProductionRunsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	if p.SiteId != nil {
		if err := a.CheckSite(*p.SiteId); err != nil {
			return nil, err
		}
	}
	params := db.ListRunsParams{OrgID: a.OrgID, Scope: a.SiteScope(), SiteID: p.SiteId, Station: nonBlank(p.Station)}
	if p.Date != nil {
		params.Date = pgDate(*p.Date)
	}
	if p.Status != nil {
		s := string(*p.Status)
		params.Status = &s
	}
	rows, err := db.New(h.pool).ListRuns(ctx, params)
	if err != nil {
		return nil, err
	}
	out := make(api.ListProductionRuns200JSONResponse, 0, len(rows))
	for _, r := range rows {
		out = append(out, runToAPI(r))
	}
	return out, nil
}

func (h *Handlers) CreateProductionRun(ctx context.Context, req api.CreateProductionRunRequestObject) (api.CreateProductionRunResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	now := h.clock.Now()
	var out api.ProductionRun
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		site, err := loadSite(ctx, q, a, b.SiteId)
		if err != nil {
			return err
		}
		var dayPart *string
		if b.DayPart != nil {
			p, ok := site.dayPart(*b.DayPart)
			if !ok {
				return apierr.InvalidField("dayPart", fmt.Sprintf("%q is no day part of the site (%s)", *b.DayPart, site.dayPartNames()))
			}
			dayPart = &p.Name
		}
		var portions *decimal.Decimal
		var need Amount
		switch {
		case b.Portions != nil && (b.Quantity != nil || b.Unit != nil):
			return apierr.InvalidField("portions", "give portions, or quantity with unit, not both")
		case b.Portions != nil:
			d, err := parsePositive("portions", string(*b.Portions))
			if err != nil {
				return err
			}
			portions = &d
		case b.Quantity != nil && b.Unit != nil:
			d, err := parsePositive("quantity", string(*b.Quantity))
			if err != nil {
				return err
			}
			need = Amount{d, string(*b.Unit)}
		default:
			return apierr.InvalidField("portions", "give portions, or quantity with unit")
		}
		t, err := loadTree(ctx, q, a.OrgID, b.RecipeId, 0, nil)
		if err == errRecipeNotFound {
			return apierr.InvalidField("recipeId", "is no recipe of the organization")
		}
		if err != nil {
			return err
		}
		if t.Recipes[t.Root].Archived {
			return apierr.InvalidField("recipeId", fmt.Sprintf("recipe %q is archived", t.Recipes[t.Root].Body.Name))
		}
		p, err := planOf(t, portions, need)
		if err != nil {
			return apierr.InvalidField("unit", err.Error())
		}
		p.dayPart = dayPart
		if b.Station != nil {
			s := strings.TrimSpace(*b.Station)
			p.station = &s
		}
		row, err := insertRun(ctx, q, a.OrgID, site.ID, pgDate(b.Date), "ad_hoc", p, now)
		if err != nil {
			return err
		}
		out = runToAPI(row)
		if err := hintSite(ctx, tx, a.OrgID, site.ID); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, site.ID, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateProductionRun201JSONResponse{Body: out}, nil
}

func insertRun(ctx context.Context, q *db.Queries, orgID, siteID uuid.UUID, date pgDateT, source string, p plan, now time.Time) (db.ProductionRun, error) {
	return q.InsertRun(ctx, db.InsertRunParams{ID: uuid.Must(uuid.NewV7()), OrgID: orgID, SiteID: siteID, Date: date, DayPart: p.dayPart,
		RecipeID: p.recipeID, RecipeVersion: int32(p.version), RecipeName: p.name, ShelfLifeHours: p.shelfLife, Versions: p.versionsJSON(), Station: p.station, Source: source,
		Portions: p.portions, Quantity: p.scaled.Need, Unit: p.scaled.Unit, Batches: int32(p.scaled.Batches), Explain: p.explainJSON(), Now: now})
}

// GenerateProductionRuns explodes the effective menu × forecast into runs, idempotently.
func (h *Handlers) GenerateProductionRuns(ctx context.Context, req api.GenerateProductionRunsRequestObject) (api.GenerateProductionRunsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	now := h.clock.Now()
	var out api.GenerateRunsResult
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		site, err := loadSite(ctx, q, a, b.SiteId)
		if err != nil {
			return err
		}
		r, err := generate(ctx, q, a.OrgID, site, pgDate(b.Date).Time, b.DayParts, now)
		if err != nil {
			return err
		}
		out = r
		if err := hintSite(ctx, tx, a.OrgID, site.ID); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, site.ID, uuid.Nil, now)
	})
	if err != nil {
		return nil, err
	}
	return api.GenerateProductionRuns200JSONResponse(out), nil
}

func generate(ctx context.Context, q *db.Queries, orgID uuid.UUID, site Site, date time.Time, only *[]string, now time.Time) (api.GenerateRunsResult, error) {
	res := api.GenerateRunsResult{Runs: []api.ProductionRun{}}
	var parts []string
	if only != nil {
		for i, name := range *only {
			p, ok := site.dayPart(name)
			if !ok {
				return res, apierr.InvalidField(fmt.Sprintf("dayParts.%d", i), fmt.Sprintf("%q is no day part of the site (%s)", name, site.dayPartNames()))
			}
			parts = append(parts, p.Name)
		}
	} else {
		for _, p := range site.DayParts {
			parts = append(parts, p.Name)
		}
	}
	pdate := pgDateT{Time: date, Valid: true}
	x, err := explode(ctx, q, orgID, site.ID, date, parts)
	if err != nil {
		return res, err
	}
	byPart, wanted, order, forest := x.byPart, x.wanted, x.order, x.forest
	type key = wantKey
	existing, err := q.GeneratedRuns(ctx, db.GeneratedRunsParams{OrgID: orgID, SiteID: site.ID, Date: pdate, DayParts: parts})
	if err != nil {
		return res, err
	}
	have := map[key]db.ProductionRun{}
	for _, r := range existing {
		have[key{*r.DayPart, r.RecipeID}] = r
	}
	names := map[uuid.UUID]string{}
	for id, v := range forest.Recipes {
		names[id] = v.Body.Name
	}
	var runs []db.ProductionRun
	inserts := &runBatch{params: db.InsertRunsParams{OrgID: orgID, SiteID: site.ID, Date: pdate, Source: "generated", Now: now}}
	for _, k := range order {
		w := wanted[k]
		if !w.portions.IsPositive() {
			continue
		}
		t := forest
		t.Root = k.recipe
		portions := w.portions
		p, err := planOf(t, &portions, Amount{})
		if err != nil {
			return res, apierr.Invalid(fmt.Sprintf("Recipe %q cannot be scaled: %v", names[k.recipe], err))
		}
		part := k.part
		p.dayPart = &part
		f := byPart[k.part]
		covers := int(f.Covers)
		p.explain.ForecastID, p.explain.Covers = &f.ID, &covers
		if w.forecast != nil {
			p.explain.ForecastPortions = w.forecast
		} else {
			ppc := w.ppc
			p.explain.PortionsPerCover = &ppc
		}
		cur, ok := have[k]
		delete(have, k)
		switch {
		case !ok:
			inserts.add(p)
		case cur.Status != "planned":
			res.Unchanged++
			runs = append(runs, cur)
		case samePlan(cur, p):
			res.Unchanged++
			runs = append(runs, cur)
		default:
			row, err := q.ReplanRun(ctx, db.ReplanRunParams{OrgID: orgID, ID: cur.ID, RecipeVersion: int32(p.version), RecipeName: p.name,
				ShelfLifeHours: p.shelfLife, Versions: p.versionsJSON(),
				Station: p.station, Portions: p.portions, Quantity: p.scaled.Need, Unit: p.scaled.Unit, Batches: int32(p.scaled.Batches),
				Explain: p.explainJSON(), Now: now})
			if err != nil {
				return res, err
			}
			res.Updated++
			runs = append(runs, row)
		}
	}
	// New runs go in one statement.
	if len(inserts.params.Ids) > 0 {
		rows, err := q.InsertRuns(ctx, inserts.params)
		if err != nil {
			return res, err
		}
		res.Created += len(rows)
		runs = append(runs, rows...)
	}
	// What is left had its menu item (or forecast) vanish: planned runs go, started ones stay.
	for _, r := range have {
		if r.Status == "planned" {
			if err := q.DeleteRun(ctx, db.DeleteRunParams{OrgID: orgID, ID: r.ID}); err != nil {
				return res, err
			}
			res.Removed++
			continue
		}
		res.Unchanged++
		runs = append(runs, r)
	}
	sort.SliceStable(runs, func(i, j int) bool {
		if *runs[i].DayPart != *runs[j].DayPart {
			return *runs[i].DayPart < *runs[j].DayPart
		}
		return runs[i].RecipeName < runs[j].RecipeName
	})
	for _, r := range runs {
		res.Runs = append(res.Runs, runToAPI(r))
	}
	return res, nil
}

// runBatch collects new runs for InsertRuns, as column arrays.
type runBatch struct{ params db.InsertRunsParams }

func (b *runBatch) add(p plan) {
	x := &b.params
	orEmpty := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	x.Ids = append(x.Ids, uuid.Must(uuid.NewV7()))
	x.DayParts = append(x.DayParts, orEmpty(p.dayPart))
	x.RecipeIds = append(x.RecipeIds, p.recipeID)
	x.RecipeVersions = append(x.RecipeVersions, int32(p.version))
	x.RecipeNames = append(x.RecipeNames, p.name)
	shelf := int32(0)
	if p.shelfLife != nil {
		shelf = *p.shelfLife
	}
	x.ShelfLifeHours = append(x.ShelfLifeHours, shelf)
	x.Versions = append(x.Versions, p.versionsJSON())
	x.Stations = append(x.Stations, orEmpty(p.station))
	portions := ""
	if p.portions != nil {
		portions = p.portions.String()
	}
	x.Portions = append(x.Portions, portions)
	x.Quantities = append(x.Quantities, p.scaled.Need.String())
	x.Units = append(x.Units, p.scaled.Unit)
	x.Batches = append(x.Batches, int32(p.scaled.Batches))
	x.Explains = append(x.Explains, p.explainJSON())
}

// samePlan reports whether a planned run already is what p would write.
func samePlan(r db.ProductionRun, p plan) bool {
	eqPtr := func(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	eqDec := func(a, b *decimal.Decimal) bool { return (a == nil) == (b == nil) && (a == nil || a.Equal(*b)) }
	var e explain
	_ = json.Unmarshal(r.Explain, &e)
	var pins map[string]int
	_ = json.Unmarshal(r.Versions, &pins)
	if len(pins) != len(p.pins) {
		return false
	}
	for id, v := range p.pins {
		if pins[id.String()] != v {
			return false
		}
	}
	return int(r.RecipeVersion) == p.version && eqPtr(r.Station, p.station) && eqDec(r.Portions, p.portions) &&
		r.Quantity.Equal(p.scaled.Need) && r.Unit == p.scaled.Unit && int(r.Batches) == p.scaled.Batches &&
		eqDec(e.PortionsPerCover, p.explain.PortionsPerCover) && eqDec(e.ForecastPortions, p.explain.ForecastPortions) &&
		(e.Covers == nil) == (p.explain.Covers == nil) && (e.Covers == nil || *e.Covers == *p.explain.Covers)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func dedupe(ids []uuid.UUID) []uuid.UUID {
	seen := map[uuid.UUID]bool{}
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

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
