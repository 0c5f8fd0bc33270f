package httpapi_test

import (
	"net/http"

	"github.com/google/uuid"
)

func recipeFixture(w *walker) walkCall { return walkCall{path: map[string]string{"id": w.recipe()}} }

func menuFixture(w *walker) walkCall {
	id := w.menu()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func runFixture(w *walker) walkCall {
	id := w.run()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

// recipeBody is a recipe of one new inventory item.
func (w *walker) recipeBody() map[string]any {
	item := w.create("inventory-items", map[string]any{"name": "Walk rice " + uuid.NewString()[:8], "category": "dry goods", "baseUnit": "kg"})
	return map[string]any{"name": "Walk pilaf", "category": "side", "yield": map[string]string{"quantity": "10", "unit": "kg"},
		"portion": map[string]string{"quantity": "200", "unit": "g"}, "station": "hot line",
		"ingredients": []map[string]any{{"itemId": item, "quantity": "4", "unit": "kg"}}, "steps": []string{"Toast the rice."}}
}

func (w *walker) recipe() string { return w.create("recipes", w.recipeBody()) }

// dayParts gives site A a breakfast, lunch and dinner.
func (w *walker) dayParts() {
	w.env.T.Helper()
	w.ownerCall(http.MethodPut, "sites/"+w.siteA.String()).JSON(map[string]any{"name": "Walk-in", "timezone": "America/Chicago",
		"dayParts": []map[string]string{{"name": "breakfast", "start": "06:00", "end": "10:00"}, {"name": "lunch", "start": "11:00", "end": "14:00"},
			{"name": "dinner", "start": "17:00", "end": "20:00"}}}).Do().Expect(http.StatusOK)
}

// menuBody is a one-week menu at site A serving a new recipe on Mondays at lunch.
func (w *walker) menuBody() map[string]any {
	w.dayParts()
	return map[string]any{"siteId": w.siteA, "name": "Walk menu", "startsOn": "2026-03-02", "cycleWeeks": 1,
		"items": []map[string]any{{"week": 1, "weekday": 1, "dayPart": "lunch", "recipeId": w.recipe(), "portionsPerCover": "0.5"}}}
}

func (w *walker) menu() string { return w.create("menus", w.menuBody()) }

func (w *walker) forecastBody() map[string]any {
	return map[string]any{"siteId": w.siteA, "date": "2030-01-07", "dayPart": "lunch", "covers": 40}
}

// forecast sets a lunch forecast at site A (far ahead, so its day part has not started).
func (w *walker) forecast() string {
	w.dayParts()
	var f struct {
		ID string `json:"id"`
	}
	w.ownerCall(http.MethodPost, "forecasts").JSON(w.forecastBody()).Do().Expect(http.StatusOK).Decode(&f)
	return f.ID
}

// run makes an ad-hoc production run at site A.
func (w *walker) run() string {
	return w.create("production-runs", map[string]any{"siteId": w.siteA, "date": "2030-01-07", "recipeId": w.recipe(), "portions": "10"})
}

// stockFixture receives stock at a location of site A, in a lot.
func stockFixture(w *walker) walkCall {
	_, loc := w.stock()
	return walkCall{ids: []string{loc}}
}

// stock receives 1 lb of a new item at a new location of site A, in a lot, and returns both.
func (w *walker) stock() (item, loc string) {
	w.env.T.Helper()
	item, loc = w.create("inventory-items", w.itemBody()), w.location()
	w.ownerCall(http.MethodPost, "stock/adjust").JSON(map[string]any{"siteId": w.siteA, "lines": []map[string]any{{"itemId": item, "locationId": loc,
		"quantity": "1", "unit": "lb", "reason": "receipt", "lot": map[string]any{"code": "WALK-" + uuid.NewString()[:6]}}}}).Do().Expect(http.StatusOK)
	return item, loc
}

// countFixture opens a count at site A with a line, for the sheet's operations.
func countFixture(w *walker) walkCall {
	item, loc := w.stock()
	id := w.create("counts", map[string]any{"siteId": w.siteA, "name": "Walk count", "locationIds": []string{loc}, "countedAt": w.env.Clock.Now()})
	w.ownerCall(http.MethodPut, "counts/"+id+"/lines").JSON(map[string]any{"lines": []map[string]any{{"itemId": item, "locationId": loc, "quantity": "3", "unit": "each"}}}).
		Do().Expect(http.StatusOK)
	return walkCall{path: map[string]string{"id": id}, ids: []string{id, loc},
		body: map[string]any{"lines": []map[string]any{{"itemId": item, "locationId": loc, "quantity": "2", "unit": "each"}}}}
}

// waste logs a waste of site A's stock and returns its id.
func (w *walker) waste() string {
	item, loc := w.stock()
	return w.create("waste-logs", map[string]any{"siteId": w.siteA, "locationId": loc, "itemId": item, "quantity": "1", "unit": "each", "reason": "trim"})
}

func itemFixture(w *walker) walkCall {
	id := w.create("inventory-items", w.itemBody())
	return walkCall{path: map[string]string{"id": id}}
}

func locationFixture(w *walker) walkCall {
	id := w.location()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

// itemBody is an inventory item with a par level at site A.
func (w *walker) itemBody() map[string]any {
	return map[string]any{"name": "Walk lemons", "category": "produce", "baseUnit": "lb",
		"units":     []map[string]any{{"name": "each", "factor": "0.25"}},
		"parLevels": []map[string]any{{"siteId": w.siteA, "par": "40", "reorderPoint": "15"}}}
}

// location creates a storage location at site A and returns its id.
func (w *walker) location() string {
	w.env.T.Helper()
	return w.create("storage-locations", map[string]any{"siteId": w.siteA, "name": "Walk cooler " + uuid.NewString()[:8], "kind": "cooler"})
}
