package kitchen

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/pg"
)

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
