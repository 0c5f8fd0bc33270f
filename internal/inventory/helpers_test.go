package inventory_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// kitchen is an organization with one site (America/Chicago) and its owner.
type kitchen struct {
	t     *testing.T
	env   *apitest.Env
	owner apitest.Session
	org   uuid.UUID
	site  uuid.UUID
}

func newKitchen(t *testing.T) *kitchen {
	env := apitest.New(t)
	owner, org := env.NewOwner("Harborview Kitchens")
	site := env.Site(owner.AccessToken, org, "Main Kitchen")
	return &kitchen{t: t, env: env, owner: owner, org: org, site: site}
}

func (k *kitchen) call(method, path string) *apitest.Request {
	return k.env.Call(method, "orgs/"+k.org.String()+"/"+path).Token(k.owner.AccessToken)
}

func (k *kitchen) as(s apitest.Session, method, path string) *apitest.Request {
	return k.env.Call(method, "orgs/"+k.org.String()+"/"+path).Token(s.AccessToken)
}

type itemUnit struct {
	Name   string `json:"name"`
	Factor string `json:"factor"`
}

type parLevel struct {
	SiteID       uuid.UUID `json:"siteId"`
	Par          string    `json:"par"`
	ReorderPoint string    `json:"reorderPoint"`
}

type item struct {
	ID            uuid.UUID         `json:"id"`
	Name          string            `json:"name"`
	SKU           *string           `json:"sku"`
	Category      string            `json:"category"`
	BaseUnit      string            `json:"baseUnit"`
	Units         []itemUnit        `json:"units"`
	ParLevels     []parLevel        `json:"parLevels"`
	ShelfLifeDays *int              `json:"shelfLifeDays"`
	Allergens     map[string]string `json:"allergens"`
	Active        bool              `json:"active"`
}

type location struct {
	ID       uuid.UUID `json:"id"`
	SiteID   uuid.UUID `json:"siteId"`
	Name     string    `json:"name"`
	Kind     string    `json:"kind"`
	MinTempF *string   `json:"minTempF"`
	MaxTempF *string   `json:"maxTempF"`
	Active   bool      `json:"active"`
}

// item creates an item from body and returns it.
func (k *kitchen) item(body map[string]any) item {
	k.t.Helper()
	var it item
	k.call(http.MethodPost, "inventory-items").JSON(body).Do().Expect(http.StatusCreated).Decode(&it)
	return it
}

func (k *kitchen) location(siteID uuid.UUID, name string) location {
	k.t.Helper()
	var l location
	k.call(http.MethodPost, "storage-locations").JSON(map[string]any{"siteId": siteID, "name": name, "kind": "cooler"}).
		Do().Expect(http.StatusCreated).Decode(&l)
	return l
}

// lemons: kept in lb, 1 each = 0.25 lb, 1 case = 6 each = 1.5 lb.
func (k *kitchen) lemons() item {
	k.t.Helper()
	return k.item(map[string]any{"name": "Lemons " + uuid.NewString()[:6], "category": "produce", "baseUnit": "lb",
		"units": []itemUnit{{"each", "0.25"}, {"case", "1.5"}}, "allergens": map[string]string{"citrus": "contains"}})
}

type txn struct {
	ID           uuid.UUID  `json:"id"`
	Kind         string     `json:"kind"`
	ItemID       uuid.UUID  `json:"itemId"`
	LocationID   uuid.UUID  `json:"locationId"`
	LotID        *uuid.UUID `json:"lotId"`
	Quantity     string     `json:"quantity"`
	Unit         string     `json:"unit"`
	UnitCost     string     `json:"unitCost"`
	ValueCents   int64      `json:"valueCents"`
	AvgCostAfter string     `json:"avgCostAfter"`
	OnHandAfter  string     `json:"onHandAfter"`
	Reason       string     `json:"reason"`
	Source       struct {
		Type string    `json:"type"`
		ID   uuid.UUID `json:"id"`
	} `json:"source"`
	Actor *uuid.UUID `json:"actor"`
}

type adjustment struct {
	ID   uuid.UUID `json:"id"`
	Txns []txn     `json:"txns"`
}

// line is one line of POST /stock/adjust.
func line(it item, loc location, qty, unit, reason string, extra ...map[string]any) map[string]any {
	l := map[string]any{"itemId": it.ID, "locationId": loc.ID, "quantity": qty, "unit": unit, "reason": reason}
	for _, e := range extra {
		for k, v := range e {
			l[k] = v
		}
	}
	return l
}

func (k *kitchen) adjustReq(lines ...map[string]any) *apitest.Response {
	k.t.Helper()
	return k.call(http.MethodPost, "stock/adjust").JSON(map[string]any{"siteId": k.site, "lines": lines}).Do()
}

func (k *kitchen) adjust(lines ...map[string]any) adjustment {
	k.t.Helper()
	var a adjustment
	k.adjustReq(lines...).Expect(http.StatusOK).Decode(&a)
	return a
}

type stockLot struct {
	LotID     uuid.UUID `json:"lotId"`
	Code      string    `json:"code"`
	ExpiresOn *string   `json:"expiresOn"`
	Quantity  string    `json:"quantity"`
}

type stockLevel struct {
	ItemID     uuid.UUID  `json:"itemId"`
	LocationID uuid.UUID  `json:"locationId"`
	Quantity   string     `json:"quantity"`
	Unit       string     `json:"unit"`
	Lots       []stockLot `json:"lots"`
	AvgCost    string     `json:"avgCost"`
	ValueCents int64      `json:"valueCents"`
	Par        *string    `json:"par"`
	BelowPar   bool       `json:"belowPar"`
}

func (k *kitchen) stock(query string) []stockLevel {
	k.t.Helper()
	var out []stockLevel
	k.call(http.MethodGet, "stock?"+query).Do().Expect(http.StatusOK).Decode(&out)
	return out
}

// onHand is the item's quantity at the location per GET /stock ("0" when it has no row).
func (k *kitchen) onHand(it item, loc location) string {
	k.t.Helper()
	rows := k.stock("itemId=" + it.ID.String() + "&locationId=" + loc.ID.String())
	if len(rows) == 0 {
		return "0"
	}
	return rows[0].Quantity
}

// txnCount counts the organization's ledger rows.
func (k *kitchen) txnCount() int {
	k.t.Helper()
	var n int
	if err := k.env.Pool.QueryRow(k.t.Context(), `SELECT count(*) FROM stock_txns WHERE org_id = $1`, k.org).Scan(&n); err != nil {
		k.t.Fatal(err)
	}
	return n
}

// setClock moves the clock and signs the owner in again (the access token lives 15 minutes).
func (k *kitchen) setClock(t time.Time) {
	k.t.Helper()
	k.env.Clock.Set(t)
	k.owner = k.env.SignIn(k.owner.User.Email)
}

// auditCount counts the organization's audit rows of an operation.
func (k *kitchen) auditCount(action string) int {
	k.t.Helper()
	var n int
	if err := k.env.Pool.QueryRow(k.t.Context(), `SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = $2`, k.org, action).Scan(&n); err != nil {
		k.t.Fatal(err)
	}
	return n
}
