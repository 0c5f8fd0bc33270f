package purchasing

import (
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
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/inventory"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/principal"
)

// Requisition states.
const (
	ReqDraft              = "draft"
	ReqSubmitted          = "submitted"
	ReqApproved           = "approved"
	ReqPartiallyFulfilled = "partially_fulfilled"
	ReqFulfilled          = "fulfilled"
	ReqCancelled          = "cancelled"
)

// SourceRequisition is the source type of the transfer rows a fulfillment writes.
const SourceRequisition = "requisition"

var errReqNotFound = apierr.NotFound("Requisition")

func (h *Handlers) CreateRequisition(ctx context.Context, req api.CreateRequisitionRequestObject) (api.CreateRequisitionResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	if err := a.CheckSite(b.SiteId); err != nil {
		return nil, err
	}
	if b.FromLocationId == b.ToLocationId {
		return nil, apierr.InvalidField("toLocationId", "must differ from fromLocationId")
	}
	now := h.clock.Now()
	var out api.Requisition
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		out, err = draftRequisition(ctx, db.New(tx), a, req.OrgId, *b, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.CreateRequisition201JSONResponse{Body: out}, nil
}

// draftRequisition writes a draft requisition of b (site, locations and lines checked) in q's
// transaction, with its audit row.
func draftRequisition(ctx context.Context, q *db.Queries, a authz.Access, orgID uuid.UUID, b api.CreateRequisitionRequest, now time.Time) (api.Requisition, error) {
	if _, err := q.GetSite(ctx, db.GetSiteParams{OrgID: orgID, ID: b.SiteId}); err != nil {
		if pg.IsNoRows(err) {
			return api.Requisition{}, apierr.NotFound("Site")
		}
		return api.Requisition{}, err
	}
	locs, err := q.GetStorageLocations(ctx, db.GetStorageLocationsParams{OrgID: orgID, Ids: []uuid.UUID{b.FromLocationId, b.ToLocationId}})
	if err != nil {
		return api.Requisition{}, err
	}
	found := map[uuid.UUID]db.StorageLocation{}
	for _, l := range locs {
		found[l.ID] = l
	}
	for field, id := range map[string]uuid.UUID{"fromLocationId": b.FromLocationId, "toLocationId": b.ToLocationId} {
		if l, ok := found[id]; !ok || l.SiteID != b.SiteId {
			return api.Requisition{}, apierr.InvalidField(field, "is no storage location of the site")
		}
	}
	ids := make([]uuid.UUID, 0, len(b.Lines))
	for _, l := range b.Lines {
		ids = append(ids, l.ItemId)
	}
	items, err := inventory.GetItems(ctx, q, orgID, ids)
	if err != nil {
		return api.Requisition{}, err
	}
	r := db.InsertRequisitionParams{ID: uuid.Must(uuid.NewV7()), OrgID: orgID, SiteID: b.SiteId, FromLocationID: b.FromLocationId,
		ToLocationID: b.ToLocationId, Note: nonBlank(b.Note), CreatedBy: a.Actor(), Now: now}
	if b.NeededOn != nil {
		r.NeededOn = pgtype.Date{Time: b.NeededOn.Time, Valid: true}
	}
	var lp db.InsertRequisitionLinesParams
	lp.OrgID, lp.RequisitionID = orgID, r.ID
	for i, l := range b.Lines {
		field := fmt.Sprintf("lines.%d", i)
		it, ok := items[l.ItemId]
		if !ok {
			return api.Requisition{}, apierr.InvalidField(field+".itemId", "is no inventory item of the organization")
		}
		qty, err := parsePacks(field+".quantity", l.Quantity)
		if err != nil {
			return api.Requisition{}, err
		}
		base, err := it.Units.ToBase(qty, l.Unit)
		if err != nil {
			return api.Requisition{}, apierr.InvalidField(field+".unit", err.Error())
		}
		if !base.IsPositive() {
			return api.Requisition{}, apierr.InvalidField(field+".quantity", fmt.Sprintf("is too small to count in %s", it.Units.Base))
		}
		lp.Ids, lp.Positions, lp.ItemIds = append(lp.Ids, uuid.Must(uuid.NewV7())), append(lp.Positions, int32(i)), append(lp.ItemIds, it.ID)
		lp.Quantities, lp.Units, lp.Bases = append(lp.Quantities, qty), append(lp.Units, l.Unit), append(lp.Bases, base)
	}
	row, err := q.InsertRequisition(ctx, r)
	if err != nil {
		return api.Requisition{}, err
	}
	if err := q.InsertRequisitionLines(ctx, lp); err != nil {
		return api.Requisition{}, err
	}
	if err := audit.RecordSite(ctx, q, orgID, row.SiteID, row.ID, now); err != nil {
		return api.Requisition{}, err
	}
	return requisitionOut(ctx, q, row)
}

// loadReq reads (lock: and locks) a requisition the member may see.
func loadReq(ctx context.Context, q *db.Queries, a authz.Access, orgID, id uuid.UUID, lock bool) (db.Requisition, error) {
	var r db.Requisition
	var err error
	if lock {
		r, err = q.LockRequisition(ctx, db.LockRequisitionParams{OrgID: orgID, ID: id})
	} else {
		r, err = q.GetRequisition(ctx, db.GetRequisitionParams{OrgID: orgID, ID: id})
	}
	if pg.IsNoRows(err) || err == nil && !a.CanSeeSite(r.SiteID) {
		return r, errReqNotFound
	}
	return r, err
}

// requisitionsOut assembles requisitions with their lines, base units and purchase orders.
func requisitionsOut(ctx context.Context, q *db.Queries, rows []db.Requisition) ([]api.Requisition, error) {
	if len(rows) == 0 {
		return []api.Requisition{}, nil
	}
	orgID := rows[0].OrgID
	ids := make([]uuid.UUID, 0, len(rows))
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	lines, err := q.RequisitionLines(ctx, db.RequisitionLinesParams{OrgID: orgID, RequisitionIds: ids})
	if err != nil {
		return nil, err
	}
	pos, err := q.RequisitionPurchaseOrders(ctx, db.RequisitionPurchaseOrdersParams{OrgID: orgID, RequisitionIds: ids})
	if err != nil {
		return nil, err
	}
	itemIDs := make([]uuid.UUID, 0, len(lines))
	for _, l := range lines {
		itemIDs = append(itemIDs, l.ItemID)
	}
	items, err := inventory.GetItems(ctx, q, orgID, itemIDs)
	if err != nil {
		return nil, err
	}
	byReq := map[uuid.UUID][]api.RequisitionLine{}
	for _, l := range lines {
		byReq[l.RequisitionID] = append(byReq[l.RequisitionID], api.RequisitionLine{
			Id: l.ID, ItemId: l.ItemID, Quantity: api.Quantity(fmtQty(l.Quantity)), Unit: l.Unit, QuantityBase: api.Quantity(fmtQty(l.QuantityBase)),
			FulfilledBase: api.Quantity(fmtQty(l.FulfilledBase)), BaseUnit: items[l.ItemID].Units.Base,
		})
	}
	poByReq := map[uuid.UUID][]uuid.UUID{}
	for _, p := range pos {
		poByReq[*p.RequisitionID] = append(poByReq[*p.RequisitionID], p.ID)
	}
	out := make([]api.Requisition, 0, len(rows))
	for _, r := range rows {
		x := api.Requisition{
			Id: r.ID, SiteId: r.SiteID, FromLocationId: r.FromLocationID, ToLocationId: r.ToLocationID, Note: r.Note,
			Status: api.RequisitionStatus(r.Status), Lines: byReq[r.ID], PurchaseOrderIds: poByReq[r.ID], CreatedAt: r.CreatedAt,
			UpdatedAt: r.UpdatedAt, SubmittedAt: r.SubmittedAt, ApprovedAt: r.ApprovedAt, FulfilledAt: r.FulfilledAt, CancelledAt: r.CancelledAt,
		}
		if x.Lines == nil {
			x.Lines = []api.RequisitionLine{}
		}
		if x.PurchaseOrderIds == nil {
			x.PurchaseOrderIds = []uuid.UUID{}
		}
		if r.NeededOn.Valid {
			x.NeededOn = &openapi_types.Date{Time: r.NeededOn.Time}
		}
		out = append(out, x)
	}
	return out, nil
}

func requisitionOut(ctx context.Context, q *db.Queries, r db.Requisition) (api.Requisition, error) {
	out, err := requisitionsOut(ctx, q, []db.Requisition{r})
	if err != nil {
		return api.Requisition{}, err
	}
	return out[0], nil
}

func (h *Handlers) ListRequisitions(ctx context.Context, req api.ListRequisitionsRequestObject) (api.ListRequisitionsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	limit := paging.Limit(p.Limit)
	params := db.ListRequisitionsParams{OrgID: req.OrgId, SiteID: p.SiteId, Lim: paging.Fetch(limit)}
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
	rows, err := q.ListRequisitions(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListRequisitions200JSONResponse{}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.Requisition) any { return poCursor{At: last.CreatedAt, ID: last.ID} })
	if out.Body, err = requisitionsOut(ctx, q, rows); err != nil {
		return nil, err
	}
	return out, nil
}

func (h *Handlers) GetRequisition(ctx context.Context, req api.GetRequisitionRequestObject) (api.GetRequisitionResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	r, err := loadReq(ctx, q, a, req.OrgId, req.Id, false)
	if err != nil {
		return nil, err
	}
	out, err := requisitionOut(ctx, q, r)
	if err != nil {
		return nil, err
	}
	return api.GetRequisition200JSONResponse(out), nil
}

func reqWrongState(status string) error {
	return apierr.Conflict(fmt.Sprintf("Requisition is %s", status))
}

// reqTransition moves a requisition from one of the states in from to next.
func (h *Handlers) reqTransition(ctx context.Context, orgID, id uuid.UUID, next string, from ...string) (api.Requisition, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return api.Requisition{}, err
	}
	now := h.clock.Now()
	var out api.Requisition
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		r, err := loadReq(ctx, q, a, orgID, id, true)
		if err != nil {
			return err
		}
		ok := false
		for _, f := range from {
			ok = ok || r.Status == f
		}
		if !ok {
			return reqWrongState(r.Status)
		}
		// Cancelling an approved requisition undoes a manager's approval: it takes a manager.
		if next == ReqCancelled && r.Status == ReqApproved && a.Principal.Kind == principal.User {
			if min, _ := authz.MinRole(authz.ManageSupply); !a.Role.AtLeast(min) {
				return apierr.Forbidden("Cancelling an approved requisition needs manageSupply (manager and up)")
			}
		}
		if r, err = q.SetRequisitionStatus(ctx, db.SetRequisitionStatusParams{OrgID: orgID, ID: id, Status: next, Now: now, Actor: a.Actor()}); err != nil {
			return err
		}
		if err := audit.RecordSite(ctx, q, orgID, r.SiteID, r.ID, now); err != nil {
			return err
		}
		out, err = requisitionOut(ctx, q, r)
		return err
	})
	return out, err
}

func (h *Handlers) SubmitRequisition(ctx context.Context, req api.SubmitRequisitionRequestObject) (api.SubmitRequisitionResponseObject, error) {
	r, err := h.reqTransition(ctx, req.OrgId, req.Id, ReqSubmitted, ReqDraft)
	if err != nil {
		return nil, err
	}
	return api.SubmitRequisition200JSONResponse(r), nil
}

func (h *Handlers) ApproveRequisition(ctx context.Context, req api.ApproveRequisitionRequestObject) (api.ApproveRequisitionResponseObject, error) {
	r, err := h.reqTransition(ctx, req.OrgId, req.Id, ReqApproved, ReqSubmitted)
	if err != nil {
		return nil, err
	}
	return api.ApproveRequisition200JSONResponse(r), nil
}

func (h *Handlers) CancelRequisition(ctx context.Context, req api.CancelRequisitionRequestObject) (api.CancelRequisitionResponseObject, error) {
	r, err := h.reqTransition(ctx, req.OrgId, req.Id, ReqCancelled, ReqDraft, ReqSubmitted, ReqApproved)
	if err != nil {
		return nil, err
	}
	return api.CancelRequisition200JSONResponse(r), nil
}

func (h *Handlers) FulfillRequisition(ctx context.Context, req api.FulfillRequisitionRequestObject) (api.FulfillRequisitionResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	source := inventory.Source{Type: SourceRequisition, ID: uuid.Must(uuid.NewV7())}
	var out api.RequisitionFulfillment
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		r, err := loadReq(ctx, q, a, req.OrgId, req.Id, true)
		if err != nil {
			return err
		}
		if r.Status != ReqApproved && r.Status != ReqPartiallyFulfilled {
			return apierr.Conflict("Requisition is not approved")
		}
		lines, err := q.RequisitionLines(ctx, db.RequisitionLinesParams{OrgID: req.OrgId, RequisitionIds: []uuid.UUID{r.ID}})
		if err != nil {
			return err
		}
		ids := make([]uuid.UUID, 0, len(lines))
		byID := map[uuid.UUID]db.RequisitionLine{}
		for _, l := range lines {
			ids, byID[l.ID] = append(ids, l.ItemID), l
		}
		items, err := inventory.GetItems(ctx, q, req.OrgId, ids)
		if err != nil {
			return err
		}
		move := map[uuid.UUID]decimal.Decimal{}
		var order []uuid.UUID
		if req.Body != nil && req.Body.Lines != nil {
			for i, in := range *req.Body.Lines {
				field := fmt.Sprintf("lines.%d", i)
				l, ok := byID[in.LineId]
				if !ok {
					return apierr.InvalidField(field+".lineId", "is no line of this requisition")
				}
				qty, err := parsePacks(field+".quantity", in.Quantity)
				if err != nil {
					return err
				}
				base, err := items[l.ItemID].Units.ToBase(qty, l.Unit)
				if err != nil {
					return apierr.InvalidField(field+".quantity", err.Error())
				}
				if _, seen := move[l.ID]; !seen {
					order = append(order, l.ID)
				}
				move[l.ID] = move[l.ID].Add(base)
				if move[l.ID].GreaterThan(l.QuantityBase.Sub(l.FulfilledBase)) {
					return apierr.InvalidField(field+".quantity", fmt.Sprintf("is more than the %s %s outstanding", fmtQty(l.QuantityBase.Sub(l.FulfilledBase)), items[l.ItemID].Units.Base))
				}
			}
		} else {
			for _, l := range lines {
				if rest := l.QuantityBase.Sub(l.FulfilledBase); rest.IsPositive() {
					move[l.ID], order = rest, append(order, l.ID)
				}
			}
		}
		var tl []inventory.TransferLine
		var fp db.FulfillLinesParams
		fp.OrgID = req.OrgId
		units := map[uuid.UUID]string{}
		for i, id := range order {
			l := byID[id]
			units[l.ItemID] = items[l.ItemID].Units.Base
			tl = append(tl, inventory.TransferLine{Field: fmt.Sprintf("lines.%d", i), ItemID: l.ItemID, From: r.FromLocationID, To: r.ToLocationID, Quantity: move[id]})
			fp.Ids, fp.Bases = append(fp.Ids, id), append(fp.Bases, move[id])
		}
		if err := audit.RecordSite(ctx, q, req.OrgId, r.SiteID, r.ID, now); err != nil {
			return err
		}
		var txns []inventory.Txn
		if len(tl) > 0 {
			if txns, err = inventory.Transfer(ctx, q, req.OrgId, r.SiteID, source, a.Actor(), now, tl); err != nil {
				return err
			}
			if err := q.FulfillLines(ctx, fp); err != nil {
				return err
			}
		}
		done := true
		for _, l := range lines {
			if l.FulfilledBase.Add(move[l.ID]).LessThan(l.QuantityBase) {
				done = false
			}
		}
		next := ReqPartiallyFulfilled
		if done {
			next = ReqFulfilled
		}
		if r, err = q.SetRequisitionStatus(ctx, db.SetRequisitionStatusParams{OrgID: req.OrgId, ID: r.ID, Status: next, Now: now}); err != nil {
			return err
		}
		out = api.RequisitionFulfillment{Id: source.ID, Txns: make([]api.StockTxn, 0, len(txns))}
		for _, t := range txns {
			out.Txns = append(out.Txns, inventory.TxnToAPI(t, units[t.ItemID]))
		}
		out.Requisition, err = requisitionOut(ctx, q, r)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.FulfillRequisition200JSONResponse(out), nil
}

func (h *Handlers) RequisitionToPurchaseOrders(ctx context.Context, req api.RequisitionToPurchaseOrdersRequestObject) (api.RequisitionToPurchaseOrdersResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out api.RequisitionPurchaseOrders
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		r, err := loadReq(ctx, q, a, req.OrgId, req.Id, true)
		if err != nil {
			return err
		}
		if r.Status != ReqApproved {
			return reqWrongState(r.Status)
		}
		existing, err := q.RequisitionPurchaseOrders(ctx, db.RequisitionPurchaseOrdersParams{OrgID: req.OrgId, RequisitionIds: []uuid.UUID{r.ID}})
		if err != nil {
			return err
		}
		if len(existing) > 0 {
			return apierr.Conflict("Requisition already has purchase orders")
		}
		lines, err := q.RequisitionLines(ctx, db.RequisitionLinesParams{OrgID: req.OrgId, RequisitionIds: []uuid.UUID{r.ID}})
		if err != nil {
			return err
		}
		ids := make([]uuid.UUID, 0, len(lines))
		for _, l := range lines {
			ids = append(ids, l.ItemID)
		}
		items, err := inventory.GetItems(ctx, q, req.OrgId, ids)
		if err != nil {
			return err
		}
		prefs, err := preferredByItem(ctx, q, req.OrgId, ids)
		if err != nil {
			return err
		}
		byVendor := map[uuid.UUID][]poLine{}
		var vendors []uuid.UUID
		for i, l := range lines {
			rest := l.QuantityBase.Sub(l.FulfilledBase)
			if !rest.IsPositive() {
				continue
			}
			it := items[l.ItemID]
			vi, ok := prefs[l.ItemID]
			if !ok {
				return apierr.InvalidField(fmt.Sprintf("lines.%d.itemId", i), fmt.Sprintf("%q has no preferred vendor item", it.Name))
			}
			packs, err := packsFor(it, vi, rest)
			if err != nil {
				return apierr.InvalidField(fmt.Sprintf("lines.%d.itemId", i), err.Error())
			}
			if _, seen := byVendor[vi.VendorID]; !seen {
				vendors = append(vendors, vi.VendorID)
			}
			byVendor[vi.VendorID] = append(byVendor[vi.VendorID], poLine{vi: vi, packs: packs, price: vi.PriceCents})
		}
		if len(vendors) == 0 {
			return apierr.Conflict("Requisition has nothing outstanding to order")
		}
		sort.Slice(vendors, func(i, j int) bool { return vendors[i].String() < vendors[j].String() })
		out.PurchaseOrders = []api.PurchaseOrder{}
		for _, v := range vendors {
			p := db.InsertPurchaseOrderParams{ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, SiteID: r.SiteID, VendorID: v, DeliverOn: r.NeededOn,
				RequisitionID: &r.ID, CreatedBy: a.Actor(), Now: now}
			po, err := draftPO(ctx, q, p, byVendor[v])
			if err != nil {
				return err
			}
			pl, err := q.PurchaseOrderLines(ctx, db.PurchaseOrderLinesParams{OrgID: req.OrgId, PoIds: []uuid.UUID{po.ID}})
			if err != nil {
				return err
			}
			out.PurchaseOrders = append(out.PurchaseOrders, poToAPI(po, pl))
			if err := audit.RecordSite(ctx, q, req.OrgId, r.SiteID, po.ID, now); err != nil {
				return err
			}
		}
		if err := audit.RecordSite(ctx, q, req.OrgId, r.SiteID, r.ID, now); err != nil {
			return err
		}
		out.Requisition, err = requisitionOut(ctx, q, r)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.RequisitionToPurchaseOrders200JSONResponse(out), nil
}

// preferredByItem is the preferred, active vendor item of each item (of an active vendor).
func preferredByItem(ctx context.Context, q *db.Queries, orgID uuid.UUID, itemIDs []uuid.UUID) (map[uuid.UUID]db.VendorItem, error) {
	rows, err := q.PreferredVendorItems(ctx, db.PreferredVendorItemsParams{OrgID: orgID, ItemIds: itemIDs})
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]db.VendorItem, len(rows))
	for _, r := range rows {
		out[r.ItemID] = r
	}
	return out, nil
}

// packsFor is how many whole packs of vi cover need (in the item's base unit), rounded up.
func packsFor(it inventory.Item, vi db.VendorItem, need decimal.Decimal) (decimal.Decimal, error) {
	perPack, err := it.Units.ToBase(vi.PackSize, vi.PackUnit)
	if err != nil {
		return decimal.Zero, err
	}
	if !perPack.IsPositive() {
		return decimal.Zero, fmt.Errorf("a pack of %q is too small to count", vi.Sku)
	}
	return need.DivRound(perPack, 12).Ceil(), nil
}
