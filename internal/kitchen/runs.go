package kitchen

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
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
