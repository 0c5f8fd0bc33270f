package kitchen

import (
	"context"
	"encoding/json"
	"fmt"

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
	"github.com/sous-app/sous/internal/realtime"
)

// forecastItem overrides the menu's portions per cover for one recipe.
type forecastItem struct {
	RecipeID uuid.UUID       `json:"recipeId"`
	Portions decimal.Decimal `json:"portions"`
}

// hintSite tells the site's paired screens to refetch their state once tx commits.
func hintSite(ctx context.Context, tx pgx.Tx, orgID, siteID uuid.UUID) error {
	ids, err := db.New(tx).SiteDeviceIDs(ctx, db.SiteDeviceIDsParams{OrgID: orgID, SiteID: siteID})
	if err != nil || len(ids) == 0 {
		return err
	}
	return realtime.Notify(ctx, tx, ids...)
}

func (h *Handlers) UpsertForecast(ctx context.Context, req api.UpsertForecastRequestObject) (api.UpsertForecastResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	now := h.clock.Now()
	var out api.Forecast
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		site, err := loadSite(ctx, q, a, b.SiteId)
		if err != nil {
			return err
		}
		p, ok := site.dayPart(b.DayPart)
		if !ok {
			return apierr.InvalidField("dayPart", fmt.Sprintf("%q is no day part of the site (%s)", b.DayPart, site.dayPartNames()))
		}
		if b.Covers < 0 {
			return apierr.InvalidField("covers", "must not be negative")
		}
		items := []forecastItem{}
		if b.Items != nil {
			var ids []uuid.UUID
			seen := map[uuid.UUID]bool{}
			for i, it := range *b.Items {
				field := fmt.Sprintf("items.%d", i)
				if seen[it.RecipeId] {
					return apierr.InvalidField(field+".recipeId", "appears twice")
				}
				seen[it.RecipeId] = true
				portions, err := parseQty(field+".portions", string(it.Portions))
				if err != nil {
					return err
				}
				if portions.IsNegative() {
					return apierr.InvalidField(field+".portions", "must not be negative")
				}
				items = append(items, forecastItem{RecipeID: it.RecipeId, Portions: portions})
				ids = append(ids, it.RecipeId)
			}
			names, err := recipeNames(ctx, q, a.OrgID, ids)
			if err != nil {
				return err
			}
			for i, it := range items {
				if _, ok := names[it.RecipeID]; !ok {
					return apierr.InvalidField(fmt.Sprintf("items.%d.recipeId", i), "is no recipe of the organization")
				}
			}
		}
		date := pgDate(b.Date).Time
		if !now.Before(site.startOf(date, p)) {
			return apierr.Conflict(fmt.Sprintf("The %s of %s has already started at %s (%s)", p.Name, b.Date.Format("2006-01-02"), site.Name, site.Zone))
		}
		raw, _ := json.Marshal(items)
		row, err := q.UpsertForecast(ctx, db.UpsertForecastParams{ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, SiteID: site.ID, Date: pgDate(b.Date),
			DayPart: p.Name, Covers: int32(b.Covers), Items: raw, Now: now})
		if err != nil {
			return err
		}
		out = forecastToAPI(db.Forecast{ID: row.ID, OrgID: row.OrgID, SiteID: row.SiteID, Date: row.Date, DayPart: row.DayPart, Covers: row.Covers,
			Items: row.Items, CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt})
		return audit.RecordSite(ctx, q, a.OrgID, site.ID, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.UpsertForecast200JSONResponse(out), nil
}

func forecastToAPI(f db.Forecast) api.Forecast {
	var items []forecastItem
	_ = json.Unmarshal(f.Items, &items)
	out := api.Forecast{Id: f.ID, SiteId: f.SiteID, Date: apiDate(f.Date), DayPart: f.DayPart, Covers: int(f.Covers),
		Items: make([]api.ForecastItem, 0, len(items)), CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt}
	for _, it := range items {
		out.Items = append(out.Items, api.ForecastItem{RecipeId: it.RecipeID, Portions: api.Quantity(quantity.Format(it.Portions))})
	}
	return out
}

func (h *Handlers) ListForecasts(ctx context.Context, req api.ListForecastsRequestObject) (api.ListForecastsResponseObject, error) {
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
	params := db.ListForecastsParams{OrgID: a.OrgID, Scope: a.SiteScope(), SiteID: p.SiteId, DayPart: nonBlank(p.DayPart)}
	if p.From != nil {
		params.FromDate = pgDate(*p.From)
	}
	if p.To != nil {
		params.ToDate = pgDate(*p.To)
	}
	rows, err := db.New(h.pool).ListForecasts(ctx, params)
	if err != nil {
		return nil, err
	}
	out := make(api.ListForecasts200JSONResponse, 0, len(rows))
	for _, f := range rows {
		out = append(out, forecastToAPI(f))
	}
	return out, nil
}
