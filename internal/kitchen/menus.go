package kitchen

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
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

var errMenuNotFound = apierr.NotFound("Menu")

// menuItem is one item of a menu's cycle (Week, Weekday set) or of a date's override.
type menuItem struct {
	Week             int             `json:"week,omitempty"`
	Weekday          int             `json:"weekday,omitempty"`
	DayPart          string          `json:"dayPart"`
	RecipeID         uuid.UUID       `json:"recipeId"`
	PortionsPerCover decimal.Decimal `json:"portionsPerCover"`
	PriceCents       *int64          `json:"priceCents,omitempty"`
}

// DayPart is a site's service period (local HH:MM; an end before the start runs past midnight).
type DayPart struct {
	Name  string `json:"name"`
	Start string `json:"start"`
	End   string `json:"end"`
}

// Site is what the kitchen reads of a site.
type Site struct {
	ID       uuid.UUID
	Name     string
	Zone     *time.Location
	DayParts []DayPart
}

var zones sync.Map

func loadZone(name string) (*time.Location, error) {
	if l, ok := zones.Load(name); ok {
		return l.(*time.Location), nil
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	zones.Store(name, l)
	return l, nil
}

// loadSite reads a site the caller sees; another site, or one outside their scope, is 404.
func loadSite(ctx context.Context, q *db.Queries, a authz.Access, id uuid.UUID) (Site, error) {
	if err := a.CheckSite(id); err != nil {
		return Site{}, err
	}
	r, err := q.KitchenSite(ctx, db.KitchenSiteParams{OrgID: a.OrgID, ID: id})
	if pg.IsNoRows(err) {
		return Site{}, apierr.NotFound("Site")
	}
	if err != nil {
		return Site{}, err
	}
	s := Site{ID: r.ID, Name: r.Name}
	if s.Zone, err = loadZone(r.Timezone); err != nil {
		return s, apierr.Internal(fmt.Errorf("site %s zone %q: %w", r.ID, r.Timezone, err))
	}
	if len(r.DayParts) > 0 {
		if err := json.Unmarshal(r.DayParts, &s.DayParts); err != nil {
			return s, err
		}
	}
	return s, nil
}

// dayPart finds the site's day part by name (case-insensitively).
func (s Site) dayPart(name string) (DayPart, bool) {
	for _, p := range s.DayParts {
		if strings.EqualFold(p.Name, strings.TrimSpace(name)) {
			return p, true
		}
	}
	return DayPart{}, false
}

func (s Site) dayPartNames() string {
	names := make([]string, 0, len(s.DayParts))
	for _, p := range s.DayParts {
		names = append(names, p.Name)
	}
	if len(names) == 0 {
		return "the site has none"
	}
	return "one of " + strings.Join(names, ", ")
}

// startOf is when a day part of a local date begins, in the site's zone.
func (s Site) startOf(date time.Time, p DayPart) time.Time {
	var h, m int
	_, _ = fmt.Sscanf(p.Start, "%d:%d", &h, &m)
	return time.Date(date.Year(), date.Month(), date.Day(), h, m, 0, 0, s.Zone)
}

func pgDate(d openapi_types.Date) pgtype.Date {
	return pgtype.Date{Time: time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC), Valid: true}
}

func apiDate(d pgtype.Date) openapi_types.Date { return openapi_types.Date{Time: d.Time} }

// checkMenuItems validates items against the site's day parts and the organization's recipes
// (archived ones refused), normalizing day part names.
func checkMenuItems(ctx context.Context, q *db.Queries, orgID uuid.UUID, site Site, field string, items []menuItem, cycleWeeks int) error {
	ids := make([]uuid.UUID, 0, len(items))
	for _, it := range items {
		ids = append(ids, it.RecipeID)
	}
	rows, err := q.GetRecipes(ctx, db.GetRecipesParams{OrgID: orgID, Ids: ids})
	if err != nil {
		return err
	}
	recipes := map[uuid.UUID]db.GetRecipesRow{}
	for _, r := range rows {
		recipes[r.ID] = r
	}
	for i := range items {
		f := fmt.Sprintf("%s.%d", field, i)
		p, ok := site.dayPart(items[i].DayPart)
		if !ok {
			return apierr.InvalidField(f+".dayPart", fmt.Sprintf("%q is no day part of the site (%s)", items[i].DayPart, site.dayPartNames()))
		}
		items[i].DayPart = p.Name
		if cycleWeeks > 0 && items[i].Week > cycleWeeks {
			return apierr.InvalidField(f+".week", fmt.Sprintf("must be within the cycle of %d weeks", cycleWeeks))
		}
		r, ok := recipes[items[i].RecipeID]
		switch {
		case !ok:
			return apierr.InvalidField(f+".recipeId", "is no recipe of the organization")
		case r.ArchivedAt != nil:
			return apierr.InvalidField(f+".recipeId", fmt.Sprintf("recipe %q is archived", r.Name))
		}
	}
	return nil
}

func readMenuItems(field string, in []api.MenuItemInput) ([]menuItem, error) {
	out := make([]menuItem, 0, len(in))
	for i, it := range in {
		ppc, err := parsePositive(fmt.Sprintf("%s.%d.portionsPerCover", field, i), string(it.PortionsPerCover))
		if err != nil {
			return nil, err
		}
		out = append(out, menuItem{Week: it.Week, Weekday: it.Weekday, DayPart: it.DayPart, RecipeID: it.RecipeId, PortionsPerCover: ppc, PriceCents: it.PriceCents})
	}
	return out, nil
}

func (h *Handlers) writeMenu(ctx context.Context, a authz.Access, id uuid.UUID, b *api.MenuRequest) (api.Menu, error) {
	now := h.clock.Now()
	var out api.Menu
	err := pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		var cur db.Menu
		if id != uuid.Nil {
			var err error
			cur, err = q.GetMenu(ctx, db.GetMenuParams{OrgID: a.OrgID, ID: id})
			if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(cur.SiteID)) {
				return errMenuNotFound
			}
			if err != nil {
				return err
			}
			if cur.SiteID != b.SiteId {
				return apierr.InvalidField("siteId", "a menu stays at its site")
			}
		}
		site, err := loadSite(ctx, q, a, b.SiteId)
		if err != nil {
			return err
		}
		name := strings.TrimSpace(b.Name)
		if name == "" {
			return apierr.InvalidField("name", "must not be blank")
		}
		items, err := readMenuItems("items", b.Items)
		if err != nil {
			return err
		}
		if err := checkMenuItems(ctx, q, a.OrgID, site, "items", items, b.CycleWeeks); err != nil {
			return err
		}
		raw, _ := json.Marshal(items)
		var row db.Menu
		if id == uuid.Nil {
			row, err = q.CreateMenu(ctx, db.CreateMenuParams{ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, SiteID: site.ID, Name: name,
				StartsOn: pgDate(b.StartsOn), CycleWeeks: int32(b.CycleWeeks), Items: raw, Now: now})
		} else {
			row, err = q.UpdateMenu(ctx, db.UpdateMenuParams{OrgID: a.OrgID, ID: id, Name: name, StartsOn: pgDate(b.StartsOn),
				CycleWeeks: int32(b.CycleWeeks), Items: raw, Now: now})
		}
		if err != nil {
			return err
		}
		if out, err = menuToAPI(ctx, q, row); err != nil {
			return err
		}
		if err := hintSite(ctx, tx, a.OrgID, site.ID); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, site.ID, row.ID, now)
	})
	return out, err
}

func (h *Handlers) CreateMenu(ctx context.Context, req api.CreateMenuRequestObject) (api.CreateMenuResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	out, err := h.writeMenu(ctx, a, uuid.Nil, req.Body)
	if err != nil {
		return nil, err
	}
	return api.CreateMenu201JSONResponse{Body: out}, nil
}

func (h *Handlers) UpdateMenu(ctx context.Context, req api.UpdateMenuRequestObject) (api.UpdateMenuResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	out, err := h.writeMenu(ctx, a, req.Id, req.Body)
	if err != nil {
		return nil, err
	}
	return api.UpdateMenu200JSONResponse(out), nil
}

func (h *Handlers) SetMenuDate(ctx context.Context, req api.SetMenuDateRequestObject) (api.SetMenuDateResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out api.Menu
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		m, err := q.GetMenu(ctx, db.GetMenuParams{OrgID: a.OrgID, ID: req.Id})
		if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(m.SiteID)) {
			return errMenuNotFound
		}
		if err != nil {
			return err
		}
		site, err := loadSite(ctx, q, a, m.SiteID)
		if err != nil {
			return err
		}
		items := make([]menuItem, 0, len(req.Body.Items))
		for i, it := range req.Body.Items {
			ppc, err := parsePositive(fmt.Sprintf("items.%d.portionsPerCover", i), string(it.PortionsPerCover))
			if err != nil {
				return err
			}
			items = append(items, menuItem{DayPart: it.DayPart, RecipeID: it.RecipeId, PortionsPerCover: ppc, PriceCents: it.PriceCents})
		}
		if err := checkMenuItems(ctx, q, a.OrgID, site, "items", items, 0); err != nil {
			return err
		}
		raw, _ := json.Marshal(items)
		if err := q.UpsertMenuOverride(ctx, db.UpsertMenuOverrideParams{OrgID: a.OrgID, MenuID: m.ID, Date: pgDate(req.Date), Items: raw, Now: now}); err != nil {
			return err
		}
		if out, err = menuToAPI(ctx, q, m); err != nil {
			return err
		}
		if err := hintSite(ctx, tx, a.OrgID, site.ID); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, site.ID, m.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.SetMenuDate200JSONResponse(out), nil
}

func (h *Handlers) GetMenu(ctx context.Context, req api.GetMenuRequestObject) (api.GetMenuResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	m, err := q.GetMenu(ctx, db.GetMenuParams{OrgID: a.OrgID, ID: req.Id})
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(m.SiteID)) {
		return nil, errMenuNotFound
	}
	if err != nil {
		return nil, err
	}
	out, err := menuToAPI(ctx, q, m)
	if err != nil {
		return nil, err
	}
	return api.GetMenu200JSONResponse(out), nil
}

func (h *Handlers) ListMenus(ctx context.Context, req api.ListMenusRequestObject) (api.ListMenusResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	rows, err := q.ListMenus(ctx, db.ListMenusParams{OrgID: a.OrgID, Scope: a.SiteScope(), SiteID: req.Params.SiteId})
	if err != nil {
		return nil, err
	}
	out := make(api.ListMenus200JSONResponse, 0, len(rows))
	for _, m := range rows {
		am, err := menuToAPI(ctx, q, m)
		if err != nil {
			return nil, err
		}
		out = append(out, am)
	}
	return out, nil
}

// recipeNames reads the names of the recipes among ids.
func recipeNames(ctx context.Context, q *db.Queries, orgID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]string, error) {
	out := map[uuid.UUID]string{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := q.GetRecipes(ctx, db.GetRecipesParams{OrgID: orgID, Ids: ids})
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.ID] = r.Name
	}
	return out, nil
}

func itemsToAPI(items []menuItem, names map[uuid.UUID]string) []api.MenuItem {
	out := make([]api.MenuItem, 0, len(items))
	for _, it := range items {
		m := api.MenuItem{DayPart: it.DayPart, RecipeId: it.RecipeID, RecipeName: names[it.RecipeID],
			PortionsPerCover: api.Quantity(quantity.Format(it.PortionsPerCover)), PriceCents: it.PriceCents}
		if it.Week > 0 {
			w, d := it.Week, it.Weekday
			m.Week, m.Weekday = &w, &d
		}
		out = append(out, m)
	}
	return out
}

func menuToAPI(ctx context.Context, q *db.Queries, m db.Menu) (api.Menu, error) {
	var items []menuItem
	if err := json.Unmarshal(m.Items, &items); err != nil {
		return api.Menu{}, err
	}
	overrides, err := q.MenuOverrides(ctx, db.MenuOverridesParams{OrgID: m.OrgID, MenuID: m.ID})
	if err != nil {
		return api.Menu{}, err
	}
	oItems := make([][]menuItem, len(overrides))
	var ids []uuid.UUID
	for _, it := range items {
		ids = append(ids, it.RecipeID)
	}
	for i, o := range overrides {
		if err := json.Unmarshal(o.Items, &oItems[i]); err != nil {
			return api.Menu{}, err
		}
		for _, it := range oItems[i] {
			ids = append(ids, it.RecipeID)
		}
	}
	names, err := recipeNames(ctx, q, m.OrgID, ids)
	if err != nil {
		return api.Menu{}, err
	}
	out := api.Menu{Id: m.ID, SiteId: m.SiteID, Name: m.Name, StartsOn: apiDate(m.StartsOn), CycleWeeks: int(m.CycleWeeks),
		Items: itemsToAPI(items, names), Overrides: make([]api.MenuOverride, 0, len(overrides)), CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
	for i, o := range overrides {
		out.Overrides = append(out.Overrides, api.MenuOverride{Date: apiDate(o.Date), Items: itemsToAPI(oItems[i], names)})
	}
	return out, nil
}

// Effective is a site's effective menu of a date: the date's override over the cycle of the menu
// in force.
type Effective struct {
	MenuID *uuid.UUID
	Source string // cycle, override, none
	Week   int
	Items  []menuItem
}

// effectiveMenu resolves what the site serves on date (a local date at UTC midnight), for
// dayPart when not empty.
func effectiveMenu(ctx context.Context, q *db.Queries, orgID, siteID uuid.UUID, date time.Time, dayPart string) (Effective, error) {
	row, err := q.EffectiveMenu(ctx, db.EffectiveMenuParams{OrgID: orgID, SiteID: siteID, Date: pgtype.Date{Time: date, Valid: true}})
	if pg.IsNoRows(err) {
		return Effective{Source: "none", Items: []menuItem{}}, nil
	}
	if err != nil {
		return Effective{}, err
	}
	e := Effective{MenuID: &row.ID, Source: "cycle"}
	days := int(date.Sub(row.StartsOn.Time).Hours() / 24)
	e.Week = (days/7)%int(row.CycleWeeks) + 1
	var all []menuItem
	if row.OverrideItems != nil {
		e.Source = "override"
		if err := json.Unmarshal(row.OverrideItems, &all); err != nil {
			return e, err
		}
	} else {
		var cycle []menuItem
		if err := json.Unmarshal(row.Items, &cycle); err != nil {
			return e, err
		}
		wd := int(date.Weekday())
		if wd == 0 {
			wd = 7
		}
		for _, it := range cycle {
			if it.Week == e.Week && it.Weekday == wd {
				all = append(all, it)
			}
		}
	}
	e.Items = []menuItem{}
	for _, it := range all {
		if dayPart == "" || strings.EqualFold(it.DayPart, dayPart) {
			e.Items = append(e.Items, it)
		}
	}
	return e, nil
}

func (h *Handlers) GetEffectiveMenu(ctx context.Context, req api.GetEffectiveMenuRequestObject) (api.GetEffectiveMenuResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	site, err := loadSite(ctx, q, a, req.Params.SiteId)
	if err != nil {
		return nil, err
	}
	dp := ""
	if req.Params.DayPart != nil {
		p, ok := site.dayPart(*req.Params.DayPart)
		if !ok {
			return nil, apierr.InvalidField("dayPart", fmt.Sprintf("%q is no day part of the site (%s)", *req.Params.DayPart, site.dayPartNames()))
		}
		dp = p.Name
	}
	date := pgDate(req.Params.Date).Time
	e, err := effectiveMenu(ctx, q, a.OrgID, site.ID, date, dp)
	if err != nil {
		return nil, err
	}
	ids := make([]uuid.UUID, 0, len(e.Items))
	for _, it := range e.Items {
		ids = append(ids, it.RecipeID)
	}
	names, err := recipeNames(ctx, q, a.OrgID, ids)
	if err != nil {
		return nil, err
	}
	out := api.EffectiveMenu{SiteId: site.ID, Date: req.Params.Date, MenuId: e.MenuID, Source: api.EffectiveMenuSource(e.Source), Items: itemsToAPI(e.Items, names)}
	if e.Week > 0 {
		w := e.Week
		out.Week = &w
	}
	return api.GetEffectiveMenu200JSONResponse(out), nil
}
