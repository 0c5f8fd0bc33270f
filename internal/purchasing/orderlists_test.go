package purchasing_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
)

type orderListLine struct {
	ID             uuid.UUID  `json:"id"`
	ItemID         uuid.UUID  `json:"itemId"`
	Needed         string     `json:"needed"`
	OnHand         string     `json:"onHand"`
	Par            string     `json:"par"`
	OnOrder        string     `json:"onOrder"`
	Quantity       string     `json:"quantity"`
	VendorItemID   *uuid.UUID `json:"vendorItemId"`
	VendorID       *uuid.UUID `json:"vendorId"`
	Packs          string     `json:"packs"`
	UnitCostCents  int64      `json:"unitCostCents"`
	LineTotalCents int64      `json:"lineTotalCents"`
	Include        bool       `json:"include"`
}

type orderList struct {
	ID               uuid.UUID       `json:"id"`
	Status           string          `json:"status"`
	Lines            []orderListLine `json:"lines"`
	TotalCents       int64           `json:"totalCents"`
	PurchaseOrderIDs []uuid.UUID     `json:"purchaseOrderIds"`
}

func TestOrderListsParBasis(t *testing.T) {
	b := newBuyer(t)
	par := func(p string) map[string]any {
		return map[string]any{"parLevels": []map[string]any{{"siteId": b.site, "par": p, "reorderPoint": "0"}}}
	}
	lemons, limes, kiwi := b.item("Lemons", "LEM", par("100")), b.item("Limes", "LIM", par("20")), b.item("Kiwi", "KIW", par("3"))
	v1, v2 := b.vendor("Freshline"), b.vendor("Sysco")
	lvi := b.vendorItem(v1, lemons, "FL-LEM", 4250, true)
	alt := b.vendorItem(v2, lemons, "SY-LEM", 4000, false)
	var livi vendorItem
	b.call(http.MethodPost, "vendors/"+v2.ID.String()+"/items").JSON(map[string]any{"itemId": limes.ID, "sku": "SY-LIM", "packSize": "10", "packUnit": "lb",
		"priceCents": 1500, "preferred": true}).Do().Expect(http.StatusCreated).Decode(&livi)
	// 1 case of lemons received at 5750 (avg 200 per lb): on hand 28.75.
	p := b.submit(b.createPO(v1, map[string]any{"vendorItemId": lvi.ID, "packs": "1"}))
	b.receive(p, map[string]any{"lines": []any{map[string]any{"lineId": p.Lines[0].ID, "packs": "1", "locationId": b.loc, "priceCents": 5750}}}).Expect(http.StatusOK)

	gen := map[string]any{"siteId": b.site, "from": "2026-03-02", "to": "2026-03-08", "basis": "par", "splitByVendor": true}
	var ol orderList
	b.call(http.MethodPost, "order-lists/generate").JSON(gen).Do().Expect(http.StatusCreated).Decode(&ol)
	if ol.Status != "draft" || len(ol.Lines) != 3 {
		t.Fatalf("list = %+v", ol)
	}
	// By vendor: Freshline (lemons), Sysco (limes), then kiwi without a vendor.
	lem, lim, kiw := ol.Lines[0], ol.Lines[1], ol.Lines[2]
	if lem.ItemID != lemons.ID || lem.Needed != "71.25" || lem.OnHand != "28.75" || lem.Par != "100" || lem.Packs != "3" || lem.UnitCostCents != 5750 || lem.LineTotalCents != 17250 {
		t.Fatalf("lemons = %+v", lem)
	}
	// Limes never received: priced at the vendor's 1500 a 10-lb pack; 20 lb → 2 packs.
	if lim.ItemID != limes.ID || lim.Packs != "2" || lim.UnitCostCents != 1500 || lim.LineTotalCents != 3000 || !lim.Include {
		t.Fatalf("limes = %+v", lim)
	}
	if kiw.ItemID != kiwi.ID || kiw.Include || kiw.VendorItemID != nil || kiw.Packs != "0" {
		t.Fatalf("kiwi = %+v", kiw)
	}
	if ol.TotalCents != 20250 {
		t.Fatalf("total = %d", ol.TotalCents)
	}
	path := "order-lists/" + ol.ID.String()
	// PATCH reprices: lemons through Sysco (avg still 200/lb → 5750 a case), 30 lb → 2 cases.
	b.call(http.MethodPatch, path+"/lines/"+lem.ID.String()).JSON(map[string]any{"quantity": "30", "vendorItemId": alt.ID}).Do().Expect(http.StatusOK).Decode(&ol)
	if l := ol.Lines[0]; l.Packs != "2" || l.LineTotalCents != 11500 || *l.VendorID != v2.ID || ol.TotalCents != 14500 {
		t.Fatalf("patched = %+v total %d", l, ol.TotalCents)
	}
	b.call(http.MethodPatch, path+"/lines/"+lem.ID.String()).JSON(map[string]any{"vendorItemId": livi.ID}).Do().Expect(http.StatusBadRequest)
	b.call(http.MethodPatch, path+"/lines/"+kiw.ID.String()).JSON(map[string]any{"include": true}).Do().Expect(http.StatusBadRequest)
	b.call(http.MethodPatch, path+"/lines/"+uuid.NewString()).JSON(map[string]any{"include": true}).Do().Expect(http.StatusNotFound)
	b.call(http.MethodPatch, path+"/lines/"+lim.ID.String()).JSON(map[string]any{"include": false}).Do().Expect(http.StatusOK).Decode(&ol)
	if ol.TotalCents != 11500 {
		t.Fatalf("total without limes = %d", ol.TotalCents)
	}
	b.call(http.MethodPatch, path+"/lines/"+lim.ID.String()).JSON(map[string]any{"include": true}).Do().Expect(http.StatusOK)

	// Export.
	res := b.call(http.MethodGet, path+"/export").Do().Expect(http.StatusOK)
	if cd := res.Header.Get("Content-Disposition"); cd != `attachment; filename="order-list-2026-03-02-to-2026-03-08.csv"` {
		t.Errorf("Content-Disposition %q", cd)
	}
	csv := string(res.Body)
	if !strings.HasPrefix(csv, "vendor,sku,description,packs,pack_unit,price,line_total\r\n") || !strings.Contains(csv, "Sysco,SY-LEM,,2,case,57.50,115.00\r\n") ||
		!strings.Contains(csv, "Sysco,SY-LIM,,2,lb,15.00,30.00\r\n") || strings.Contains(csv, "KIW") {
		t.Fatalf("csv = %q", csv)
	}

	// Ordered: one purchase order per vendor (both lines at Sysco → one), read-only after.
	var ordered struct {
		OrderList      orderList `json:"orderList"`
		PurchaseOrders []po      `json:"purchaseOrders"`
	}
	b.call(http.MethodPost, path+"/status").JSON(map[string]any{"status": "ordered"}).Do().Expect(http.StatusOK).Decode(&ordered)
	if ordered.OrderList.Status != "ordered" || len(ordered.PurchaseOrders) != 1 || len(ordered.PurchaseOrders[0].Lines) != 2 ||
		ordered.PurchaseOrders[0].Status != "draft" || len(ordered.OrderList.PurchaseOrderIDs) != 1 {
		t.Fatalf("ordered = %+v", ordered)
	}
	b.call(http.MethodPost, path+"/status").JSON(map[string]any{"status": "ordered"}).Do().Expect(http.StatusConflict)
	b.call(http.MethodPatch, path+"/lines/"+lim.ID.String()).JSON(map[string]any{"include": false}).Do().Expect(http.StatusConflict)
	var got orderList
	b.call(http.MethodGet, path).Do().Expect(http.StatusOK).Decode(&got)
	if got.Status != "ordered" {
		t.Fatal(got.Status)
	}
	var lists []orderList
	b.call(http.MethodGet, "order-lists").Do().Expect(http.StatusOK).Decode(&lists)
	if len(lists) != 1 {
		t.Fatalf("lists = %d", len(lists))
	}

	// Bad input: a forecast basis over more than 93 days; to before from.
	gen["basis"], gen["to"] = "forecast", "2026-06-30"
	b.call(http.MethodPost, "order-lists/generate").JSON(gen).Do().Expect(http.StatusBadRequest)
	gen["basis"], gen["from"], gen["to"] = "par", "2026-03-09", "2026-03-08"
	b.call(http.MethodPost, "order-lists/generate").JSON(gen).Do().Expect(http.StatusBadRequest)

	// Free plan: 402 naming the feature, nothing written.
	b.env.SetPlan(b.org, "free", nil)
	gen["from"] = "2026-03-02"
	e := b.call(http.MethodPost, "order-lists/generate").JSON(gen).Do().Expect(http.StatusPaymentRequired).Err()
	if e.Feature != "order_lists" {
		t.Fatalf("402 = %+v", e)
	}
	b.call(http.MethodGet, path+"/export").Do().Expect(http.StatusPaymentRequired)
	if n := b.count(`SELECT count(*) FROM order_lists WHERE org_id = $1`, b.org); n != 1 {
		t.Fatalf("lists = %d", n)
	}
}

func TestOrderingAListInParallelDraftsOnce(t *testing.T) {
	b := newBuyer(t)
	lemons := b.item("Lemons", "LEM", map[string]any{"parLevels": []map[string]any{{"siteId": b.site, "par": "100", "reorderPoint": "0"}}})
	b.vendorItem(b.vendor("Freshline"), lemons, "FL-LEM", 4250, true)
	var ol orderList
	b.call(http.MethodPost, "order-lists/generate").JSON(map[string]any{"siteId": b.site, "from": "2026-03-02", "to": "2026-03-08", "basis": "par"}).
		Do().Expect(http.StatusCreated).Decode(&ol)
	const n = 6
	codes := make(chan int, n)
	for range n {
		go func() {
			codes <- b.call(http.MethodPost, "order-lists/"+ol.ID.String()+"/status").JSON(map[string]any{"status": "ordered"}).Do().Status
		}()
	}
	won := 0
	for range n {
		switch c := <-codes; c {
		case http.StatusOK:
			won++
		case http.StatusConflict:
		default:
			t.Errorf("status %d", c)
		}
	}
	if won != 1 || b.count(`SELECT count(*) FROM purchase_orders WHERE org_id = $1`, b.org) != 1 {
		t.Fatalf("%d winners", won)
	}
}
