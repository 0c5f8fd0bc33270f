package inventory_test

import (
	"net/http"
	"testing"

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
