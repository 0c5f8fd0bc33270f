package purchasing_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
)

type fullReqLine struct {
	ItemID       uuid.UUID `json:"itemId"`
	Quantity     string    `json:"quantity"`
	Unit         string    `json:"unit"`
	QuantityBase string    `json:"quantityBase"`
	BaseUnit     string    `json:"baseUnit"`
}

// lemonCurd is a recipe yielding 4 kg (portion 100 g) from 2 lb of lemons at an 80 % trim yield
// and 500 g of sugar kept in kg.
func (b *buyer) lemonCurd() (lemons, sugar item, recipeID uuid.UUID) {
	b.t.Helper()
	lemons = b.item("Lemons", "")
	b.call(http.MethodPost, "inventory-items").JSON(map[string]any{"name": "Sugar", "category": "dry", "baseUnit": "kg"}).
		Do().Expect(http.StatusCreated).Decode(&sugar)
	var r struct{ ID uuid.UUID }
	b.call(http.MethodPost, "recipes").JSON(map[string]any{"name": "Lemon curd", "category": "dessert",
		"yield": map[string]string{"quantity": "4", "unit": "kg"}, "portion": map[string]string{"quantity": "100", "unit": "g"},
		"ingredients": []map[string]any{
			{"itemId": lemons.ID, "quantity": "2", "unit": "lb", "trimYieldPercent": "80"},
			{"itemId": sugar.ID, "quantity": "500", "unit": "g"},
		}, "steps": []string{"Cook the curd."}}).Do().Expect(http.StatusCreated).Decode(&r)
	return lemons, sugar, r.ID
}

func TestRunRequisitionSumsTheDaysScaledRuns(t *testing.T) {
	t.Parallel()
	b := newBuyer(t)
	line := b.location(b.site, "Pastry")
	lemons, sugar, curd := b.lemonCurd()
	// Run 1: 60 portions × 100 g = 6 kg, factor 6/4 = 1.5. Run 2: 2 kg, factor 0.5. Another day's run is left out.
	for _, run := range []map[string]any{
		{"date": "2026-03-03", "portions": "60"},
		{"date": "2026-03-03", "quantity": "2", "unit": "kg"},
		{"date": "2026-03-04", "quantity": "40", "unit": "kg"},
	} {
		run["siteId"], run["recipeId"] = b.site, curd
		b.call(http.MethodPost, "production-runs").JSON(run).Do().Expect(http.StatusCreated)
	}
	body := map[string]any{"siteId": b.site, "date": "2026-03-03", "fromLocationId": b.loc, "toLocationId": line}

	// Failures write nothing.
	viewer := b.env.Member(b.org, "viewer")
	b.as(viewer, http.MethodPost, "production-runs/requisition").JSON(body).Do().Expect(http.StatusForbidden)
	other := b.location(b.env.Site(b.owner.AccessToken, b.org, "Commissary"), "Dry store")
	b.call(http.MethodPost, "production-runs/requisition").JSON(map[string]any{"siteId": b.site, "date": "2026-03-03",
		"fromLocationId": other, "toLocationId": line}).Do().ExpectError(http.StatusBadRequest, "")
	b.call(http.MethodPost, "production-runs/requisition").JSON(map[string]any{"siteId": b.site, "date": "2026-03-05",
		"fromLocationId": b.loc, "toLocationId": line}).Do().ExpectError(http.StatusConflict, "The site has no production runs on the date")
	if n := b.count(`SELECT count(*) FROM requisitions`); n != 0 {
		t.Fatalf("%d requisitions after failures", n)
	}

	var r struct {
		Status   string        `json:"status"`
		NeededOn string        `json:"neededOn"`
		Lines    []fullReqLine `json:"lines"`
	}
	b.call(http.MethodPost, "production-runs/requisition").JSON(body).Do().Expect(http.StatusCreated).Decode(&r)
	// Lemons as purchased: 2 lb / 0.8 = 2.5 lb per 4 kg; × (1.5 + 0.5) = 5 lb.
	// Sugar: 500 g = 0.5 kg per 4 kg; × 2 = 1 kg.
	want := map[uuid.UUID][2]string{lemons.ID: {"5", "lb"}, sugar.ID: {"1", "kg"}}
	if r.Status != "draft" || r.NeededOn != "2026-03-03" || len(r.Lines) != 2 {
		t.Fatalf("requisition = %+v", r)
	}
	for _, l := range r.Lines {
		w := want[l.ItemID]
		if l.QuantityBase != w[0] || l.Quantity != w[0] || l.Unit != w[1] || l.BaseUnit != w[1] {
			t.Errorf("line %+v, want %v", l, w)
		}
	}
}
