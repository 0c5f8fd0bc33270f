package httpapi_test

import (
	"net/http"

	"github.com/google/uuid"
)

// vendor creates a vendor and returns its id.
func (w *walker) vendor() string {
	w.env.T.Helper()
	return w.create("vendors", map[string]any{"name": "Walk vendor " + uuid.NewString()[:8]})
}

// vendorItem creates a vendor selling a new item by 4 each a pack, and returns both ids.
func (w *walker) vendorItem() (vendor, vendorItem string) {
	w.env.T.Helper()
	vendor = w.vendor()
	item := w.create("inventory-items", w.itemBody())
	return vendor, w.create("vendors/"+vendor+"/items", map[string]any{"itemId": item, "sku": "W-1", "packSize": "4", "packUnit": "each", "priceCents": 500})
}

// purchaseOrder drafts (and, if submitted, submits) a purchase order at site A; returns its id.
func (w *walker) purchaseOrder(submitted bool) string {
	w.env.T.Helper()
	vendor, vi := w.vendorItem()
	id := w.create("purchase-orders", map[string]any{"vendorId": vendor, "siteId": w.siteA, "lines": []map[string]any{{"vendorItemId": vi, "packs": "2"}}})
	if submitted {
		w.ownerCall(http.MethodPost, "purchase-orders/"+id+"/submit").Do().Expect(http.StatusOK)
	}
	return id
}

func poFixture(id string) walkCall {
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

// requisition creates a requisition at site A moving 1 lb of stocked, preferred-vendor-bought
// lemons, takes it through steps, and returns its id.
func (w *walker) requisition(steps ...string) string {
	w.env.T.Helper()
	item, from := w.stock()
	vendor := w.vendor()
	w.create("vendors/"+vendor+"/items", map[string]any{"itemId": item, "sku": "W-1", "packSize": "4", "packUnit": "each", "priceCents": 500, "preferred": true})
	id := w.create("requisitions", map[string]any{"siteId": w.siteA, "fromLocationId": from, "toLocationId": w.location(),
		"lines": []map[string]any{{"itemId": item, "quantity": "1", "unit": "lb"}}})
	for _, s := range steps {
		w.ownerCall(http.MethodPost, "requisitions/"+id+"/"+s).Do().Expect(http.StatusOK)
	}
	return id
}

func reqFixture(id string) walkCall {
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

// orderList generates an order list at site A for an item below par bought through a
// preferred vendor item, and returns its id and its line's.
func (w *walker) orderList() (id, line string) {
	w.env.T.Helper()
	w.requisition()
	var out struct {
		ID    string `json:"id"`
		Lines []struct {
			ID      string `json:"id"`
			Include bool   `json:"include"`
		} `json:"lines"`
	}
	w.ownerCall(http.MethodPost, "order-lists/generate").JSON(map[string]any{"siteId": w.siteA, "from": "2026-03-02", "to": "2026-03-08", "basis": "par"}).
		Do().Expect(http.StatusCreated).Decode(&out)
	for _, l := range out.Lines {
		if l.Include {
			return out.ID, l.ID
		}
	}
	w.env.T.Fatalf("order list %s without an included line", out.ID)
	return "", ""
}

func listFixture(id string) walkCall {
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}
