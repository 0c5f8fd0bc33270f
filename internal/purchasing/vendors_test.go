package purchasing_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestVendorsCreateListUpdate(t *testing.T) {
	b := newBuyer(t)
	v := b.vendor("Freshline Produce")
	if strings.Join(v.OrderDays, ",") != "mon,thu" || !v.Active {
		t.Fatalf("vendor = %+v", v)
	}
	b.call(http.MethodPost, "vendors").JSON(map[string]any{"name": "freshline produce"}).Do().Expect(http.StatusConflict)
	b.call(http.MethodPost, "vendors").JSON(map[string]any{"name": "  "}).Do().Expect(http.StatusBadRequest)
	b.call(http.MethodPost, "vendors").JSON(map[string]any{"name": "X", "orderDays": []string{"funday"}}).Do().Expect(http.StatusBadRequest)
	var up vendor
	b.call(http.MethodPut, "vendors/"+v.ID.String()).JSON(map[string]any{"name": "Freshline", "active": false,
		"contact": map[string]any{"name": "Dana", "email": "dana@freshline.example"}}).Do().Expect(http.StatusOK).Decode(&up)
	if up.Name != "Freshline" || up.Active {
		t.Fatalf("updated = %+v", up)
	}
	b.call(http.MethodPut, "vendors/"+uuid.NewString()).JSON(map[string]any{"name": "Nope"}).Do().Expect(http.StatusNotFound)
	b.vendor("Acme Dry Goods")
	var list []vendor
	res := b.call(http.MethodGet, "vendors?limit=1").Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 1 || list[0].Name != "Acme Dry Goods" || res.Header.Get("Link") == "" {
		t.Fatalf("page 1 = %+v link %q", list, res.Header.Get("Link"))
	}
	b.call(http.MethodGet, "vendors?active=false").Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 1 || list[0].ID != v.ID {
		t.Fatalf("inactive = %+v", list)
	}
	// Another organization's vendor is not found.
	other, org2 := b.env.NewOwner("Elsewhere")
	b.env.Call(http.MethodPut, "orgs/"+org2.String()+"/vendors/"+v.ID.String()).Token(other.AccessToken).
		JSON(map[string]any{"name": "Stolen"}).Do().Expect(http.StatusNotFound)
	// Audit rows of every write.
	if n := b.count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND action IN ('createVendor', 'updateVendor')`, b.org); n != 3 {
		t.Fatalf("audit rows = %d, want 3", n)
	}
}

func TestVendorItemsOnePreferredPerItem(t *testing.T) {
	b := newBuyer(t)
	lemons := b.item("Lemons", "LEM")
	v1, v2 := b.vendor("Freshline"), b.vendor("Sysco")
	a := b.vendorItem(v1, lemons, "FL-LEM", 4250, true)
	c := b.vendorItem(v2, lemons, "SY-LEM", 4100, true)
	if !a.Preferred || !c.Preferred {
		t.Fatal("created items should answer preferred")
	}
	if got := b.vendorItems(v1); len(got) != 1 || got[0].Preferred {
		t.Fatalf("the first vendor's item should have lost its preferred flag: %+v", got)
	}
	if n := b.count(`SELECT count(*) FROM vendor_items WHERE org_id = $1 AND preferred`, b.org); n != 1 {
		t.Fatalf("preferred = %d", n)
	}
	// Same SKU at one vendor: 409; a unit the item cannot convert: 400; unknown item: 400.
	b.call(http.MethodPost, "vendors/"+v1.ID.String()+"/items").JSON(map[string]any{"itemId": lemons.ID, "sku": "fl-lem", "packSize": "1", "packUnit": "case", "priceCents": 1}).
		Do().Expect(http.StatusConflict)
	e := b.call(http.MethodPost, "vendors/"+v1.ID.String()+"/items").JSON(map[string]any{"itemId": lemons.ID, "sku": "X", "packSize": "1", "packUnit": "gal", "priceCents": 1}).
		Do().Expect(http.StatusBadRequest).Err()
	if len(e.Details) != 1 || e.Details[0].Field != "packUnit" {
		t.Fatalf("error = %+v", e)
	}
	b.call(http.MethodPost, "vendors/"+v1.ID.String()+"/items").JSON(map[string]any{"itemId": uuid.New(), "sku": "Y", "packSize": "1", "packUnit": "lb", "priceCents": 1}).
		Do().Expect(http.StatusBadRequest)
	b.call(http.MethodPost, "vendors/"+v1.ID.String()+"/items").JSON(map[string]any{"itemId": lemons.ID, "sku": "Z", "packSize": "0", "packUnit": "lb", "priceCents": 1}).
		Do().Expect(http.StatusBadRequest)
	b.call(http.MethodGet, "vendors/"+uuid.NewString()+"/items").Do().Expect(http.StatusNotFound)
	// Viewers read, do not write.
	viewer := b.env.Member(b.org, "viewer")
	b.as(viewer, http.MethodGet, "vendors/"+v1.ID.String()+"/items").Do().Expect(http.StatusOK)
	b.as(viewer, http.MethodPost, "vendors").JSON(map[string]any{"name": "Nope"}).Do().Expect(http.StatusForbidden)
}

const guide = "\xef\xbb\xbfPrice,SKU,Description,Pack,Pack_Unit,Item\r\n" +
	"\"$1,234.50\",FL-LEM,\"Lemons, fancy, 115 count\",1,case,lemons\r\n" +
	"42.5,FL-LIM,Limes,2,case,LIM-SKU\r\n" +
	"10,FL-KIWI,Kiwi,1,case,Kiwi fruit\r\n" +
	"abc,FL-BAD,Bad price,1,case,Lemons\r\n" +
	"\r\n" +
	"3,FL-GAL,Gallons,1,gal,Lemons\r\n"

func TestImportGuide(t *testing.T) {
	b := newBuyer(t)
	lemons, limes := b.item("Lemons", "LEM"), b.item("Limes", "LIM-SKU")
	v := b.vendor("Freshline")
	var r importResult
	b.importCSV(v, guide).Expect(http.StatusOK).Decode(&r)
	if r.Rows != 5 || r.Created != 2 || r.Unmatched != 1 || r.Errors != 2 || r.Updated != 0 {
		t.Fatalf("result = %+v", r)
	}
	want := []struct {
		line    int
		outcome string
	}{{2, "created"}, {3, "created"}, {4, "unmatched"}, {5, "error"}, {7, "error"}}
	for i, w := range want {
		if r.Results[i].Line != w.line || r.Results[i].Outcome != w.outcome {
			t.Errorf("row %d = %+v, want %+v", i, r.Results[i], w)
		}
	}
	if *r.Results[0].ItemID != lemons.ID || *r.Results[1].ItemID != limes.ID {
		t.Fatalf("matching: %+v", r.Results[:2])
	}
	items := b.vendorItems(v)
	if len(items) != 2 || items[0].SKU != "FL-LEM" || items[0].PriceCents != 123450 || items[1].PackSize != "2" || items[1].PriceCents != 4250 {
		t.Fatalf("vendor items = %+v", items)
	}
	// Re-import: nothing changes.
	before := b.count(`SELECT count(*) FROM audit_log WHERE org_id = $1`, b.org)
	b.importCSV(v, guide).Expect(http.StatusOK).Decode(&r)
	if r.Created != 0 || r.Updated != 0 || r.Unchanged != 2 {
		t.Fatalf("re-import = %+v", r)
	}
	if after := b.count(`SELECT count(*) FROM audit_log WHERE org_id = $1`, b.org); after != before {
		t.Fatalf("re-import wrote %d audit rows", after-before)
	}
	// A new price updates, keyed by SKU (no item column: the vendor item's item); multipart works.
	ct, body := multipartCSV(t, []byte("sku,description,pack,pack_unit,price\nfl-lem,\"Lemons, fancy, 115 count\",1,case,$1300\n"))
	b.call(http.MethodPost, "vendors/"+v.ID.String()+"/import-guide").Raw(ct, body).Do().Expect(http.StatusOK).Decode(&r)
	if r.Updated != 1 || r.Results[0].VendorItemID == nil || *r.Results[0].VendorItemID != items[0].ID {
		t.Fatalf("update = %+v", r)
	}
	if got := b.vendorItems(v); got[0].PriceCents != 130000 {
		t.Fatalf("price = %d", got[0].PriceCents)
	}
}

func TestImportGuideStructuralErrorsWriteNothing(t *testing.T) {
	b := newBuyer(t)
	b.item("Lemons", "LEM")
	v := b.vendor("Freshline")
	for name, csv := range map[string]string{
		"missing column":    "sku,description,pack,price\nA,B,1,2\n",
		"header only blank": "\n",
		"bare quote":        "sku,description,pack,pack_unit,price\nA,\"B,1,case,2\nC,D\"x,1,case,2\n",
		"binary":            "sku\x00,description\n",
		"duplicate col":     "sku,SKU,description,pack,pack_unit,price\n",
	} {
		e := b.importCSV(v, csv).Expect(http.StatusBadRequest).Err()
		if len(e.Details) == 0 || e.Details[0].Field != "file" {
			t.Errorf("%s: %+v", name, e)
		}
	}
	var rows strings.Builder
	rows.WriteString("sku,description,pack,pack_unit,price,item\n")
	for i := range 20001 {
		rows.WriteString("S" + strings.Repeat("x", 0) + itoa(i) + ",d,1,case,1,Lemons\n")
	}
	b.importCSV(v, rows.String()).ExpectError(http.StatusBadRequest, "file: has over 20000 rows")
	big := "sku,description,pack,pack_unit,price\n" + strings.Repeat("a", 5<<20)
	b.importCSV(v, big).ExpectError(http.StatusBadRequest, "file: is over 5 MB")
	if n := b.count(`SELECT count(*) FROM vendor_items WHERE org_id = $1`, b.org); n != 0 {
		t.Fatalf("vendor items written: %d", n)
	}
	b.call(http.MethodPost, "vendors/"+uuid.NewString()+"/import-guide").Raw("text/csv", []byte("sku,description,pack,pack_unit,price\n")).Do().Expect(http.StatusNotFound)
}

func itoa(i int) string {
	const d = "0123456789"
	if i == 0 {
		return "0"
	}
	var s []byte
	for ; i > 0; i /= 10 {
		s = append([]byte{d[i%10]}, s...)
	}
	return string(s)
}
