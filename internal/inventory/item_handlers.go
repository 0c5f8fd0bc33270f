package inventory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/quantity"
)

type itemCursor struct {
	Name string    `json:"n"`
	ID   uuid.UUID `json:"i"`
}

func (h *Handlers) ListInventoryItems(ctx context.Context, req api.ListInventoryItemsRequestObject) (api.ListInventoryItemsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	limit := paging.Limit(p.Limit)
	params := db.ListInventoryItemsParams{OrgID: req.OrgId, Q: nonBlank(p.Q), Category: nonBlank(p.Category), Active: p.Active, MaxRows: paging.Fetch(limit)}
	if p.Cursor != nil {
		var c itemCursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		params.CursorName, params.CursorID = &c.Name, &c.ID
	}
	q := db.New(h.pool)
	rows, err := q.ListInventoryItems(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListInventoryItems200JSONResponse{Body: make([]api.InventoryItem, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.InventoryItem) any { return itemCursor{Name: strings.ToLower(last.Name), ID: last.ID} })
	items, err := assemble(ctx, q, req.OrgId, rows)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out.Body = append(out.Body, itemToAPI(items[r.ID], a))
	}
	return out, nil
}

func (h *Handlers) GetInventoryItem(ctx context.Context, req api.GetInventoryItemRequestObject) (api.GetInventoryItemResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	it, err := GetItem(ctx, db.New(h.pool), req.OrgId, req.Id)
	if err != nil {
		return nil, err
	}
	return api.GetInventoryItem200JSONResponse(itemToAPI(it, a)), nil
}

// itemInput is a create or update body, validated.
type itemInput struct {
	name, category string
	sku            *string
	units          quantity.Units
	pars           []ParLevel
	shelfLife      *int32
	allergens      []byte
	active         bool
}

func readItem(ctx context.Context, q *db.Queries, orgID uuid.UUID, name, category string, sku *string, base api.StandardUnit,
	units *[]api.ItemUnit, pars *[]api.ParLevel, shelfLife *int, allergens *api.ItemAllergens, active *bool) (itemInput, error) {
	in := itemInput{name: strings.TrimSpace(name), category: strings.TrimSpace(category), active: active == nil || *active}
	switch {
	case in.name == "":
		return in, apierr.InvalidField("name", "must not be blank")
	case in.category == "":
		return in, apierr.InvalidField("category", "must not be blank")
	}
	if sku != nil {
		s := strings.TrimSpace(*sku)
		if s == "" {
			return in, apierr.InvalidField("sku", "must not be blank")
		}
		in.sku = &s
	}
	in.units = quantity.Units{Item: in.name, Base: string(base)}
	if units != nil {
		for i, u := range *units {
			f, err := parseQty(fmt.Sprintf("units.%d.factor", i), string(u.Factor))
			if err != nil {
				return in, err
			}
			in.units.Declared = append(in.units.Declared, quantity.NamedUnit{Name: u.Name, Factor: f})
		}
	}
	if err := in.units.Validate(); err != nil {
		var ue *quantity.UnitError
		if errors.As(err, &ue) {
			if ue.Index < 0 {
				return in, apierr.InvalidField("baseUnit", ue.Message)
			}
			return in, apierr.InvalidField(fmt.Sprintf("units.%d.%s", ue.Index, ue.Field), ue.Message)
		}
		return in, err
	}
	if pars != nil {
		seen := map[uuid.UUID]bool{}
		var siteIDs []uuid.UUID
		for i, p := range *pars {
			field := fmt.Sprintf("parLevels.%d", i)
			if seen[p.SiteId] {
				return in, apierr.InvalidField(field+".siteId", "appears twice")
			}
			seen[p.SiteId] = true
			par, err := parseNonNegative(field+".par", string(p.Par))
			if err != nil {
				return in, err
			}
			rp, err := parseNonNegative(field+".reorderPoint", string(p.ReorderPoint))
			if err != nil {
				return in, err
			}
			in.pars = append(in.pars, ParLevel{SiteID: p.SiteId, Par: par, ReorderPoint: rp})
			siteIDs = append(siteIDs, p.SiteId)
		}
		if len(siteIDs) > 0 {
			n, err := q.CountSitesIn(ctx, db.CountSitesInParams{OrgID: orgID, Ids: siteIDs})
			if err != nil {
				return in, err
			}
			if int(n) != len(siteIDs) {
				for i, id := range siteIDs {
					if c, _ := q.CountSitesIn(ctx, db.CountSitesInParams{OrgID: orgID, Ids: []uuid.UUID{id}}); c == 0 {
						return in, apierr.InvalidField(fmt.Sprintf("parLevels.%d.siteId", i), "is no site of the organization")
					}
				}
			}
		}
	}
	if shelfLife != nil {
		d := int32(*shelfLife)
		in.shelfLife = &d
	}
	statements := map[string]string{}
	if allergens != nil {
		raw, _ := json.Marshal(allergens)
		_ = json.Unmarshal(raw, &statements)
	}
	in.allergens, _ = json.Marshal(statements)
	return in, nil
}

func (in itemInput) unitsJSON() []byte {
	units := make([]storedUnit, 0, len(in.units.Declared))
	for _, u := range in.units.Declared {
		units = append(units, storedUnit{Name: u.Name, Factor: u.Factor})
	}
	raw, _ := json.Marshal(units)
	return raw
}

// writePars replaces the item's par levels.
func writePars(ctx context.Context, q *db.Queries, orgID, itemID uuid.UUID, pars []ParLevel) error {
	if err := q.DeleteParLevels(ctx, db.DeleteParLevelsParams{OrgID: orgID, ItemID: itemID}); err != nil {
		return err
	}
	for _, p := range pars {
		if err := q.InsertParLevel(ctx, db.InsertParLevelParams{OrgID: orgID, ItemID: itemID, SiteID: p.SiteID, Par: p.Par, ReorderPoint: p.ReorderPoint}); err != nil {
			return err
		}
	}
	return nil
}

var errSKUTaken = apierr.Conflict("An inventory item with this SKU already exists")

func (h *Handlers) CreateInventoryItem(ctx context.Context, req api.CreateInventoryItemRequestObject) (api.CreateInventoryItemResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	now := h.clock.Now()
	var item Item
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		in, err := readItem(ctx, q, req.OrgId, b.Name, b.Category, b.Sku, b.BaseUnit, b.Units, b.ParLevels, b.ShelfLifeDays, b.Allergens, b.Active)
		if err != nil {
			return err
		}
		food, err := readFoodLink(ctx, q, req.OrgId, in.units, b.FoodId, b.GramsPer, b.Edible, b.AddedSugar)
		if err != nil {
			return err
		}
		row, err := q.CreateInventoryItem(ctx, db.CreateInventoryItemParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, Name: in.name, Sku: in.sku, Category: in.category,
			BaseUnit: in.units.Base, Units: in.unitsJSON(), ShelfLifeDays: in.shelfLife, Allergens: in.allergens, Active: in.active, Now: now,
		})
		if _, dup := pg.IsUniqueViolation(err); dup {
			return errSKUTaken
		}
		if err != nil {
			return err
		}
		if err := writePars(ctx, q, req.OrgId, row.ID, in.pars); err != nil {
			return err
		}
		if err := food.write(ctx, q, req.OrgId, row.ID); err != nil {
			return err
		}
		if item, err = GetItem(ctx, q, req.OrgId, row.ID); err != nil {
			return err
		}
		return audit.Record(ctx, q, req.OrgId, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateInventoryItem201JSONResponse{Body: itemToAPI(item, a)}, nil
}

func (h *Handlers) UpdateInventoryItem(ctx context.Context, req api.UpdateInventoryItemRequestObject) (api.UpdateInventoryItemResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	now := h.clock.Now()
	var item Item
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		cur, err := q.GetInventoryItemForUpdate(ctx, db.GetInventoryItemForUpdateParams{OrgID: req.OrgId, ID: req.Id})
		if err != nil {
			return notFound(err, "Inventory item")
		}
		in, err := readItem(ctx, q, req.OrgId, b.Name, b.Category, b.Sku, b.BaseUnit, b.Units, b.ParLevels, b.ShelfLifeDays, b.Allergens, b.Active)
		if err != nil {
			return err
		}
		food, err := readFoodLink(ctx, q, req.OrgId, in.units, b.FoodId, b.GramsPer, b.Edible, b.AddedSugar)
		if err != nil {
			return err
		}
		if in.units.Base != cur.BaseUnit {
			used, err := q.ItemHasHistory(ctx, db.ItemHasHistoryParams{OrgID: req.OrgId, ItemID: req.Id})
			if err != nil {
				return err
			}
			if used {
				return apierr.Conflict(fmt.Sprintf("The base unit of %q cannot change: its stock history is kept in %s", cur.Name, cur.BaseUnit))
			}
		}
		_, err = q.UpdateInventoryItem(ctx, db.UpdateInventoryItemParams{
			OrgID: req.OrgId, ID: req.Id, Name: in.name, Sku: in.sku, Category: in.category,
			BaseUnit: in.units.Base, Units: in.unitsJSON(), ShelfLifeDays: in.shelfLife, Allergens: in.allergens, Active: in.active, Now: now,
		})
		if _, dup := pg.IsUniqueViolation(err); dup {
			return errSKUTaken
		}
		if err != nil {
			return err
		}
		if err := writePars(ctx, q, req.OrgId, req.Id, in.pars); err != nil {
			return err
		}
		if err := food.write(ctx, q, req.OrgId, req.Id); err != nil {
			return err
		}
		if item, err = GetItem(ctx, q, req.OrgId, req.Id); err != nil {
			return err
		}
		return audit.Record(ctx, q, req.OrgId, req.Id, now)
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateInventoryItem200JSONResponse(itemToAPI(item, a)), nil
}

// itemToAPI writes an item for a member: the par levels of the sites they see.
func itemToAPI(it Item, a authz.Access) api.InventoryItem {
	out := api.InventoryItem{
		Id: it.ID, Name: it.Name, Sku: it.SKU, Category: it.Category, BaseUnit: api.StandardUnit(it.Units.Base),
		Units: make([]api.ItemUnit, 0, len(it.Units.Declared)), ParLevels: make([]api.ParLevel, 0, len(it.ParLevels)),
		Active: it.Active, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
	}
	for _, u := range it.Units.Declared {
		out.Units = append(out.Units, api.ItemUnit{Name: u.Name, Factor: api.PositiveQuantityInput(fmtQty(u.Factor))})
	}
	for _, p := range it.ParLevels {
		if a.CanSeeSite(p.SiteID) {
			out.ParLevels = append(out.ParLevels, api.ParLevel{SiteId: p.SiteID, Par: api.PositiveQuantityInput(fmtQty(p.Par)), ReorderPoint: api.PositiveQuantityInput(fmtQty(p.ReorderPoint))})
		}
	}
	if it.ShelfLifeDays != nil {
		d := *it.ShelfLifeDays
		out.ShelfLifeDays = &d
	}
	raw, _ := json.Marshal(it.Allergens)
	_ = json.Unmarshal(raw, &out.Allergens)
	it.Food.toAPI(&out)
	return out
}

func nonBlank(s *string) *string {
	if s == nil || strings.TrimSpace(*s) == "" {
		return nil
	}
	t := strings.TrimSpace(*s)
	return &t
}
