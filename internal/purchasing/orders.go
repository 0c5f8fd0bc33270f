package purchasing

import (
	"context"
	"fmt"
	"strings"
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
	"github.com/sous-app/sous/internal/inventory"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
)

// Purchase order states.
const (
	StatusDraft             = "draft"
	StatusSubmitted         = "submitted"
	StatusPartiallyReceived = "partially_received"
	StatusReceived          = "received"
	StatusClosed            = "closed"
	StatusCancelled         = "cancelled"
)

// SourceReceipt is the source type of the ledger rows a purchase order receipt writes.
const SourceReceipt = "purchase_order_receipt"

func wrongState(status string) error {
	return apierr.Conflict(fmt.Sprintf("Purchase order is %s", status))
}

// poLine is a validated line to draft.
type poLine struct {
	vi    db.VendorItem
	packs decimal.Decimal
	price int64
}

// draftPO writes a draft purchase order and its lines (validated by the caller).
func draftPO(ctx context.Context, q *db.Queries, p db.InsertPurchaseOrderParams, lines []poLine) (db.PurchaseOrder, error) {
	// Every order line is written here, so every stored order's total is within money.MaxCents.
	if _, err := orderTotal(lines); err != nil {
		return db.PurchaseOrder{}, err
	}
	po, err := q.InsertPurchaseOrder(ctx, p)
	if err != nil {
		return po, err
	}
	var l db.InsertPurchaseOrderLinesParams
	l.OrgID, l.PoID = p.OrgID, po.ID
	for i, x := range lines {
		l.Ids, l.Positions, l.VendorItemIds, l.ItemIds = append(l.Ids, uuid.Must(uuid.NewV7())), append(l.Positions, int32(i)), append(l.VendorItemIds, x.vi.ID), append(l.ItemIds, x.vi.ItemID)
		l.Skus, l.Descriptions, l.PackSizes, l.PackUnits = append(l.Skus, x.vi.Sku), append(l.Descriptions, deref(x.vi.Description)), append(l.PackSizes, x.vi.PackSize), append(l.PackUnits, x.vi.PackUnit)
		l.Packs, l.Prices = append(l.Packs, x.packs), append(l.Prices, x.price)
	}
	return po, q.InsertPurchaseOrderLines(ctx, l)
}

func (h *Handlers) CreatePurchaseOrder(ctx context.Context, req api.CreatePurchaseOrderRequestObject) (api.CreatePurchaseOrderResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	if err := a.CheckSite(b.SiteId); err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var po db.PurchaseOrder
	var lines []db.PurchaseOrderLine
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if _, err := q.GetSite(ctx, db.GetSiteParams{OrgID: req.OrgId, ID: b.SiteId}); err != nil {
			if pg.IsNoRows(err) {
				return apierr.NotFound("Site")
			}
			return err
		}
		v, err := q.GetVendor(ctx, db.GetVendorParams{OrgID: req.OrgId, ID: b.VendorId})
		if pg.IsNoRows(err) {
			return apierr.InvalidField("vendorId", "is no vendor of the organization")
		}
		if err != nil {
			return err
		}
		if !v.Active {
			return apierr.InvalidField("vendorId", fmt.Sprintf("%q is inactive and takes no new orders", v.Name))
		}
		ids := make([]uuid.UUID, 0, len(b.Lines))
		for _, l := range b.Lines {
			ids = append(ids, l.VendorItemId)
		}
		vis, err := vendorItemsByID(ctx, q, req.OrgId, ids)
		if err != nil {
			return err
		}
		items, err := inventory.GetItems(ctx, q, req.OrgId, itemIDsOf(vis))
		if err != nil {
			return err
		}
		pl := make([]poLine, 0, len(b.Lines))
		for i, l := range b.Lines {
			field := fmt.Sprintf("lines.%d", i)
			vi, ok := vis[l.VendorItemId]
			switch {
			case !ok:
				return apierr.InvalidField(field+".vendorItemId", "is no vendor item of the organization")
			case vi.VendorID != v.ID:
				return apierr.InvalidField(field+".vendorItemId", "is a vendor item of another vendor")
			case !vi.Active:
				return apierr.InvalidField(field+".vendorItemId", fmt.Sprintf("vendor item %q is inactive", vi.Sku))
			case !items[vi.ItemID].Active:
				return apierr.InvalidField(field+".vendorItemId", fmt.Sprintf("inventory item %q is inactive", items[vi.ItemID].Name))
			}
			packs, err := parsePacks(field+".packs", l.Packs)
			if err != nil {
				return err
			}
			price := vi.PriceCents
			if l.PriceCents != nil {
				price = *l.PriceCents
			}
			pl = append(pl, poLine{vi: vi, packs: packs, price: price})
		}
		p := db.InsertPurchaseOrderParams{ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, SiteID: b.SiteId, VendorID: v.ID, Note: nonBlank(b.Note), CreatedBy: a.Actor(), Now: now}
		if b.DeliverOn != nil {
			p.DeliverOn = pgtype.Date{Time: b.DeliverOn.Time, Valid: true}
		}
		if po, err = draftPO(ctx, q, p, pl); err != nil {
			return err
		}
		if lines, err = q.PurchaseOrderLines(ctx, db.PurchaseOrderLinesParams{OrgID: req.OrgId, PoIds: []uuid.UUID{po.ID}}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, po.SiteID, po.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreatePurchaseOrder201JSONResponse{Body: poToAPI(po, lines)}, nil
}

func vendorItemsByID(ctx context.Context, q *db.Queries, orgID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]db.VendorItem, error) {
	rows, err := q.GetVendorItems(ctx, db.GetVendorItemsParams{OrgID: orgID, Ids: ids})
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]db.VendorItem, len(rows))
	for _, r := range rows {
		out[r.ID] = r
	}
	return out, nil
}

func itemIDsOf(vis map[uuid.UUID]db.VendorItem) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(vis))
	for _, v := range vis {
		out = append(out, v.ItemID)
	}
	return out
}

type poCursor struct {
	At time.Time `json:"t"`
	ID uuid.UUID `json:"i"`
}

func (h *Handlers) ListPurchaseOrders(ctx context.Context, req api.ListPurchaseOrdersRequestObject) (api.ListPurchaseOrdersResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	limit := paging.Limit(p.Limit)
	params := db.ListPurchaseOrdersParams{OrgID: req.OrgId, SiteID: p.SiteId, VendorID: p.VendorId, Lim: paging.Fetch(limit)}
	if p.SiteId != nil {
		if err := a.CheckSite(*p.SiteId); err != nil {
			return nil, err
		}
	}
	if a.Scoped() {
		params.SiteIds = a.SiteIDs
	}
	if p.Status != nil {
		s := string(*p.Status)
		params.Status = &s
	}
	if p.Cursor != nil {
		var c poCursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		params.BeforeAt, params.BeforeID = &c.At, &c.ID
	}
	q := db.New(h.pool)
	rows, err := q.ListPurchaseOrders(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListPurchaseOrders200JSONResponse{Body: make([]api.PurchaseOrder, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.PurchaseOrder) any { return poCursor{At: last.CreatedAt, ID: last.ID} })
	ids := make([]uuid.UUID, 0, len(rows))
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	lines, err := q.PurchaseOrderLines(ctx, db.PurchaseOrderLinesParams{OrgID: req.OrgId, PoIds: ids})
	if err != nil {
		return nil, err
	}
	byPO := map[uuid.UUID][]db.PurchaseOrderLine{}
	for _, l := range lines {
		byPO[l.PoID] = append(byPO[l.PoID], l)
	}
	for _, r := range rows {
		out.Body = append(out.Body, poToAPI(r, byPO[r.ID]))
	}
	return out, nil
}

// loadPO reads (lock: and locks) a purchase order the member may see, with its lines.
func loadPO(ctx context.Context, q *db.Queries, a authz.Access, orgID, id uuid.UUID, lock bool) (db.PurchaseOrder, []db.PurchaseOrderLine, error) {
	var po db.PurchaseOrder
	var err error
	if lock {
		po, err = q.LockPurchaseOrder(ctx, db.LockPurchaseOrderParams{OrgID: orgID, ID: id})
	} else {
		po, err = q.GetPurchaseOrder(ctx, db.GetPurchaseOrderParams{OrgID: orgID, ID: id})
	}
	if pg.IsNoRows(err) || err == nil && !a.CanSeeSite(po.SiteID) {
		return po, nil, errPONotFound
	}
	if err != nil {
		return po, nil, err
	}
	lines, err := q.PurchaseOrderLines(ctx, db.PurchaseOrderLinesParams{OrgID: orgID, PoIds: []uuid.UUID{id}})
	return po, lines, err
}

func (h *Handlers) GetPurchaseOrder(ctx context.Context, req api.GetPurchaseOrderRequestObject) (api.GetPurchaseOrderResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	po, lines, err := loadPO(ctx, db.New(h.pool), a, req.OrgId, req.Id, false)
	if err != nil {
		return nil, err
	}
	return api.GetPurchaseOrder200JSONResponse(poToAPI(po, lines)), nil
}

// transition moves a purchase order from one of the states in from to next.
func (h *Handlers) transition(ctx context.Context, orgID, id uuid.UUID, next string, from ...string) (api.PurchaseOrder, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return api.PurchaseOrder{}, err
	}
	now := h.clock.Now()
	var po db.PurchaseOrder
	var lines []db.PurchaseOrderLine
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		var err error
		if po, lines, err = loadPO(ctx, q, a, orgID, id, true); err != nil {
			return err
		}
		ok := false
		for _, f := range from {
			ok = ok || po.Status == f
		}
		if !ok {
			return wrongState(po.Status)
		}
		if next == StatusClosed && allReceived(lines) {
			return apierr.Conflict("Purchase order has no line outstanding: nothing to close")
		}
		if po, err = q.SetPurchaseOrderStatus(ctx, db.SetPurchaseOrderStatusParams{OrgID: orgID, ID: id, Status: next, Now: now}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, orgID, po.SiteID, po.ID, now)
	})
	return poToAPI(po, lines), err
}

func (h *Handlers) SubmitPurchaseOrder(ctx context.Context, req api.SubmitPurchaseOrderRequestObject) (api.SubmitPurchaseOrderResponseObject, error) {
	po, err := h.transition(ctx, req.OrgId, req.Id, StatusSubmitted, StatusDraft)
	if err != nil {
		return nil, err
	}
	return api.SubmitPurchaseOrder200JSONResponse(po), nil
}

func (h *Handlers) CancelPurchaseOrder(ctx context.Context, req api.CancelPurchaseOrderRequestObject) (api.CancelPurchaseOrderResponseObject, error) {
	po, err := h.transition(ctx, req.OrgId, req.Id, StatusCancelled, StatusDraft, StatusSubmitted)
	if err != nil {
		return nil, err
	}
	return api.CancelPurchaseOrder200JSONResponse(po), nil
}

func (h *Handlers) ClosePurchaseOrder(ctx context.Context, req api.ClosePurchaseOrderRequestObject) (api.ClosePurchaseOrderResponseObject, error) {
	po, err := h.transition(ctx, req.OrgId, req.Id, StatusClosed, StatusSubmitted, StatusPartiallyReceived)
	if err != nil {
		return nil, err
	}
	return api.ClosePurchaseOrder200JSONResponse(po), nil
}

func allReceived(lines []db.PurchaseOrderLine) bool {
	for _, l := range lines {
		if l.ReceivedPacks.LessThan(l.Packs) {
			return false
		}
	}
	return true
}

func (h *Handlers) ReceivePurchaseOrder(ctx context.Context, req api.ReceivePurchaseOrderRequestObject) (api.ReceivePurchaseOrderResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	closeShort := b.CloseShort != nil && *b.CloseShort
	if len(b.Lines) == 0 && !closeShort {
		return nil, apierr.InvalidField("lines", "must name at least one line (or closeShort)")
	}
	now := h.clock.Now()
	receiptID := uuid.Must(uuid.NewV7())
	var po db.PurchaseOrder
	var lines []db.PurchaseOrderLine
	var txns []inventory.Txn
	units := map[uuid.UUID]string{}
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		var err error
		// The order's row lock serializes receipts of one order: a line is never over-received.
		if po, lines, err = loadPO(ctx, q, a, req.OrgId, req.Id, true); err != nil {
			return err
		}
		if po.Status != StatusSubmitted && po.Status != StatusPartiallyReceived {
			return wrongState(po.Status)
		}
		byID := map[uuid.UUID]db.PurchaseOrderLine{}
		for _, l := range lines {
			byID[l.ID] = l
		}
		settings, err := q.GetSupplySettings(ctx, req.OrgId)
		if err != nil {
			return err
		}
		pct := settings.OverReceiptPercent
		ids := make([]uuid.UUID, 0, len(b.Lines))
		for _, l := range lines {
			ids = append(ids, l.ItemID)
		}
		items, err := inventory.GetItems(ctx, q, req.OrgId, ids)
		if err != nil {
			return err
		}
		adding := map[uuid.UUID]decimal.Decimal{}
		var rl []inventory.ReceiptLine
		var up db.ReceiveLinesParams
		up.OrgID = req.OrgId
		for i, in := range b.Lines {
			field := fmt.Sprintf("lines.%d", i)
			l, ok := byID[in.LineId]
			if !ok {
				return apierr.InvalidField(field+".lineId", "is no line of this purchase order")
			}
			packs, err := parsePacks(field+".packs", in.Packs)
			if err != nil {
				return err
			}
			adding[l.ID] = adding[l.ID].Add(packs)
			limit := l.Packs.Mul(decimal.NewFromInt(100).Add(pct)).Div(decimal.NewFromInt(100))
			if got := l.ReceivedPacks.Add(adding[l.ID]); got.GreaterThan(limit) {
				return apierr.Conflict(fmt.Sprintf("Receiving %s packs of %q would make %s of %s ordered, over the %s %% over-receipt tolerance",
					fmtQty(packs), l.Sku, fmtQty(got), fmtQty(l.Packs), fmtQty(pct)))
			}
			it := items[l.ItemID]
			units[it.ID] = it.Units.Base
			perPack, err := it.Units.ToBase(l.PackSize, l.PackUnit)
			if err != nil || !perPack.IsPositive() {
				return apierr.InvalidField(field+".lineId", fmt.Sprintf("the pack unit %q no longer converts to %s for %q", l.PackUnit, it.Units.Base, it.Name))
			}
			price, invoice := l.PriceCents, int64(-1)
			if in.PriceCents != nil {
				price = *in.PriceCents
				if price != l.PriceCents {
					invoice = price
				}
			}
			r := inventory.ReceiptLine{Field: field, ItemID: it.ID, LocationID: in.LocationId, Quantity: packs.Mul(perPack),
				CostPerBase: decimal.NewFromInt(price).DivRound(perPack, inventory.CostScale)}
			if in.Lot != nil {
				r.Lot = &inventory.LotInput{}
				if in.Lot.Code != nil {
					r.Lot.Code = strings.TrimSpace(*in.Lot.Code)
					if r.Lot.Code == "" {
						return apierr.InvalidField(field+".lot.code", "must not be blank (leave it out for a generated code)")
					}
				}
				if in.Lot.ExpiresOn != nil {
					t := in.Lot.ExpiresOn.Time
					r.Lot.ExpiresOn = &t
				}
			}
			rl = append(rl, r)
			up.Ids, up.Packs, up.InvoicePrices = append(up.Ids, l.ID), append(up.Packs, packs), append(up.InvoicePrices, invoice)
		}
		if err := audit.RecordSite(ctx, q, req.OrgId, po.SiteID, po.ID, now); err != nil {
			return err
		}
		if len(rl) > 0 {
			if txns, err = inventory.Receive(ctx, q, req.OrgId, po.SiteID, inventory.Source{Type: SourceReceipt, ID: receiptID}, a.Actor(), now, rl); err != nil {
				return err
			}
			if err := q.ReceiveLines(ctx, up); err != nil {
				return err
			}
			if lines, err = q.PurchaseOrderLines(ctx, db.PurchaseOrderLinesParams{OrgID: req.OrgId, PoIds: []uuid.UUID{po.ID}}); err != nil {
				return err
			}
		}
		next := StatusPartiallyReceived
		switch {
		case allReceived(lines):
			next = StatusReceived
		case closeShort:
			next = StatusClosed
		}
		if next != po.Status {
			if po, err = q.SetPurchaseOrderStatus(ctx, db.SetPurchaseOrderStatusParams{OrgID: req.OrgId, ID: po.ID, Status: next, Now: now}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := api.ReceivePurchaseOrder200JSONResponse{Id: receiptID, PurchaseOrder: poToAPI(po, lines), Txns: make([]api.StockTxn, 0, len(txns))}
	for _, t := range txns {
		out.Txns = append(out.Txns, inventory.TxnToAPI(t, units[t.ItemID]))
	}
	return out, nil
}

func poToAPI(po db.PurchaseOrder, lines []db.PurchaseOrderLine) api.PurchaseOrder {
	out := api.PurchaseOrder{
		Id: po.ID, VendorId: po.VendorID, SiteId: po.SiteID, Status: api.PurchaseOrderStatus(po.Status), Note: po.Note,
		RequisitionId: po.RequisitionID, OrderListId: po.OrderListID, CreatedAt: po.CreatedAt, UpdatedAt: po.UpdatedAt,
		SubmittedAt: po.SubmittedAt, ReceivedAt: po.ReceivedAt, ClosedAt: po.ClosedAt, CancelledAt: po.CancelledAt,
		Lines: make([]api.PurchaseOrderLine, 0, len(lines)),
	}
	if po.DeliverOn.Valid {
		out.DeliverOn = &openapi_types.Date{Time: po.DeliverOn.Time}
	}
	for _, l := range lines {
		// draftPO, the only writer of order lines, refused any order whose lines or total pass
		// money.MaxCents, so neither the line totals nor their sum can fail or wrap here.
		t, _ := lineTotal(l.Packs, l.PriceCents)
		out.TotalCents += t
		out.Lines = append(out.Lines, api.PurchaseOrderLine{
			Id: l.ID, VendorItemId: l.VendorItemID, ItemId: l.ItemID, Sku: l.Sku, Description: l.Description,
			Packs: api.Quantity(fmtQty(l.Packs)), PackSize: api.Quantity(fmtQty(l.PackSize)), PackUnit: l.PackUnit, PriceCents: l.PriceCents,
			LineTotalCents: t, ReceivedPacks: api.Quantity(fmtQty(l.ReceivedPacks)), InvoicePriceCents: l.InvoicePriceCents,
		})
	}
	return out
}
