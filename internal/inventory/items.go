package inventory

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/quantity"
)

// Item is an inventory item as other domains read it (recipes, purchasing, catering): its units
// to convert quantities with, its allergen statements, its par levels and its moving-average
// cost at each site where it has been stocked. Read it with GetItem or GetItems.
type Item struct {
	ID       uuid.UUID
	OrgID    uuid.UUID
	Name     string
	SKU      *string
	Category string
	// Units converts any quantity of the item to its base unit (Units.Base), or answers a
	// *quantity.ConversionError naming the item and both units.
	Units         quantity.Units
	ShelfLifeDays *int
	// Allergens maps terms of the clinical Allergen vocabulary to AllergenContains, AllergenFree
	// or AllergenUnknown; a term absent was not stated.
	Allergens map[string]string
	Active    bool
	ParLevels []ParLevel
	// Costs holds, by site, the on-hand and moving-average cost of the item there; a site where
	// the item was never stocked is absent.
	Costs map[uuid.UUID]SiteCost
	// Food is the item's link to its food for nutrition analysis.
	Food      FoodLink
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Allergen statements.
const (
	AllergenContains = "contains"
	AllergenFree     = "free"
	AllergenUnknown  = "unknown"
)

// ParLevel is the stock an item should be kept at at a site, in the base unit.
type ParLevel struct {
	SiteID       uuid.UUID
	Par          decimal.Decimal
	ReorderPoint decimal.Decimal
}

// SiteCost is an item's stock and moving-average cost at one site.
type SiteCost struct {
	// OnHand is the quantity on hand at the site, all locations and lots, in the base unit.
	OnHand decimal.Decimal
	// AvgCostCents is the moving-average cost in cents per base unit (12 decimal places).
	AvgCostCents decimal.Decimal
}

// AvgCost returns the item's moving-average cost at a site in cents per base unit; zero where
// it was never received.
func (i Item) AvgCost(siteID uuid.UUID) decimal.Decimal {
	return i.Costs[siteID].AvgCostCents
}

// ErrItemNotFound is the error of an item that does not exist in the organization.
var ErrItemNotFound = apierr.NotFound("Inventory item")

// GetItem reads one item of the organization with its units, allergens, par levels and costs.
// An item that does not exist, or is another organization's, is ErrItemNotFound. q may be bound
// to a pool or a transaction.
func GetItem(ctx context.Context, q *db.Queries, orgID, itemID uuid.UUID) (Item, error) {
	items, err := GetItems(ctx, q, orgID, []uuid.UUID{itemID})
	if err != nil {
		return Item{}, err
	}
	it, ok := items[itemID]
	if !ok {
		return Item{}, ErrItemNotFound
	}
	return it, nil
}

// GetItems reads the organization's items among ids, keyed by id; ids of no item of the
// organization are absent from the map.
func GetItems(ctx context.Context, q *db.Queries, orgID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]Item, error) {
	rows, err := q.GetInventoryItems(ctx, db.GetInventoryItemsParams{OrgID: orgID, Ids: ids})
	if err != nil {
		return nil, err
	}
	return assemble(ctx, q, orgID, rows)
}

// GetItemsBare is GetItems without the items' par levels and costs (ParLevels empty, Costs
// empty): what an item is, for readers that never ask what a site holds of it (a recipe's
// nutrition and allergens), in one read instead of three.
func GetItemsBare(ctx context.Context, q *db.Queries, orgID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]Item, error) {
	rows, err := q.GetInventoryItems(ctx, db.GetInventoryItemsParams{OrgID: orgID, Ids: ids})
	if err != nil {
		return nil, err
	}
	return fromRows(rows)
}

// fromRows is fromRow of each row, by id.
func fromRows(rows []db.InventoryItem) (map[uuid.UUID]Item, error) {
	out := make(map[uuid.UUID]Item, len(rows))
	for _, r := range rows {
		it, err := fromRow(r)
		if err != nil {
			return nil, err
		}
		out[r.ID] = it
	}
	return out, nil
}

// assemble turns item rows into Items with their par levels and costs.
func assemble(ctx context.Context, q *db.Queries, orgID uuid.UUID, rows []db.InventoryItem) (map[uuid.UUID]Item, error) {
	out, err := fromRows(rows)
	if err != nil || len(rows) == 0 {
		return out, err
	}
	ids := make([]uuid.UUID, 0, len(rows))
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	pars, err := q.ParLevelsOf(ctx, db.ParLevelsOfParams{OrgID: orgID, ItemIds: ids})
	if err != nil {
		return nil, err
	}
	for _, p := range pars {
		it := out[p.ItemID]
		it.ParLevels = append(it.ParLevels, ParLevel{SiteID: p.SiteID, Par: p.Par, ReorderPoint: p.ReorderPoint})
		out[p.ItemID] = it
	}
	costs, err := q.CostsOf(ctx, db.CostsOfParams{OrgID: orgID, ItemIds: ids})
	if err != nil {
		return nil, err
	}
	for _, c := range costs {
		out[c.ItemID].Costs[c.SiteID] = SiteCost{OnHand: c.OnHand, AvgCostCents: c.AvgCost}
	}
	return out, nil
}

// storedUnit is a declared unit as the units column keeps it.
type storedUnit struct {
	Name   string          `json:"name"`
	Factor decimal.Decimal `json:"factor"`
}

func fromRow(r db.InventoryItem) (Item, error) {
	units, err := unitsMemo.decode(r.Units)
	if err != nil {
		return Item{}, fmt.Errorf("inventory: item %s units: %w", r.ID, err)
	}
	allergens, err := allergensMemo.decode(r.Allergens)
	if err != nil {
		return Item{}, fmt.Errorf("inventory: item %s allergens: %w", r.ID, err)
	}
	it := Item{
		ID: r.ID, OrgID: r.OrgID, Name: r.Name, SKU: r.Sku, Category: r.Category,
		Units:     quantity.Units{Item: r.Name, Base: r.BaseUnit, Declared: declaredUnits(units)},
		Allergens: allergens, Active: r.Active, ParLevels: []ParLevel{}, Costs: map[uuid.UUID]SiteCost{},
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
	if r.ShelfLifeDays != nil {
		d := int(*r.ShelfLifeDays)
		it.ShelfLifeDays = &d
	}
	food, err := foodLinkFromRow(r)
	if err != nil {
		return Item{}, err
	}
	it.Food = food
	return it, nil
}

// notFound maps no rows to the thing's 404.
func notFound(err error, thing string) error {
	if pg.IsNoRows(err) {
		return apierr.NotFound(thing)
	}
	return err
}
