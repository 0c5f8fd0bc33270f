package kitchen_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// kitchen is an organization with one site (America/Chicago; breakfast, lunch and dinner) and
// its owner. The fake clock starts Monday 2 March 2026, 03:00 at the site.
type kitchen struct {
	t     testing.TB
	env   *apitest.Env
	owner apitest.Session
	org   uuid.UUID
	site  uuid.UUID
}

func newKitchen(t *testing.T) *kitchen { return newBenchKitchen(t) }

// newBenchKitchen is newKitchen for a test or a benchmark.
func newBenchKitchen(t testing.TB) *kitchen {
	env := apitest.New(t)
	owner, org := env.NewOwner("Harborview Kitchens")
	site := env.Site(owner.AccessToken, org, "Main Kitchen")
	k := &kitchen{t: t, env: env, owner: owner, org: org, site: site}
	k.call(http.MethodPut, "sites/"+site.String()).JSON(map[string]any{"name": "Main Kitchen", "timezone": "America/Chicago",
		"dayParts": []map[string]string{{"name": "breakfast", "start": "06:00", "end": "10:00"}, {"name": "lunch", "start": "11:00", "end": "14:00"},
			{"name": "dinner", "start": "17:00", "end": "20:00"}}}).Do().Expect(http.StatusOK)
	return k
}

func (k *kitchen) call(method, path string) *apitest.Request {
	return k.env.Call(method, "orgs/"+k.org.String()+"/"+path).Token(k.owner.AccessToken)
}

func (k *kitchen) as(s apitest.Session, method, path string) *apitest.Request {
	return k.env.Call(method, "orgs/"+k.org.String()+"/"+path).Token(s.AccessToken)
}

// item creates an inventory item and returns its id.
func (k *kitchen) item(name, base string, allergens map[string]string, units ...map[string]string) uuid.UUID {
	k.t.Helper()
	body := map[string]any{"name": name, "category": "test", "baseUnit": base, "allergens": allergens}
	if len(units) > 0 {
		body["units"] = units
	}
	var it struct {
		ID uuid.UUID `json:"id"`
	}
	k.call(http.MethodPost, "inventory-items").JSON(body).Do().Expect(http.StatusCreated).Decode(&it)
	return it.ID
}

// cost sets an item's moving-average cost at the site (cents per base unit), as receipts would.
func (k *kitchen) cost(item uuid.UUID, centsPerBase string, onHand string) {
	k.t.Helper()
	if _, err := k.env.Pool.Exec(k.t.Context(), `INSERT INTO stock_costs (org_id, item_id, site_id, on_hand, avg_cost, updated_at)
		VALUES ($1, $2, $3, $4::numeric, $5::numeric, now())`, k.org, item, k.site, onHand, centsPerBase); err != nil {
		k.t.Fatal(err)
	}
}

type amount struct {
	Quantity string `json:"quantity"`
	Unit     string `json:"unit"`
}

type ingredient struct {
	ItemID           *uuid.UUID `json:"itemId,omitempty"`
	RecipeID         *uuid.UUID `json:"recipeId,omitempty"`
	Name             string     `json:"name,omitempty"`
	Quantity         string     `json:"quantity"`
	Unit             string     `json:"unit"`
	TrimYieldPercent *string    `json:"trimYieldPercent,omitempty"`
	Note             *string    `json:"note,omitempty"`
}

type recipe struct {
	ID               uuid.UUID         `json:"id"`
	Name             string            `json:"name"`
	Version          int               `json:"version"`
	Archived         bool              `json:"archived"`
	Yield            amount            `json:"yield"`
	Portion          amount            `json:"portion"`
	Ingredients      []ingredient      `json:"ingredients"`
	MayContain       []string          `json:"mayContain"`
	Allergens        map[string]string `json:"allergens"`
	CostCents        int64             `json:"costCents"`
	PortionCostCents int64             `json:"portionCostCents"`
	CostComplete     bool              `json:"costComplete"`
	UncostedItems    []struct {
		ItemID uuid.UUID `json:"itemId"`
		Name   string    `json:"name"`
	} `json:"uncostedItems"`
}

func itemLine(id uuid.UUID, q, unit string) ingredient {
	return ingredient{ItemID: &id, Quantity: q, Unit: unit}
}
func subLine(id uuid.UUID, q, unit string) ingredient {
	return ingredient{RecipeID: &id, Quantity: q, Unit: unit}
}

func recipeBody(name string, yield, portion amount, lines ...ingredient) map[string]any {
	if lines == nil {
		lines = []ingredient{}
	}
	return map[string]any{"name": name, "category": "test", "yield": yield, "portion": portion, "ingredients": lines, "steps": []string{"Cook " + name + "."}}
}

func (k *kitchen) recipe(body map[string]any) recipe {
	k.t.Helper()
	var r recipe
	k.call(http.MethodPost, "recipes").JSON(body).Do().Expect(http.StatusCreated).Decode(&r)
	return r
}

func (k *kitchen) count(table string) int {
	k.t.Helper()
	var n int
	if err := k.env.Pool.QueryRow(k.t.Context(), "SELECT count(*) FROM "+table+" WHERE org_id = $1", k.org).Scan(&n); err != nil {
		k.t.Fatal(err)
	}
	return n
}
