package purchasing_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/google/uuid"
)

// setup: lemons (lb; case = 28.75 lb) sold by Freshline at 4250 a case.
func setupPO(t *testing.T) (*buyer, vendor, item, vendorItem) {
	b := newBuyer(t)
	it := b.item("Lemons", "LEM")
	v := b.vendor("Freshline")
	vi := b.vendorItem(v, it, "FL-LEM", 4250, true)
	return b, v, it, vi
}

func TestPurchaseOrderTransitions(t *testing.T) {
	b, v, _, vi := setupPO(t)
	p := b.createPO(v, map[string]any{"vendorItemId": vi.ID, "packs": "2"})
	if p.Status != "draft" || p.TotalCents != 8500 || p.Lines[0].LineTotalCents != 8500 || p.Lines[0].ReceivedPacks != "0" {
		t.Fatalf("draft = %+v", p)
	}
	path := "purchase-orders/" + p.ID.String()
	// A draft is not received nor closed.
	b.receive(p, map[string]any{"lines": []any{map[string]any{"lineId": p.Lines[0].ID, "packs": "1", "locationId": b.loc}}}).
		ExpectError(http.StatusConflict, "Purchase order is draft")
	b.call(http.MethodPost, path+"/close").Do().ExpectError(http.StatusConflict, "Purchase order is draft")
	p = b.submit(p)
	if p.Status != "submitted" {
		t.Fatal(p.Status)
	}
	b.call(http.MethodPost, path+"/submit").Do().ExpectError(http.StatusConflict, "Purchase order is submitted")
	var c po
	b.call(http.MethodPost, path+"/cancel").Do().Expect(http.StatusOK).Decode(&c)
	if c.Status != "cancelled" {
		t.Fatal(c.Status)
	}
	b.call(http.MethodPost, path+"/cancel").Do().ExpectError(http.StatusConflict, "Purchase order is cancelled")
	b.call(http.MethodPost, path+"/submit").Do().ExpectError(http.StatusConflict, "Purchase order is cancelled")

	// Draft → cancelled directly; submitted → partially_received → closed; closed refuses all.
	p2 := b.createPO(v, map[string]any{"vendorItemId": vi.ID, "packs": "4"})
	b.call(http.MethodPost, "purchase-orders/"+p2.ID.String()+"/cancel").Do().Expect(http.StatusOK)
	p3 := b.submit(b.createPO(v, map[string]any{"vendorItemId": vi.ID, "packs": "4"}))
	var r receipt
	b.receive(p3, map[string]any{"lines": []any{map[string]any{"lineId": p3.Lines[0].ID, "packs": "1", "locationId": b.loc}}}).Expect(http.StatusOK).Decode(&r)
	if r.PurchaseOrder.Status != "partially_received" {
		t.Fatal(r.PurchaseOrder.Status)
	}
	b.call(http.MethodPost, "purchase-orders/"+p3.ID.String()+"/cancel").Do().ExpectError(http.StatusConflict, "Purchase order is partially_received")
	b.call(http.MethodPost, "purchase-orders/"+p3.ID.String()+"/close").Do().Expect(http.StatusOK).Decode(&c)
	if c.Status != "closed" {
		t.Fatal(c.Status)
	}
	b.receive(p3, map[string]any{"lines": []any{map[string]any{"lineId": p3.Lines[0].ID, "packs": "1", "locationId": b.loc}}}).
		ExpectError(http.StatusConflict, "Purchase order is closed")
	// closeShort on a receipt.
	p4 := b.submit(b.createPO(v, map[string]any{"vendorItemId": vi.ID, "packs": "4"}))
	b.receive(p4, map[string]any{"closeShort": true, "lines": []any{map[string]any{"lineId": p4.Lines[0].ID, "packs": "3", "locationId": b.loc}}}).
		Expect(http.StatusOK).Decode(&r)
	if r.PurchaseOrder.Status != "closed" || r.PurchaseOrder.Lines[0].ReceivedPacks != "3" {
		t.Fatalf("close short = %+v", r.PurchaseOrder)
	}
	// List and filters.
	var list []po
	b.call(http.MethodGet, "purchase-orders?status=closed").Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 2 {
		t.Fatalf("closed = %d", len(list))
	}
	res := b.call(http.MethodGet, "purchase-orders?limit=2").Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 2 || list[0].ID != p4.ID || res.Header.Get("Link") == "" {
		t.Fatalf("page = %+v", list)
	}
	b.call(http.MethodGet, "purchase-orders/"+uuid.NewString()).Do().Expect(http.StatusNotFound)
}

func TestPurchaseOrderBadInputWritesNothing(t *testing.T) {
	b, v, _, vi := setupPO(t)
	other := b.vendor("Sysco")
	limes := b.item("Limes", "LIM")
	ovi := b.vendorItem(other, limes, "SY-LIM", 100, false)
	inactive := b.item("Old", "OLD")
	ivi := b.vendorItem(v, inactive, "FL-OLD", 100, false)
	b.call(http.MethodPut, "inventory-items/"+inactive.ID.String()).JSON(map[string]any{"name": "Old", "category": "produce", "baseUnit": "lb",
		"units": []map[string]string{{"name": "case", "factor": "28.75"}}, "active": false}).Do().Expect(http.StatusOK)
	for name, c := range map[string]struct {
		line  map[string]any
		field string
	}{
		"unknown vendor item": {map[string]any{"vendorItemId": uuid.New(), "packs": "1"}, "lines.0.vendorItemId"},
		"another vendor's":    {map[string]any{"vendorItemId": ovi.ID, "packs": "1"}, "lines.0.vendorItemId"},
		"zero packs":          {map[string]any{"vendorItemId": vi.ID, "packs": "0"}, "lines.0.packs"},
		"inactive item":       {map[string]any{"vendorItemId": ivi.ID, "packs": "1"}, "lines.0.vendorItemId"},
	} {
		e := b.call(http.MethodPost, "purchase-orders").JSON(map[string]any{"vendorId": v.ID, "siteId": b.site, "lines": []any{c.line}}).
			Do().Expect(http.StatusBadRequest).Err()
		if len(e.Details) != 1 || e.Details[0].Field != c.field {
			t.Errorf("%s: %+v", name, e)
		}
	}
	b.call(http.MethodPost, "purchase-orders").JSON(map[string]any{"vendorId": v.ID, "siteId": b.site, "lines": []any{map[string]any{"vendorItemId": vi.ID, "packs": "-1"}}}).
		Do().Expect(http.StatusBadRequest)
	if n := b.count(`SELECT count(*) FROM purchase_orders WHERE org_id = $1`, b.org); n != 0 {
		t.Fatalf("orders written: %d", n)
	}
}

func TestReceivingPostsLedgerLotsAndAverageCost(t *testing.T) {
	b, v, it, vi := setupPO(t)
	p := b.submit(b.createPO(v, map[string]any{"vendorItemId": vi.ID, "packs": "2"}))
	line := p.Lines[0]
	// One case at the ordered price into a lot; one at an invoice price, into a lot of its own.
	var r receipt
	b.receive(p, map[string]any{"lines": []any{
		map[string]any{"lineId": line.ID, "packs": "1", "locationId": b.loc, "lot": map[string]any{"code": "L1", "expiresOn": "2030-01-01"}},
	}}).Expect(http.StatusOK).Decode(&r)
	if len(r.Txns) != 1 || r.Txns[0].Kind != "receipt" || r.Txns[0].Quantity != "28.75" || r.Txns[0].LotID == nil ||
		r.Txns[0].Source.Type != "purchase_order_receipt" || r.Txns[0].Source.ID != r.ID || r.Txns[0].UnitCost != "147.826086956522" {
		t.Fatalf("txns = %+v", r.Txns)
	}
	b.receive(p, map[string]any{"lines": []any{
		map[string]any{"lineId": line.ID, "packs": "1", "locationId": b.loc, "priceCents": 5750},
	}}).Expect(http.StatusOK).Decode(&r)
	got := r.PurchaseOrder
	if got.Status != "received" || got.Lines[0].ReceivedPacks != "2" || got.Lines[0].InvoicePriceCents == nil || *got.Lines[0].InvoicePriceCents != 5750 {
		t.Fatalf("order = %+v", got)
	}
	// Average of 4250 and 5750 a case: 5000 a case = 173.913043478261 per lb.
	if r.Txns[0].AvgCostAfter != "173.913043478261" || r.Txns[0].LotID == nil {
		t.Fatalf("avg = %+v", r.Txns[0])
	}
	if n := b.count(`SELECT count(*) FROM lots WHERE org_id = $1 AND id = $2 AND code = 'R20260302-1' AND expires_on IS NULL`, b.org, *r.Txns[0].LotID); n != 1 {
		t.Fatal("generated lot R20260302-1 without expiry expected")
	}
	var stock []struct {
		Quantity string `json:"quantity"`
	}
	b.call(http.MethodGet, "stock?itemId="+it.ID.String()).Do().Expect(http.StatusOK).Decode(&stock)
	if len(stock) != 1 || stock[0].Quantity != "57.5" {
		t.Fatalf("stock = %+v", stock)
	}
	// An item without shelf life and no expiry: a lot with no expiry.
	p2 := b.submit(b.createPO(v, map[string]any{"vendorItemId": vi.ID, "packs": "1"}))
	b.receive(p2, map[string]any{"lines": []any{map[string]any{"lineId": p2.Lines[0].ID, "packs": "1", "locationId": b.loc, "lot": map[string]any{"code": "L2"}}}}).
		Expect(http.StatusOK)
	if n := b.count(`SELECT count(*) FROM lots WHERE org_id = $1 AND code = 'L2' AND expires_on IS NULL`, b.org); n != 1 {
		t.Fatal("lot L2 without expiry expected")
	}
	// A location of another site: 400, nothing written.
	site2 := b.env.Site(b.owner.AccessToken, b.org, "Annex")
	loc2 := b.location(site2, "Annex cooler")
	p3 := b.submit(b.createPO(v, map[string]any{"vendorItemId": vi.ID, "packs": "1"}))
	before := b.count(`SELECT count(*) FROM stock_txns WHERE org_id = $1`, b.org)
	b.receive(p3, map[string]any{"lines": []any{map[string]any{"lineId": p3.Lines[0].ID, "packs": "1", "locationId": loc2}}}).Expect(http.StatusBadRequest)
	b.receive(p3, map[string]any{"lines": []any{map[string]any{"lineId": p.Lines[0].ID, "packs": "1", "locationId": b.loc}}}).Expect(http.StatusBadRequest)
	if after := b.count(`SELECT count(*) FROM stock_txns WHERE org_id = $1`, b.org); after != before {
		t.Fatal("a refused receipt wrote ledger rows")
	}
}

func TestOverReceiptAndIdempotentReceive(t *testing.T) {
	b, v, _, vi := setupPO(t)
	p := b.submit(b.createPO(v, map[string]any{"vendorItemId": vi.ID, "packs": "10"}))
	l := p.Lines[0].ID
	// 11 of 10 is exactly 10 % over: accepted; anything beyond is 409.
	b.receive(p, map[string]any{"lines": []any{map[string]any{"lineId": l, "packs": "11.5", "locationId": b.loc}}}).Expect(http.StatusConflict)
	body := map[string]any{"lines": []any{map[string]any{"lineId": l, "packs": "6", "locationId": b.loc}}}
	key := uuid.NewString()
	var first, again receipt
	b.call(http.MethodPost, "purchase-orders/"+p.ID.String()+"/receive").Header("Idempotency-Key", key).JSON(body).Do().Expect(http.StatusOK).Decode(&first)
	res := b.call(http.MethodPost, "purchase-orders/"+p.ID.String()+"/receive").Header("Idempotency-Key", key).JSON(body).Do().Expect(http.StatusOK).Decode(&again)
	if again.ID != first.ID || res.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay = %v %q", again.ID, res.Header.Get("Idempotent-Replayed"))
	}
	b.call(http.MethodPost, "purchase-orders/"+p.ID.String()+"/receive").Header("Idempotency-Key", key).
		JSON(map[string]any{"lines": []any{map[string]any{"lineId": l, "packs": "1", "locationId": b.loc}}}).Do().Expect(http.StatusUnprocessableEntity)
	if n := b.count(`SELECT count(*) FROM stock_txns WHERE org_id = $1`, b.org); n != 1 {
		t.Fatalf("ledger rows = %d, want 1", n)
	}
	b.receive(p, map[string]any{"lines": []any{map[string]any{"lineId": l, "packs": "5.5", "locationId": b.loc}}}).Expect(http.StatusConflict)
	var r receipt
	b.receive(p, map[string]any{"lines": []any{map[string]any{"lineId": l, "packs": "5", "locationId": b.loc}}}).Expect(http.StatusOK).Decode(&r)
	if r.PurchaseOrder.Status != "received" || r.PurchaseOrder.Lines[0].ReceivedPacks != "11" {
		t.Fatalf("order = %+v", r.PurchaseOrder)
	}
}

func TestParallelReceivesNeverOverReceive(t *testing.T) {
	b, v, _, vi := setupPO(t)
	p := b.submit(b.createPO(v, map[string]any{"vendorItemId": vi.ID, "packs": "10"}))
	const n = 8
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := b.receive(p, map[string]any{"lines": []any{map[string]any{"lineId": p.Lines[0].ID, "packs": "3", "locationId": b.loc}}})
			codes[i] = res.Status
		}()
	}
	wg.Wait()
	ok := 0
	for _, c := range codes {
		switch c {
		case http.StatusOK:
			ok++
		case http.StatusConflict:
		default:
			t.Fatalf("status %d", c)
		}
	}
	// 3 × 3 = 9 ≤ 11, a fourth would be 12 > 11.
	if ok != 3 {
		t.Fatalf("%d receipts won, want 3", ok)
	}
	if got := b.count(`SELECT count(*) FROM stock_txns WHERE org_id = $1`, b.org); got != 3 {
		t.Fatalf("ledger rows = %d", got)
	}
}

func TestPurchaseOrderPermissionsAndSiteScope(t *testing.T) {
	b, v, _, vi := setupPO(t)
	p := b.submit(b.createPO(v, map[string]any{"vendorItemId": vi.ID, "packs": "1"}))
	site2 := b.env.Site(b.owner.AccessToken, b.org, "Annex")
	staff := b.env.Member(b.org, "inspector")
	b.as(staff, http.MethodGet, "purchase-orders/"+p.ID.String()).Do().Expect(http.StatusOK)
	b.as(staff, http.MethodPost, "purchase-orders/"+p.ID.String()+"/cancel").Do().Expect(http.StatusForbidden)
	scoped := b.env.Member(b.org, "manager", site2)
	b.as(scoped, http.MethodGet, "purchase-orders/"+p.ID.String()).Do().Expect(http.StatusNotFound)
	b.as(scoped, http.MethodPost, "purchase-orders/"+p.ID.String()+"/cancel").Do().Expect(http.StatusNotFound)
	var list []po
	b.as(scoped, http.MethodGet, "purchase-orders").Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 0 {
		t.Fatalf("scoped member sees %d orders", len(list))
	}
	b.as(scoped, http.MethodPost, "purchase-orders").JSON(map[string]any{"vendorId": v.ID, "siteId": b.site, "lines": []any{map[string]any{"vendorItemId": vi.ID, "packs": "1"}}}).
		Do().Expect(http.StatusNotFound)
	if n := b.count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND action IN ('createPurchaseOrder', 'submitPurchaseOrder') AND site_id = $2`, b.org, b.site); n != 2 {
		t.Fatalf("audit rows = %d", n)
	}
}

func TestOverReceiptToleranceIsAnOrganizationSetting(t *testing.T) {
	b, v, _, vi := setupPO(t)
	var s struct {
		OverReceiptPercent string `json:"overReceiptPercent"`
	}
	b.call(http.MethodGet, "supply-settings").Do().Expect(http.StatusOK).Decode(&s)
	if s.OverReceiptPercent != "10" {
		t.Fatalf("default = %q", s.OverReceiptPercent)
	}
	b.call(http.MethodPut, "supply-settings").JSON(map[string]any{"varianceFlagPercent": "10", "varianceFlagCents": 5000, "overReceiptPercent": "0"}).
		Do().Expect(http.StatusOK).Decode(&s)
	if s.OverReceiptPercent != "0" {
		t.Fatalf("set = %q", s.OverReceiptPercent)
	}
	// Left out of a change, it keeps its value.
	b.call(http.MethodPut, "supply-settings").JSON(map[string]any{"varianceFlagPercent": "5", "varianceFlagCents": 5000}).Do().Expect(http.StatusOK).Decode(&s)
	if s.OverReceiptPercent != "0" {
		t.Fatalf("kept = %q", s.OverReceiptPercent)
	}
	p := b.submit(b.createPO(v, map[string]any{"vendorItemId": vi.ID, "packs": "10"}))
	b.receive(p, map[string]any{"lines": []any{map[string]any{"lineId": p.Lines[0].ID, "packs": "10.5", "locationId": b.loc}}}).Expect(http.StatusConflict)
	b.receive(p, map[string]any{"lines": []any{map[string]any{"lineId": p.Lines[0].ID, "packs": "10", "locationId": b.loc}}}).Expect(http.StatusOK)
}

func TestReceiptLotsTopUpAndRefuseAnotherExpiry(t *testing.T) {
	b, v, _, vi := setupPO(t)
	p := b.submit(b.createPO(v, map[string]any{"vendorItemId": vi.ID, "packs": "3"}))
	l := p.Lines[0].ID
	var r receipt
	// Two lines into the same new lot in one receipt: one lot, topped up.
	b.receive(p, map[string]any{"lines": []any{
		map[string]any{"lineId": l, "packs": "1", "locationId": b.loc, "lot": map[string]any{"code": "T1", "expiresOn": "2030-05-01"}},
		map[string]any{"lineId": l, "packs": "1", "locationId": b.loc, "lot": map[string]any{"code": "T1"}},
	}}).Expect(http.StatusOK).Decode(&r)
	if len(r.Txns) != 2 || *r.Txns[0].LotID != *r.Txns[1].LotID {
		t.Fatalf("txns = %+v", r.Txns)
	}
	if n := b.count(`SELECT count(*) FROM lots WHERE org_id = $1 AND code = 'T1' AND expires_on = '2030-05-01'`, b.org); n != 1 {
		t.Fatalf("lots = %d", n)
	}
	e := b.receive(p, map[string]any{"lines": []any{map[string]any{"lineId": l, "packs": "1", "locationId": b.loc, "lot": map[string]any{"code": "T1", "expiresOn": "2030-06-01"}}}}).
		Expect(http.StatusBadRequest).Err()
	if e.Details[0].Field != "lines.0.lot.expiresOn" {
		t.Fatalf("error = %+v", e)
	}
	b.receive(p, map[string]any{"lines": []any{map[string]any{"lineId": l, "packs": "1", "locationId": b.loc, "lot": map[string]any{"code": "T0", "expiresOn": "2020-01-01"}}}}).
		Expect(http.StatusBadRequest)
}
