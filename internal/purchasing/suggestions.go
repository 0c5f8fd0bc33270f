package purchasing

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/inventory"
	"github.com/sous-app/sous/internal/money"
)

// planRow is one item's numbers at a site: what it has, what is coming and going, and how it
// is bought.
type planRow struct {
	item          inventory.ParStock
	onHand        decimal.Decimal
	onOrder       decimal.Decimal
	requisitioned decimal.Decimal
	projected     decimal.Decimal
	vi            *db.AllPreferredVendorItemsRow
	perPack       decimal.Decimal // one pack in the base unit; zero without a vendor item
}

// threshold is the reorder point, or the par when the reorder point is 0.
func (r planRow) threshold() decimal.Decimal {
	if r.item.ReorderPoint.IsPositive() {
		return r.item.ReorderPoint
	}
	return r.item.Par
}

// packs is ceil(need / pack), 0 without a vendor item or a need.
func (r planRow) packs(need decimal.Decimal) decimal.Decimal {
	if !need.IsPositive() || !r.perPack.IsPositive() {
		return decimal.Zero
	}
	return need.DivRound(r.perPack, 12).Ceil()
}

// plan reads the par stock of a site with what is on order, requisitioned and the preferred
// vendor item of each item.
// Items of extra without a par level at the site are planned too (par 0), in name order.
func plan(ctx context.Context, q *db.Queries, orgID, siteID uuid.UUID, now time.Time, extra []uuid.UUID) ([]planRow, error) {
	today, err := inventory.SiteToday(ctx, q, orgID, siteID, now)
	if err != nil {
		return nil, err
	}
	stock, err := inventory.ParStockOfSite(ctx, q, orgID, siteID, today)
	if err != nil {
		return nil, err
	}
	if len(extra) > 0 {
		have := make(map[uuid.UUID]bool, len(stock))
		for _, s := range stock {
			have[s.ItemID] = true
		}
		var more []uuid.UUID
		for _, id := range extra {
			if !have[id] {
				more = append(more, id)
			}
		}
		if len(more) > 0 {
			add, err := inventory.ItemStockOfSite(ctx, q, orgID, siteID, today, more)
			if err != nil {
				return nil, err
			}
			stock = append(stock, add...)
			sort.SliceStable(stock, func(i, j int) bool {
				a, b := strings.ToLower(stock[i].Name), strings.ToLower(stock[j].Name)
				if a != b {
					return a < b
				}
				return stock[i].ItemID.String() < stock[j].ItemID.String()
			})
		}
	}
	onOrder, err := q.OnOrderLines(ctx, db.OnOrderLinesParams{OrgID: orgID, SiteID: siteID})
	if err != nil {
		return nil, err
	}
	reqs, err := q.RequisitionedBySite(ctx, db.RequisitionedBySiteParams{OrgID: orgID, SiteID: siteID})
	if err != nil {
		return nil, err
	}
	prefs, err := q.AllPreferredVendorItems(ctx, orgID)
	if err != nil {
		return nil, err
	}
	rows := make([]planRow, len(stock))
	byItem := make(map[uuid.UUID]*planRow, len(stock))
	for i, s := range stock {
		rows[i] = planRow{item: s, onHand: s.Available}
		byItem[s.ItemID] = &rows[i]
	}
	for _, l := range onOrder {
		r := byItem[l.ItemID]
		if r == nil {
			continue
		}
		if base, err := r.item.Units.ToBase(l.Outstanding.Mul(l.PackSize), l.PackUnit); err == nil {
			r.onOrder = r.onOrder.Add(base)
		}
	}
	for _, l := range reqs {
		if r := byItem[l.ItemID]; r != nil {
			r.requisitioned = l.Outstanding
		}
	}
	for i := range prefs {
		r := byItem[prefs[i].ItemID]
		if r == nil {
			continue
		}
		if per, err := r.item.Units.ToBase(prefs[i].PackSize, prefs[i].PackUnit); err == nil && per.IsPositive() {
			r.vi, r.perPack = &prefs[i], per
		}
	}
	for i := range rows {
		rows[i].projected = rows[i].onHand.Add(rows[i].onOrder).Sub(rows[i].requisitioned)
	}
	return rows, nil
}

func (h *Handlers) ListOrderSuggestions(ctx context.Context, req api.ListOrderSuggestionsRequestObject) (api.ListOrderSuggestionsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	if err := a.CheckSite(req.Params.SiteId); err != nil {
		return nil, err
	}
	now := h.clock.Now()
	rows, err := plan(ctx, db.New(h.pool), req.OrgId, req.Params.SiteId, now, nil)
	if err != nil {
		return nil, err
	}
	groups := map[uuid.UUID]*api.OrderSuggestionGroup{}
	var order []uuid.UUID
	for _, r := range rows {
		if r.projected.GreaterThan(r.threshold()) {
			continue
		}
		need := r.item.Par.Sub(r.projected)
		if !need.IsPositive() {
			continue
		}
		var vendorID uuid.UUID
		if r.vi != nil {
			vendorID = r.vi.VendorID
		}
		if req.Params.VendorId != nil && *req.Params.VendorId != vendorID {
			continue
		}
		s := api.OrderSuggestion{
			ItemId: r.item.ItemID, ItemName: r.item.Name, Unit: r.item.Units.Base, OnHand: q(r.onHand), OnOrder: q(r.onOrder),
			Requisitioned: q(r.requisitioned), Projected: q(r.projected), Par: q(r.item.Par), ReorderPoint: q(r.item.ReorderPoint), Needed: q(need),
		}
		g := groups[vendorID]
		if g == nil {
			g = &api.OrderSuggestionGroup{Suggestions: []api.OrderSuggestion{}}
			if r.vi != nil {
				g.VendorId, g.VendorName = &r.vi.VendorID, &r.vi.VendorName
			}
			groups[vendorID] = g
			order = append(order, vendorID)
		}
		if r.vi != nil {
			packs := r.packs(need)
			size, per := fmtQty(r.vi.PackSize), fmtQty(r.perPack)
			s.VendorItemId, s.Sku, s.PackSize, s.PackUnit, s.PackQuantity = &r.vi.ID, &r.vi.Sku, &size, &r.vi.PackUnit, &per
			if s.LineTotalCents, err = lineTotal(packs, r.vi.PriceCents); err != nil {
				return nil, err
			}
			if g.TotalCents, err = money.Add(g.TotalCents, s.LineTotalCents); err != nil {
				return nil, err
			}
			s.Packs, s.PriceCents = packs.IntPart(), &r.vi.PriceCents
		}
		g.Suggestions = append(g.Suggestions, s)
	}
	// Vendors by name; the items without a vendor last.
	sort.SliceStable(order, func(i, j int) bool {
		gi, gj := groups[order[i]], groups[order[j]]
		if gi.VendorName == nil || gj.VendorName == nil {
			return gj.VendorName == nil && gi.VendorName != nil
		}
		return *gi.VendorName < *gj.VendorName
	})
	out := api.ListOrderSuggestions200JSONResponse{SiteId: req.Params.SiteId, At: now, Vendors: make([]api.OrderSuggestionGroup, 0, len(order))}
	for _, id := range order {
		out.Vendors = append(out.Vendors, *groups[id])
	}
	return out, nil
}

func q(d decimal.Decimal) api.Quantity { return api.Quantity(fmtQty(d)) }
