package purchasing

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	openapi_types "github.com/oapi-codegen/runtime/types"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/attachment"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/csvout"
	"github.com/sous-app/sous/internal/inventory"
	"github.com/sous-app/sous/internal/kitchen"
	"github.com/sous-app/sous/internal/money"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/quantity"
)

var (
	errListNotFound = apierr.NotFound("Order list")
	errListOrdered  = apierr.Conflict("Order list is ordered and read-only")
)

// priced is a quantity bought through a vendor item: whole packs, one pack at the moving average
// (the vendor's price where there is no average yet), and the line total.
type priced struct {
	packs     decimal.Decimal
	unitCost  int64
	lineTotal int64
}

func price(units quantity.Units, avg decimal.Decimal, packSize decimal.Decimal, packUnit string, priceCents int64, qty decimal.Decimal) (priced, error) {
	perPack, err := units.ToBase(packSize, packUnit)
	if err != nil {
		return priced{}, err
	}
	if !perPack.IsPositive() {
		return priced{}, fmt.Errorf("a pack is too small to count in %s", units.Base)
	}
	var p priced
	if qty.IsPositive() {
		p.packs = qty.DivRound(perPack, 12).Ceil()
	}
	p.unitCost = priceCents
	if avg.IsPositive() {
		if p.unitCost, err = money.Round(avg.Mul(perPack)); err != nil {
			return priced{}, err
		}
	}
	if p.lineTotal, err = lineTotal(p.packs, p.unitCost); err != nil {
		return priced{}, err
	}
	return p, nil
}

// maxForecastDays + 1 is the longest span the forecast bases explode, day by day.
const maxForecastDays = 92

// neededOf is what a line needs: par − projected (par basis), the forecast production's needs −
// projected (forecast basis, items the forecast uses), or the larger of the two (both).
func neededOf(basis api.OrderListBasis, r planRow, forecast map[uuid.UUID]decimal.Decimal) decimal.Decimal {
	par := r.item.Par.Sub(r.projected)
	if basis == api.OrderListBasisPar {
		return par
	}
	fc := decimal.Zero
	if n, ok := forecast[r.item.ItemID]; ok {
		fc = n.Sub(r.projected)
	}
	if basis == api.OrderListBasisForecast || fc.GreaterThan(par) {
		return fc
	}
	return par
}

func (h *Handlers) GenerateOrderList(ctx context.Context, req api.GenerateOrderListRequestObject) (api.GenerateOrderListResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	if err := a.CheckSite(b.SiteId); err != nil {
		return nil, err
	}
	switch {
	case b.From.Time.After(b.To.Time):
		return nil, apierr.InvalidField("to", "must not be before from")
	case b.Basis != api.OrderListBasisPar && b.To.Time.Sub(b.From.Time) > maxForecastDays*24*time.Hour:
		return nil, apierr.InvalidField("to", fmt.Sprintf("the %s basis covers at most %d days", b.Basis, maxForecastDays+1))
	}
	now := h.clock.Now()
	var out api.OrderList
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		var forecast map[uuid.UUID]decimal.Decimal
		var extra []uuid.UUID
		if b.Basis != api.OrderListBasisPar {
			if forecast, err = kitchen.ForecastNeeds(ctx, q, req.OrgId, b.SiteId, b.From.Time, b.To.Time); err != nil {
				return err
			}
			for id := range forecast {
				extra = append(extra, id)
			}
		}
		rows, err := plan(ctx, q, req.OrgId, b.SiteId, now, extra)
		if err != nil {
			return err
		}
		l := db.InsertOrderListParams{ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, SiteID: b.SiteId, FromDate: pgtype.Date{Time: b.From.Time, Valid: true},
			ToDate: pgtype.Date{Time: b.To.Time, Valid: true}, Basis: string(b.Basis), SplitByVendor: b.SplitByVendor != nil && *b.SplitByVendor,
			CreatedBy: a.Actor(), Now: now}
		// Lines by item name (plan's order), or by vendor name then item.
		if l.SplitByVendor {
			sort.SliceStable(rows, func(i, j int) bool {
				vi, vj := rows[i].vi, rows[j].vi
				switch {
				case vi == nil || vj == nil:
					return vj == nil && vi != nil
				default:
					return vi.VendorName < vj.VendorName
				}
			})
		}
		var p db.InsertOrderListLinesParams
		p.OrgID, p.OrderListID = req.OrgId, l.ID
		n := 0
		for _, r := range rows {
			need := neededOf(b.Basis, r, forecast)
			if !need.IsPositive() {
				continue
			}
			var pr priced
			vid := uuid.Nil
			if r.vi != nil {
				if pr, err = price(r.item.Units, r.item.AvgCostCents, r.vi.PackSize, r.vi.PackUnit, r.vi.PriceCents, need); err != nil {
					return err
				}
				vid = r.vi.ID
			}
			p.Ids, p.Positions, p.ItemIds = append(p.Ids, uuid.Must(uuid.NewV7())), append(p.Positions, int32(n)), append(p.ItemIds, r.item.ItemID)
			p.Neededs, p.OnHands, p.Pars, p.OnOrders = append(p.Neededs, need), append(p.OnHands, r.onHand), append(p.Pars, r.item.Par), append(p.OnOrders, r.onOrder)
			p.Requisitioneds, p.Quantities, p.VendorItemIds = append(p.Requisitioneds, r.requisitioned), append(p.Quantities, need), append(p.VendorItemIds, vid)
			p.Packs, p.UnitCosts, p.LineTotals, p.Includes = append(p.Packs, pr.packs), append(p.UnitCosts, pr.unitCost), append(p.LineTotals, pr.lineTotal), append(p.Includes, r.vi != nil)
			n++
		}
		list, err := q.InsertOrderList(ctx, l)
		if err != nil {
			return err
		}
		if n > 0 {
			if err := q.InsertOrderListLines(ctx, p); err != nil {
				return err
			}
		}
		if err := audit.RecordSite(ctx, q, req.OrgId, list.SiteID, list.ID, now); err != nil {
			return err
		}
		out, err = orderListOut(ctx, q, list)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.GenerateOrderList201JSONResponse{Body: out}, nil
}

func orderListsOut(ctx context.Context, q *db.Queries, lists []db.OrderList) ([]api.OrderList, error) {
	if len(lists) == 0 {
		return []api.OrderList{}, nil
	}
	orgID := lists[0].OrgID
	ids := make([]uuid.UUID, 0, len(lists))
	for _, l := range lists {
		ids = append(ids, l.ID)
	}
	lines, err := q.OrderListLines(ctx, db.OrderListLinesParams{OrgID: orgID, OrderListIds: ids})
	if err != nil {
		return nil, err
	}
	pos, err := q.OrderListPurchaseOrders(ctx, db.OrderListPurchaseOrdersParams{OrgID: orgID, OrderListIds: ids})
	if err != nil {
		return nil, err
	}
	itemIDs := make([]uuid.UUID, 0, len(lines))
	for _, l := range lines {
		itemIDs = append(itemIDs, l.ItemID)
	}
	names, err := q.GetInventoryItems(ctx, db.GetInventoryItemsParams{OrgID: orgID, Ids: itemIDs})
	if err != nil {
		return nil, err
	}
	type nameUnit struct{ name, unit string }
	byItem := make(map[uuid.UUID]nameUnit, len(names))
	for _, n := range names {
		byItem[n.ID] = nameUnit{n.Name, n.BaseUnit}
	}
	out := make([]api.OrderList, 0, len(lists))
	idx := map[uuid.UUID]int{}
	for i, l := range lists {
		idx[l.ID] = i
		out = append(out, api.OrderList{Id: l.ID, SiteId: l.SiteID, From: openapi_types.Date{Time: l.FromDate.Time}, To: openapi_types.Date{Time: l.ToDate.Time},
			Basis: api.OrderListBasis(l.Basis), SplitByVendor: l.SplitByVendor, Status: api.OrderListStatus(l.Status), Lines: []api.OrderListLine{},
			PurchaseOrderIds: []uuid.UUID{}, CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt, OrderedAt: l.OrderedAt})
	}
	for _, l := range lines {
		o := &out[idx[l.OrderListID]]
		x := api.OrderListLine{Id: l.ID, ItemId: l.ItemID, ItemName: byItem[l.ItemID].name, Unit: byItem[l.ItemID].unit, Needed: q2(l.Needed),
			OnHand: q2(l.OnHand), Par: q2(l.Par), OnOrder: q2(l.OnOrder), Requisitioned: q2(l.Requisitioned), Quantity: q2(l.Quantity),
			VendorItemId: l.VendorItemID, VendorId: l.VendorID, VendorName: l.VendorName, Sku: l.Sku, Description: l.Description, PackUnit: l.PackUnit,
			Packs: q2(l.Packs), UnitCostCents: l.UnitCostCents, LineTotalCents: l.LineTotalCents, Include: l.Include}
		if l.PackSize != nil {
			s := fmtQty(*l.PackSize)
			x.PackSize = &s
		}
		o.Lines = append(o.Lines, x)
		if l.Include {
			if o.TotalCents, err = money.Add(o.TotalCents, l.LineTotalCents); err != nil {
				return nil, err
			}
		}
	}
	for _, p := range pos {
		o := &out[idx[*p.OrderListID]]
		o.PurchaseOrderIds = append(o.PurchaseOrderIds, p.ID)
	}
	return out, nil
}

func q2(d decimal.Decimal) api.Quantity { return api.Quantity(fmtQty(d)) }

func orderListOut(ctx context.Context, q *db.Queries, l db.OrderList) (api.OrderList, error) {
	out, err := orderListsOut(ctx, q, []db.OrderList{l})
	if err != nil {
		return api.OrderList{}, err
	}
	return out[0], nil
}

func loadList(ctx context.Context, q *db.Queries, a authz.Access, orgID, id uuid.UUID, lock bool) (db.OrderList, error) {
	var l db.OrderList
	var err error
	if lock {
		l, err = q.LockOrderList(ctx, db.LockOrderListParams{OrgID: orgID, ID: id})
	} else {
		l, err = q.GetOrderList(ctx, db.GetOrderListParams{OrgID: orgID, ID: id})
	}
	if pg.IsNoRows(err) || err == nil && !a.CanSeeSite(l.SiteID) {
		return l, errListNotFound
	}
	return l, err
}

func (h *Handlers) ListOrderLists(ctx context.Context, req api.ListOrderListsRequestObject) (api.ListOrderListsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	limit := paging.Limit(p.Limit)
	params := db.ListOrderListsParams{OrgID: req.OrgId, SiteID: p.SiteId, Lim: paging.Fetch(limit)}
	if p.SiteId != nil {
		if err := a.CheckSite(*p.SiteId); err != nil {
			return nil, err
		}
	}
	if a.Scoped() {
		params.SiteIds = a.SiteIDs
	}
	if p.Cursor != nil {
		var c poCursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		params.BeforeAt, params.BeforeID = &c.At, &c.ID
	}
	q := db.New(h.pool)
	rows, err := q.ListOrderLists(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListOrderLists200JSONResponse{}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.OrderList) any { return poCursor{At: last.CreatedAt, ID: last.ID} })
	if out.Body, err = orderListsOut(ctx, q, rows); err != nil {
		return nil, err
	}
	return out, nil
}

func (h *Handlers) GetOrderList(ctx context.Context, req api.GetOrderListRequestObject) (api.GetOrderListResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	l, err := loadList(ctx, q, a, req.OrgId, req.Id, false)
	if err != nil {
		return nil, err
	}
	out, err := orderListOut(ctx, q, l)
	if err != nil {
		return nil, err
	}
	return api.GetOrderList200JSONResponse(out), nil
}

func (h *Handlers) UpdateOrderListLine(ctx context.Context, req api.UpdateOrderListLineRequestObject) (api.UpdateOrderListLineResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	now := h.clock.Now()
	var out api.OrderList
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		list, err := loadList(ctx, q, a, req.OrgId, req.Id, true)
		if err != nil {
			return err
		}
		if list.Status != "draft" {
			return errListOrdered
		}
		line, err := q.GetOrderListLine(ctx, db.GetOrderListLineParams{OrgID: req.OrgId, OrderListID: list.ID, ID: req.LineId})
		if pg.IsNoRows(err) {
			return apierr.NotFound("Order list line")
		}
		if err != nil {
			return err
		}
		it, err := inventory.GetItem(ctx, q, req.OrgId, line.ItemID)
		if err != nil {
			return err
		}
		up := db.UpdateOrderListLineParams{OrgID: req.OrgId, OrderListID: list.ID, ID: line.ID, Quantity: line.Quantity, VendorItemID: line.VendorItemID, Include: line.Include}
		if b.Quantity != nil {
			qty, err := quantity.Parse(*b.Quantity)
			if err != nil {
				return apierr.InvalidField("quantity", "must be a decimal number of at most 6 places such as \"12.5\"")
			}
			up.Quantity = qty
		}
		if b.VendorItemId != nil {
			vis, err := vendorItemsByID(ctx, q, req.OrgId, []uuid.UUID{*b.VendorItemId})
			if err != nil {
				return err
			}
			vi, ok := vis[*b.VendorItemId]
			switch {
			case !ok:
				return apierr.InvalidField("vendorItemId", "is no vendor item of the organization")
			case vi.ItemID != line.ItemID:
				return apierr.InvalidField("vendorItemId", fmt.Sprintf("is a vendor item of another inventory item, not of %q", it.Name))
			case !vi.Active:
				return apierr.InvalidField("vendorItemId", fmt.Sprintf("vendor item %q is inactive", vi.Sku))
			}
			up.VendorItemID = &vi.ID
		}
		if b.Include != nil {
			up.Include = *b.Include
		}
		if up.VendorItemID == nil {
			if up.Include {
				return apierr.InvalidField("include", "a line without a vendor item cannot be included: set vendorItemId")
			}
		} else {
			vis, err := vendorItemsByID(ctx, q, req.OrgId, []uuid.UUID{*up.VendorItemID})
			if err != nil {
				return err
			}
			vi := vis[*up.VendorItemID]
			pr, err := price(it.Units, it.AvgCost(list.SiteID), vi.PackSize, vi.PackUnit, vi.PriceCents, up.Quantity)
			if err != nil {
				return apierr.InvalidField("vendorItemId", err.Error())
			}
			up.Packs, up.UnitCostCents, up.LineTotalCents = pr.packs, pr.unitCost, pr.lineTotal
		}
		if _, err := q.UpdateOrderListLine(ctx, up); err != nil {
			return err
		}
		if err := q.TouchOrderList(ctx, db.TouchOrderListParams{OrgID: req.OrgId, ID: list.ID, Now: now}); err != nil {
			return err
		}
		list.UpdatedAt = now
		if err := audit.RecordSite(ctx, q, req.OrgId, list.SiteID, list.ID, now); err != nil {
			return err
		}
		out, err = orderListOut(ctx, q, list)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateOrderListLine200JSONResponse(out), nil
}

func (h *Handlers) SetOrderListStatus(ctx context.Context, req api.SetOrderListStatusRequestObject) (api.SetOrderListStatusResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out api.OrderListOrdered
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		list, err := loadList(ctx, q, a, req.OrgId, req.Id, true)
		if err != nil {
			return err
		}
		if list.Status != "draft" {
			return errListOrdered
		}
		lines, err := q.OrderListLines(ctx, db.OrderListLinesParams{OrgID: req.OrgId, OrderListIds: []uuid.UUID{list.ID}})
		if err != nil {
			return err
		}
		var viIDs []uuid.UUID
		for _, l := range lines {
			if l.Include && l.VendorItemID != nil && l.Packs.IsPositive() {
				viIDs = append(viIDs, *l.VendorItemID)
			}
		}
		vis, err := vendorItemsByID(ctx, q, req.OrgId, viIDs)
		if err != nil {
			return err
		}
		byVendor := map[uuid.UUID][]poLine{}
		var vendors []uuid.UUID
		for _, l := range lines {
			if !l.Include || l.VendorItemID == nil || !l.Packs.IsPositive() {
				continue
			}
			vi := vis[*l.VendorItemID]
			if _, seen := byVendor[vi.VendorID]; !seen {
				vendors = append(vendors, vi.VendorID)
			}
			byVendor[vi.VendorID] = append(byVendor[vi.VendorID], poLine{vi: vi, packs: l.Packs, price: vi.PriceCents})
		}
		if len(vendors) == 0 {
			return apierr.InvalidField("status", "the list has no included line with packs to order")
		}
		out.PurchaseOrders = []api.PurchaseOrder{}
		for _, v := range vendors {
			p := db.InsertPurchaseOrderParams{ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, SiteID: list.SiteID, VendorID: v, DeliverOn: list.FromDate,
				OrderListID: &list.ID, CreatedBy: a.Actor(), Now: now}
			po, err := draftPO(ctx, q, p, byVendor[v])
			if err != nil {
				return err
			}
			pl, err := q.PurchaseOrderLines(ctx, db.PurchaseOrderLinesParams{OrgID: req.OrgId, PoIds: []uuid.UUID{po.ID}})
			if err != nil {
				return err
			}
			out.PurchaseOrders = append(out.PurchaseOrders, poToAPI(po, pl))
			if err := audit.RecordSite(ctx, q, req.OrgId, list.SiteID, po.ID, now); err != nil {
				return err
			}
		}
		if list, err = q.MarkOrderListOrdered(ctx, db.MarkOrderListOrderedParams{OrgID: req.OrgId, ID: list.ID, Now: now}); err != nil {
			return err
		}
		if err := audit.RecordSite(ctx, q, req.OrgId, list.SiteID, list.ID, now); err != nil {
			return err
		}
		out.OrderList, err = orderListOut(ctx, q, list)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.SetOrderListStatus200JSONResponse(out), nil
}

func (h *Handlers) ExportOrderList(ctx context.Context, req api.ExportOrderListRequestObject) (api.ExportOrderListResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	list, err := loadList(ctx, q, a, req.OrgId, req.Id, false)
	if err != nil {
		return nil, err
	}
	lines, err := q.OrderListLines(ctx, db.OrderListLinesParams{OrgID: req.OrgId, OrderListIds: []uuid.UUID{list.ID}})
	if err != nil {
		return nil, err
	}
	var rows []db.OrderListLinesRow
	for _, l := range lines {
		if l.Include && l.VendorItemID != nil {
			rows = append(rows, l)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return deref(rows[i].VendorName) < deref(rows[j].VendorName) })
	// Every cell goes through csvout: vendor names, skus (also a guide's), descriptions and units
	// are the users' text; packs and amounts are numbers the server formats.
	var buf bytes.Buffer
	w := csvout.NewWriter(&buf)
	_ = w.Row(csvout.Text("vendor"), csvout.Text("sku"), csvout.Text("description"), csvout.Text("packs"), csvout.Text("pack_unit"),
		csvout.Text("price"), csvout.Text("line_total"))
	for _, l := range rows {
		_ = w.Row(csvout.Text(deref(l.VendorName)), csvout.Text(deref(l.Sku)), csvout.Text(deref(l.Description)), csvout.Number(fmtQty(l.Packs)),
			csvout.Text(deref(l.PackUnit)), csvout.Number(dollars(l.UnitCostCents)), csvout.Number(dollars(l.LineTotalCents)))
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	disposition := attachment.Disposition("order list", list.FromDate.Time, list.ToDate.Time, "csv")
	return api.ExportOrderList200TextcsvResponse{Body: &buf, ContentLength: int64(buf.Len()),
		Headers: api.ExportOrderList200ResponseHeaders{ContentDisposition: &disposition}}, nil
}

// dollars writes cents as a dollar amount with two places.
func dollars(cents int64) string { return decimal.New(cents, -2).StringFixed(2) }
