package purchasing_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// buyer is an organization with one site, a cooler there, and its owner.
type buyer struct {
	t     *testing.T
	env   *apitest.Env
	owner apitest.Session
	org   uuid.UUID
	site  uuid.UUID
	loc   uuid.UUID
}

func newBuyer(t *testing.T, opts ...apitest.Option) *buyer {
	env := apitest.New(t, opts...)
	owner, org := env.NewOwner("Harborview Kitchens")
	site := env.Site(owner.AccessToken, org, "Main Kitchen")
	b := &buyer{t: t, env: env, owner: owner, org: org, site: site}
	b.loc = b.location(site, "Walk-in")
	return b
}

func (b *buyer) call(method, path string) *apitest.Request {
	return b.env.Call(method, "orgs/"+b.org.String()+"/"+path).Token(b.owner.AccessToken)
}

func (b *buyer) as(s apitest.Session, method, path string) *apitest.Request {
	return b.env.Call(method, "orgs/"+b.org.String()+"/"+path).Token(s.AccessToken)
}

func (b *buyer) location(site uuid.UUID, name string) uuid.UUID {
	b.t.Helper()
	var l struct{ ID uuid.UUID }
	b.call(http.MethodPost, "storage-locations").JSON(map[string]any{"siteId": site, "name": name, "kind": "cooler"}).
		Do().Expect(http.StatusCreated).Decode(&l)
	return l.ID
}

type item struct {
	ID   uuid.UUID `json:"id"`
	Name string    `json:"name"`
}

// lemons: kept in lb, 1 each = 0.25 lb, 1 case = 28.75 lb.
func (b *buyer) item(name, sku string, extra ...map[string]any) item {
	b.t.Helper()
	body := map[string]any{"name": name, "category": "produce", "baseUnit": "lb",
		"units": []map[string]string{{"name": "each", "factor": "0.25"}, {"name": "case", "factor": "28.75"}}}
	if sku != "" {
		body["sku"] = sku
	}
	for _, e := range extra {
		for k, v := range e {
			body[k] = v
		}
	}
	var it item
	b.call(http.MethodPost, "inventory-items").JSON(body).Do().Expect(http.StatusCreated).Decode(&it)
	return it
}

type vendor struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	OrderDays []string  `json:"orderDays"`
	Active    bool      `json:"active"`
}

func (b *buyer) vendor(name string) vendor {
	b.t.Helper()
	var v vendor
	b.call(http.MethodPost, "vendors").JSON(map[string]any{"name": name, "leadTimeDays": 2, "orderDays": []string{"thu", "mon"}}).
		Do().Expect(http.StatusCreated).Decode(&v)
	return v
}

type vendorItem struct {
	ID         uuid.UUID `json:"id"`
	VendorID   uuid.UUID `json:"vendorId"`
	ItemID     uuid.UUID `json:"itemId"`
	SKU        string    `json:"sku"`
	PackSize   string    `json:"packSize"`
	PackUnit   string    `json:"packUnit"`
	PriceCents int64     `json:"priceCents"`
	Preferred  bool      `json:"preferred"`
}

func (b *buyer) vendorItem(v vendor, it item, sku string, priceCents int64, preferred bool) vendorItem {
	b.t.Helper()
	var vi vendorItem
	b.call(http.MethodPost, "vendors/"+v.ID.String()+"/items").JSON(map[string]any{
		"itemId": it.ID, "sku": sku, "packSize": "1", "packUnit": "case", "priceCents": priceCents, "preferred": preferred,
	}).Do().Expect(http.StatusCreated).Decode(&vi)
	return vi
}

func (b *buyer) vendorItems(v vendor) []vendorItem {
	b.t.Helper()
	var out []vendorItem
	b.call(http.MethodGet, "vendors/"+v.ID.String()+"/items").Do().Expect(http.StatusOK).Decode(&out)
	return out
}

type rowResult struct {
	Line         int        `json:"line"`
	SKU          string     `json:"sku"`
	Outcome      string     `json:"outcome"`
	VendorItemID *uuid.UUID `json:"vendorItemId"`
	ItemID       *uuid.UUID `json:"itemId"`
	Reason       *string    `json:"reason"`
}

type importResult struct {
	Rows      int         `json:"rows"`
	Created   int         `json:"created"`
	Updated   int         `json:"updated"`
	Unchanged int         `json:"unchanged"`
	Unmatched int         `json:"unmatched"`
	Errors    int         `json:"errors"`
	Results   []rowResult `json:"results"`
}

func (b *buyer) importCSV(v vendor, csv string) *apitest.Response {
	return b.call(http.MethodPost, "vendors/"+v.ID.String()+"/import-guide").Raw("text/csv", []byte(csv)).Do()
}

func multipartCSV(t *testing.T, csv []byte) (string, []byte) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	f, err := w.CreateFormFile("file", "guide.csv")
	if err != nil {
		t.Fatal(err)
	}
	f.Write(csv)
	w.Close()
	return w.FormDataContentType(), buf.Bytes()
}

type poLine struct {
	ID                uuid.UUID `json:"id"`
	VendorItemID      uuid.UUID `json:"vendorItemId"`
	ItemID            uuid.UUID `json:"itemId"`
	Packs             string    `json:"packs"`
	PriceCents        int64     `json:"priceCents"`
	LineTotalCents    int64     `json:"lineTotalCents"`
	ReceivedPacks     string    `json:"receivedPacks"`
	InvoicePriceCents *int64    `json:"invoicePriceCents"`
}

type po struct {
	ID         uuid.UUID `json:"id"`
	Status     string    `json:"status"`
	TotalCents int64     `json:"totalCents"`
	Lines      []poLine  `json:"lines"`
}

type txn struct {
	Kind         string     `json:"kind"`
	ItemID       uuid.UUID  `json:"itemId"`
	LotID        *uuid.UUID `json:"lotId"`
	Quantity     string     `json:"quantity"`
	UnitCost     string     `json:"unitCost"`
	AvgCostAfter string     `json:"avgCostAfter"`
	Source       struct {
		Type string    `json:"type"`
		ID   uuid.UUID `json:"id"`
	} `json:"source"`
}

type receipt struct {
	ID            uuid.UUID `json:"id"`
	PurchaseOrder po        `json:"purchaseOrder"`
	Txns          []txn     `json:"txns"`
}

func (b *buyer) createPO(v vendor, lines ...map[string]any) po {
	b.t.Helper()
	var out po
	b.call(http.MethodPost, "purchase-orders").JSON(map[string]any{"vendorId": v.ID, "siteId": b.site, "deliverOn": "2026-03-04", "lines": lines}).
		Do().Expect(http.StatusCreated).Decode(&out)
	return out
}

func (b *buyer) submit(p po) po {
	b.t.Helper()
	var out po
	b.call(http.MethodPost, "purchase-orders/"+p.ID.String()+"/submit").Do().Expect(http.StatusOK).Decode(&out)
	return out
}

func (b *buyer) receive(p po, body map[string]any) *apitest.Response {
	return b.call(http.MethodPost, "purchase-orders/"+p.ID.String()+"/receive").JSON(body).Do()
}

func (b *buyer) count(sql string, args ...any) int {
	b.t.Helper()
	var n int
	if err := b.env.Pool.QueryRow(b.t.Context(), sql, args...).Scan(&n); err != nil {
		b.t.Fatal(err)
	}
	return n
}
