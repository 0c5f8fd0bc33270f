package inventory

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/quantity"
)

// ParStock is an active item with a par level at a site, with what is available there: what
// order suggestions and order lists start from.
type ParStock struct {
	ItemID       uuid.UUID
	Name         string
	SKU          *string
	Units        quantity.Units
	Par          decimal.Decimal
	ReorderPoint decimal.Decimal
	// Available is on hand at the site, all locations, leaving out lots expired before today.
	Available decimal.Decimal
	// AvgCostCents is the moving average at the site, cents per base unit.
	AvgCostCents decimal.Decimal
}

// ParStockOfSite reads every active item with a par level at the site, by name; today is the
// site's local date (as a UTC midnight) that decides which lots are expired.
func ParStockOfSite(ctx context.Context, q *db.Queries, orgID, siteID uuid.UUID, today time.Time) ([]ParStock, error) {
	rows, err := q.ParStockOfSite(ctx, db.ParStockOfSiteParams{OrgID: orgID, SiteID: siteID, Today: pgDate(&today)})
	if err != nil {
		return nil, err
	}
	out := make([]ParStock, 0, len(rows))
	for _, r := range rows {
		units, err := unitsMemo.decode(r.Units)
		if err != nil {
			return nil, fmt.Errorf("inventory: item %s units: %w", r.ID, err)
		}
		p := ParStock{ItemID: r.ID, Name: r.Name, SKU: r.Sku, Units: quantity.Units{Item: r.Name, Base: r.BaseUnit, Declared: declaredUnits(units)},
			Par: r.Par, ReorderPoint: r.ReorderPoint, Available: r.Available, AvgCostCents: r.AvgCost}
		out = append(out, p)
	}
	return out, nil
}

// ItemStockOfSite reads ParStock of the active items of ids at the site (par and reorder point 0
// where the site has no par level for one), by name.
func ItemStockOfSite(ctx context.Context, q *db.Queries, orgID, siteID uuid.UUID, today time.Time, ids []uuid.UUID) ([]ParStock, error) {
	rows, err := q.ItemStockOfSite(ctx, db.ItemStockOfSiteParams{OrgID: orgID, SiteID: siteID, Today: pgDate(&today), Ids: ids})
	if err != nil {
		return nil, err
	}
	out := make([]ParStock, 0, len(rows))
	for _, r := range rows {
		units, err := unitsMemo.decode(r.Units)
		if err != nil {
			return nil, fmt.Errorf("inventory: item %s units: %w", r.ID, err)
		}
		p := ParStock{ItemID: r.ID, Name: r.Name, SKU: r.Sku, Units: quantity.Units{Item: r.Name, Base: r.BaseUnit, Declared: declaredUnits(units)},
			Par: r.Par, ReorderPoint: r.ReorderPoint, Available: r.Available, AvgCostCents: r.AvgCost}
		out = append(out, p)
	}
	return out, nil
}

// SiteToday is the site's local date now, as a UTC midnight.
func SiteToday(ctx context.Context, q *db.Queries, orgID, siteID uuid.UUID, now time.Time) (time.Time, error) {
	s, err := q.GetSite(ctx, db.GetSiteParams{OrgID: orgID, ID: siteID})
	if err != nil {
		return time.Time{}, notFound(err, "Site")
	}
	return localDate(now, s.Timezone), nil
}
