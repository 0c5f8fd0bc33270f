package purchasing_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
)

type reqLine struct {
	ID            uuid.UUID `json:"id"`
	QuantityBase  string    `json:"quantityBase"`
	FulfilledBase string    `json:"fulfilledBase"`
}

type requisition struct {
	ID               uuid.UUID   `json:"id"`
	Status           string      `json:"status"`
	Lines            []reqLine   `json:"lines"`
	PurchaseOrderIDs []uuid.UUID `json:"purchaseOrderIds"`
}

type fulfillment struct {
	ID          uuid.UUID   `json:"id"`
	Requisition requisition `json:"requisition"`
	Txns        []txn       `json:"txns"`
}

func (b *buyer) requisition(it item, from, to uuid.UUID, qty, unit string) requisition {
	b.t.Helper()
	var r requisition
	b.call(http.MethodPost, "requisitions").JSON(map[string]any{"siteId": b.site, "fromLocationId": from, "toLocationId": to,
		"lines": []any{map[string]any{"itemId": it.ID, "quantity": qty, "unit": unit}}}).Do().Expect(http.StatusCreated).Decode(&r)
	return r
}

func (b *buyer) reqStep(r requisition, step string, want int) requisition {
	b.t.Helper()
	var out requisition
	res := b.call(http.MethodPost, "requisitions/"+r.ID.String()+"/"+step).Do().Expect(want)
	if want == http.StatusOK {
		res.Decode(&out)
	}
	return out
}

func TestRequisitionTransitions(t *testing.T) {
	b, _, it, _ := setupPO(t)
	line := b.location(b.site, "Line")
	r := b.requisition(it, b.loc, line, "1", "case")
	if r.Status != "draft" || r.Lines[0].QuantityBase != "28.75" {
		t.Fatalf("draft = %+v", r)
	}
	b.reqStep(r, "approve", http.StatusConflict)
	b.call(http.MethodPost, "requisitions/"+r.ID.String()+"/fulfill").Do().ExpectError(http.StatusConflict, "Requisition is not approved")
	staff := b.env.Member(b.org, "inspector")
	if got := b.reqStep(r, "submit", http.StatusOK); got.Status != "submitted" {
		t.Fatal(got.Status)
	}
	b.reqStep(r, "submit", http.StatusConflict)
	b.as(staff, http.MethodPost, "requisitions/"+r.ID.String()+"/approve").Do().Expect(http.StatusForbidden)
	b.call(http.MethodPost, "requisitions/"+r.ID.String()+"/fulfill").Do().ExpectError(http.StatusConflict, "Requisition is not approved")
	if got := b.reqStep(r, "approve", http.StatusOK); got.Status != "approved" {
		t.Fatal(got.Status)
	}
	// Staff cannot cancel an approved one; a manager can.
	b.as(staff, http.MethodPost, "requisitions/"+r.ID.String()+"/cancel").Do().Expect(http.StatusForbidden)
	if got := b.reqStep(r, "cancel", http.StatusOK); got.Status != "cancelled" {
		t.Fatal(got.Status)
	}
	b.reqStep(r, "cancel", http.StatusConflict)
	b.reqStep(r, "submit", http.StatusConflict)
	// Staff create, submit and cancel drafts.
	var r2 requisition
	b.as(staff, http.MethodPost, "requisitions").JSON(map[string]any{"siteId": b.site, "fromLocationId": b.loc, "toLocationId": line,
		"lines": []any{map[string]any{"itemId": it.ID, "quantity": "2", "unit": "each"}}}).Do().Expect(http.StatusCreated).Decode(&r2)
	b.as(staff, http.MethodPost, "requisitions/"+r2.ID.String()+"/cancel").Do().Expect(http.StatusOK)
	// Bad input writes nothing.
	before := b.count(`SELECT count(*) FROM requisitions WHERE org_id = $1`, b.org)
	for _, body := range []map[string]any{
		{"siteId": b.site, "fromLocationId": b.loc, "toLocationId": b.loc, "lines": []any{map[string]any{"itemId": it.ID, "quantity": "1", "unit": "lb"}}},
		{"siteId": b.site, "fromLocationId": b.loc, "toLocationId": line, "lines": []any{map[string]any{"itemId": it.ID, "quantity": "1", "unit": "gal"}}},
		{"siteId": b.site, "fromLocationId": b.loc, "toLocationId": line, "lines": []any{map[string]any{"itemId": uuid.New(), "quantity": "1", "unit": "lb"}}},
		{"siteId": b.site, "fromLocationId": b.loc, "toLocationId": uuid.New(), "lines": []any{map[string]any{"itemId": it.ID, "quantity": "1", "unit": "lb"}}},
		{"siteId": b.site, "fromLocationId": b.loc, "toLocationId": line, "lines": []any{map[string]any{"itemId": it.ID, "quantity": "0", "unit": "lb"}}},
	} {
		b.call(http.MethodPost, "requisitions").JSON(body).Do().Expect(http.StatusBadRequest)
	}
	if after := b.count(`SELECT count(*) FROM requisitions WHERE org_id = $1`, b.org); after != before {
		t.Fatal("a refused requisition was written")
	}
}

func TestFulfillMovesLotsFEFOAtTheSameCost(t *testing.T) {
	b, v, it, vi := setupPO(t)
	line := b.location(b.site, "Line")
	// Two lots received at different prices: L-late expires after L-early.
	p := b.submit(b.createPO(v, map[string]any{"vendorItemId": vi.ID, "packs": "2"}))
	b.receive(p, map[string]any{"lines": []any{
		map[string]any{"lineId": p.Lines[0].ID, "packs": "1", "locationId": b.loc, "lot": map[string]any{"code": "L-late", "expiresOn": "2031-01-01"}},
		map[string]any{"lineId": p.Lines[0].ID, "packs": "1", "locationId": b.loc, "lot": map[string]any{"code": "L-early", "expiresOn": "2030-01-01"}, "priceCents": 5750},
	}}).Expect(http.StatusOK)
	r := b.requisition(it, b.loc, line, "40", "lb")
	b.reqStep(r, "submit", http.StatusOK)
	b.reqStep(r, "approve", http.StatusOK)
	// Part: 10 lb, from the earliest lot only.
	var f fulfillment
	b.call(http.MethodPost, "requisitions/"+r.ID.String()+"/fulfill").JSON(map[string]any{"lines": []any{map[string]any{"lineId": r.Lines[0].ID, "quantity": "10"}}}).
		Do().Expect(http.StatusOK).Decode(&f)
	if f.Requisition.Status != "partially_fulfilled" || len(f.Txns) != 2 || f.Txns[0].Kind != "transfer_out" || f.Txns[1].Kind != "transfer_in" ||
		*f.Txns[0].LotID != *f.Txns[1].LotID || f.Txns[0].UnitCost != f.Txns[1].UnitCost || f.Txns[1].AvgCostAfter != f.Txns[0].AvgCostAfter {
		t.Fatalf("fulfillment = %+v", f)
	}
	early := *f.Txns[0].LotID
	// More than outstanding: 400, nothing moved.
	b.call(http.MethodPost, "requisitions/"+r.ID.String()+"/fulfill").JSON(map[string]any{"lines": []any{map[string]any{"lineId": r.Lines[0].ID, "quantity": "31"}}}).
		Do().Expect(http.StatusBadRequest)
	// The rest (30 lb): 18.75 from L-early, 11.25 from L-late.
	b.call(http.MethodPost, "requisitions/"+r.ID.String()+"/fulfill").Do().Expect(http.StatusOK).Decode(&f)
	if f.Requisition.Status != "fulfilled" || len(f.Txns) != 4 || *f.Txns[0].LotID != early || f.Txns[0].Quantity != "-18.75" || f.Txns[1].Quantity != "-11.25" || f.Txns[2].Quantity != "18.75" {
		t.Fatalf("rest = %+v", f.Txns)
	}
	b.call(http.MethodPost, "requisitions/"+r.ID.String()+"/fulfill").Do().ExpectError(http.StatusConflict, "Requisition is not approved")
	checkLedger(t, b)
	// Short at the source: 409, nothing moved.
	r2 := b.requisition(it, b.loc, line, "100", "lb")
	b.reqStep(r2, "submit", http.StatusOK)
	b.reqStep(r2, "approve", http.StatusOK)
	before := b.count(`SELECT count(*) FROM stock_txns WHERE org_id = $1`, b.org)
	b.call(http.MethodPost, "requisitions/"+r2.ID.String()+"/fulfill").Do().Expect(http.StatusConflict)
	if after := b.count(`SELECT count(*) FROM stock_txns WHERE org_id = $1`, b.org); after != before {
		t.Fatal("a refused fulfillment wrote ledger rows")
	}
}

func TestRequisitionToPurchaseOrders(t *testing.T) {
	b, v, it, _ := setupPO(t)
	limes := b.item("Limes", "LIM")
	other := b.vendor("Sysco")
	b.call(http.MethodPost, "vendors/"+other.ID.String()+"/items").JSON(map[string]any{
		"itemId": limes.ID, "sku": "SY-LIM", "packSize": "10", "packUnit": "lb", "priceCents": 1500, "preferred": true}).Do().Expect(http.StatusCreated)
	line := b.location(b.site, "Line")
	var r requisition
	b.call(http.MethodPost, "requisitions").JSON(map[string]any{"siteId": b.site, "fromLocationId": b.loc, "toLocationId": line, "neededOn": "2026-03-05",
		"lines": []any{map[string]any{"itemId": it.ID, "quantity": "30", "unit": "lb"}, map[string]any{"itemId": limes.ID, "quantity": "25", "unit": "lb"}}}).
		Do().Expect(http.StatusCreated).Decode(&r)
	b.call(http.MethodPost, "requisitions/"+r.ID.String()+"/to-po").Do().ExpectError(http.StatusConflict, "Requisition is draft")
	b.reqStep(r, "submit", http.StatusOK)
	b.reqStep(r, "approve", http.StatusOK)
	var out struct {
		Requisition    requisition `json:"requisition"`
		PurchaseOrders []struct {
			ID            uuid.UUID  `json:"id"`
			VendorID      uuid.UUID  `json:"vendorId"`
			Status        string     `json:"status"`
			RequisitionID *uuid.UUID `json:"requisitionId"`
			Lines         []poLine   `json:"lines"`
		} `json:"purchaseOrders"`
	}
	b.call(http.MethodPost, "requisitions/"+r.ID.String()+"/to-po").Do().Expect(http.StatusOK).Decode(&out)
	if len(out.PurchaseOrders) != 2 || len(out.Requisition.PurchaseOrderIDs) != 2 {
		t.Fatalf("to-po = %+v", out)
	}
	packs := map[uuid.UUID]string{}
	for _, p := range out.PurchaseOrders {
		if p.Status != "draft" || p.RequisitionID == nil || *p.RequisitionID != r.ID {
			t.Fatalf("po = %+v", p)
		}
		packs[p.VendorID] = p.Lines[0].Packs
	}
	// 30 lb of 28.75-lb cases: 2; 25 lb of 10-lb packs: 3.
	if packs[v.ID] != "2" || packs[other.ID] != "3" {
		t.Fatalf("packs = %v", packs)
	}
	b.call(http.MethodPost, "requisitions/"+r.ID.String()+"/to-po").Do().ExpectError(http.StatusConflict, "Requisition already has purchase orders")
	// An item without a preferred vendor item: 400, nothing drafted.
	kiwi := b.item("Kiwi", "KIW")
	r3 := b.requisition(kiwi, b.loc, line, "1", "lb")
	b.reqStep(r3, "submit", http.StatusOK)
	b.reqStep(r3, "approve", http.StatusOK)
	b.call(http.MethodPost, "requisitions/"+r3.ID.String()+"/to-po").Do().Expect(http.StatusBadRequest)
	if n := b.count(`SELECT count(*) FROM purchase_orders WHERE org_id = $1`, b.org); n != 2 {
		t.Fatalf("orders = %d", n)
	}
}
