package purchasing_test

import (
	"encoding/csv"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

func namesField(e apitest.ErrorBody, field string) bool {
	return slices.ContainsFunc(e.Details, func(d struct {
		Field   string `json:"field"`
		Message string `json:"message"`
	}) bool {
		return d.Field == field
	})
}

// A price beyond the contract's bound is refused; an order whose total would pass the server's
// bound on money is refused rather than stored with a wrapped (negative) total.
func TestMoneyIsBounded(t *testing.T) {
	t.Parallel()
	b := newBuyer(t)
	lemons := b.item("Lemons", "LEM")
	v := b.vendor("Freshline")
	body := map[string]any{"itemId": lemons.ID, "sku": "FL-LEM", "packSize": "1", "packUnit": "case", "priceCents": int64(9223372036854775807)}
	e := b.call(http.MethodPost, "vendors/"+v.ID.String()+"/items").JSON(body).Do().ExpectError(http.StatusBadRequest, "")
	if !namesField(e, "priceCents") {
		t.Fatalf("400 = %+v", e)
	}
	body["priceCents"] = 100_000_001
	b.call(http.MethodPost, "vendors/"+v.ID.String()+"/items").JSON(body).Do().ExpectError(http.StatusBadRequest, "")
	if n := b.count(`SELECT count(*) FROM vendor_items WHERE org_id = $1`, b.org); n != 0 {
		t.Fatalf("vendor items written: %d", n)
	}
	vi := b.vendorItem(v, lemons, "FL-LEM", 100_000_000, true) // a million dollars a case: the bound
	order := func(packs string) *apitest.Response {
		return b.call(http.MethodPost, "purchase-orders").JSON(map[string]any{"vendorId": v.ID, "siteId": b.site, "deliverOn": "2026-03-04",
			"lines": []map[string]any{{"vendorItemId": vi.ID, "packs": packs}, {"vendorItemId": vi.ID, "packs": packs}}}).Do()
	}
	for _, packs := range []string{"999999999999999", "5001"} { // a line past the bound; two lines summing past it
		e = order(packs).ExpectError(http.StatusBadRequest, "")
		if !namesField(e, "lines") {
			t.Fatalf("packs %s: 400 = %+v", packs, e)
		}
	}
	if n := b.count(`SELECT count(*) FROM purchase_orders WHERE org_id = $1`, b.org); n != 0 {
		t.Fatalf("orders written: %d", n)
	}
	var p po
	order("5000").Expect(http.StatusCreated).Decode(&p)
	if p.TotalCents != 1_000_000_000_000 {
		t.Fatalf("total = %d", p.TotalCents)
	}
	// A guide's price past the bound is that row's error, not a wrapped price.
	var r importResult
	b.importCSV(v, "sku,description,pack,pack_unit,price\nFL-LEM,Lemons,1,case,92233720368547758.07\n").Expect(http.StatusOK).Decode(&r)
	if r.Errors != 1 || r.Results[0].Outcome != "error" {
		t.Fatalf("import = %+v", r)
	}
	if got := b.vendorItems(v); len(got) != 1 || got[0].PriceCents != 100_000_000 {
		t.Fatalf("vendor items = %+v", got)
	}
}

// Every cell of the order list's CSV that a spreadsheet would read as a formula is written as
// text: vendor names, skus (also when they arrive through a guide), descriptions, units.
func TestOrderListExportNeutralisesFormulas(t *testing.T) {
	t.Parallel()
	b := newBuyer(t)
	lemons := b.item("Lemons", "LEM", map[string]any{"parLevels": []map[string]any{{"siteId": b.site, "par": "10", "reorderPoint": "0"}}})
	limes := b.item("Limes", "LIM", map[string]any{"parLevels": []map[string]any{{"siteId": b.site, "par": "10", "reorderPoint": "0"}}})
	var v vendor
	b.call(http.MethodPost, "vendors").JSON(map[string]any{"name": `=HYPERLINK("http://evil.example","x")`}).Do().Expect(http.StatusCreated).Decode(&v)
	b.vendorItem(v, lemons, "=cmd|' /C calc'!A0", 4250, true)
	var r importResult
	b.importCSV(v, "sku,description,pack,pack_unit,price,item\n\"@SUM(1+1)*cmd|' /C calc'!A0\",\"+1-1\",1,case,15.00,LIM\n").Expect(http.StatusOK).Decode(&r)
	if r.Created != 1 {
		t.Fatalf("import = %+v", r)
	}
	// Stored as given: the JSON answers keep the sku.
	if vis := b.vendorItems(v); !slices.ContainsFunc(vis, func(vi vendorItem) bool { return vi.SKU == "@SUM(1+1)*cmd|' /C calc'!A0" }) {
		t.Fatalf("vendor items = %+v", vis)
	}
	// The imported item made the limes' preferred one, so the list buys it.
	if _, err := b.env.Pool.Exec(t.Context(), `UPDATE vendor_items SET preferred = true WHERE org_id = $1 AND item_id = $2`, b.org, limes.ID); err != nil {
		t.Fatal(err)
	}
	var ol orderList
	b.call(http.MethodPost, "order-lists/generate").JSON(map[string]any{"siteId": b.site, "from": "2026-03-02", "to": "2026-03-08", "basis": "par"}).
		Do().Expect(http.StatusCreated).Decode(&ol)
	res := b.call(http.MethodGet, "order-lists/"+ol.ID.String()+"/export").Do().Expect(http.StatusOK)
	rows, err := csv.NewReader(strings.NewReader(string(res.Body))).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("csv = %q (%v)", res.Body, err)
	}
	for _, row := range rows[1:] {
		for i, cell := range row {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Errorf("row %q: cell %d %q starts a formula", row, i, cell)
			}
		}
		if row[0] != `'=HYPERLINK("http://evil.example","x")` {
			t.Errorf("vendor = %q", row[0])
		}
	}
	if !slices.ContainsFunc(rows, func(r []string) bool { return r[1] == "'=cmd|' /C calc'!A0" }) ||
		!slices.ContainsFunc(rows, func(r []string) bool { return r[1] == "'@SUM(1+1)*cmd|' /C calc'!A0" && r[2] == "'+1-1" }) {
		t.Fatalf("csv = %q", res.Body)
	}
}
