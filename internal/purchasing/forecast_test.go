package purchasing_test

import (
	"net/http"
	"testing"
)

// The forecast basis walks item → recipe → menu → forecast → order list.
func TestOrderListsForecastBasis(t *testing.T) {
	t.Parallel()
	b := newBuyer(t)
	lemons, sugar, curd := b.lemonCurd()
	b.call(http.MethodPut, "inventory-items/"+lemons.ID.String()).JSON(map[string]any{"name": "Lemons", "category": "produce", "baseUnit": "lb",
		"units":     []map[string]string{{"name": "each", "factor": "0.25"}, {"name": "case", "factor": "28.75"}},
		"parLevels": []map[string]any{{"siteId": b.site, "par": "60", "reorderPoint": "0"}}}).Do().Expect(http.StatusOK)
	v := b.vendor("Freshline")
	lvi := b.vendorItem(v, lemons, "FL-LEM", 4250, true)
	b.call(http.MethodPost, "vendors/"+v.ID.String()+"/items").JSON(map[string]any{"itemId": sugar.ID, "sku": "FL-SUG", "packSize": "2", "packUnit": "kg",
		"priceCents": 300, "preferred": true}).Do().Expect(http.StatusCreated)
	// 1 case of lemons received at 5750: on hand 28.75 lb at 200 cents a lb. Sugar: none, no average.
	p := b.submit(b.createPO(v, map[string]any{"vendorItemId": lvi.ID, "packs": "1"}))
	b.receive(p, map[string]any{"lines": []any{map[string]any{"lineId": p.Lines[0].ID, "packs": "1", "locationId": b.loc, "priceCents": 5750}}}).Expect(http.StatusOK)

	// Menu: curd at Monday and Tuesday lunch, 0.5 portions a cover.
	b.call(http.MethodPost, "menus").JSON(map[string]any{"siteId": b.site, "name": "Spring", "startsOn": "2026-03-02", "cycleWeeks": 1, "items": []map[string]any{
		{"week": 1, "weekday": 1, "dayPart": "lunch", "recipeId": curd, "portionsPerCover": "0.5"},
		{"week": 1, "weekday": 2, "dayPart": "lunch", "recipeId": curd, "portionsPerCover": "0.5"},
	}}).Do().Expect(http.StatusCreated)
	for _, f := range []map[string]any{
		{"date": "2026-03-02", "covers": 80}, // 80 × 0.5 = 40 portions × 100 g = 4 kg: factor 1
		{"date": "2026-03-03", "covers": 10, "items": []map[string]any{{"recipeId": curd, "portions": "440"}}}, // 44 kg: factor 11
		{"date": "2026-03-05", "covers": 100}, // Thursday: no curd on the menu
		{"date": "2026-03-09", "covers": 999}, // after the range
	} {
		f["siteId"], f["dayPart"] = b.site, "lunch"
		b.call(http.MethodPost, "forecasts").JSON(f).Do().Expect(http.StatusOK)
	}
	// Forecast needs over 2–8 March, factor 1 + 11 = 12:
	//   lemons 2 lb / 0.8 trim = 2.5 lb × 12 = 30 lb; − 28.75 on hand = 1.25 lb → 1 case at 28.75 × 200 = 5750.
	//   sugar 0.5 kg × 12 = 6 kg; none on hand → 6 / 2 = 3 packs at the vendor's 300 = 900.
	// Par: lemons 60 − 28.75 = 31.25 lb → ceil(31.25 / 28.75) = 2 cases = 11500; sugar has no par.
	gen := func(basis string) orderList {
		t.Helper()
		var ol orderList
		b.call(http.MethodPost, "order-lists/generate").JSON(map[string]any{"siteId": b.site, "from": "2026-03-02", "to": "2026-03-08", "basis": basis}).
			Do().Expect(http.StatusCreated).Decode(&ol)
		return ol
	}
	type want struct {
		needed, packs string
		unit, total   int64
	}
	check := func(basis string, ol orderList, lines map[string]want, total int64) {
		t.Helper()
		if len(ol.Lines) != len(lines) || ol.TotalCents != total {
			t.Fatalf("%s: %d lines, total %d: %+v", basis, len(ol.Lines), ol.TotalCents, ol.Lines)
		}
		names := map[string]string{lemons.ID.String(): "lemons", sugar.ID.String(): "sugar"}
		for _, l := range ol.Lines {
			w := lines[names[l.ItemID.String()]]
			if l.Needed != w.needed || l.Quantity != w.needed || l.Packs != w.packs || l.UnitCostCents != w.unit || l.LineTotalCents != w.total || !l.Include {
				t.Errorf("%s: %s = %+v, want %+v", basis, names[l.ItemID.String()], l, w)
			}
		}
	}
	check("forecast", gen("forecast"), map[string]want{"lemons": {"1.25", "1", 5750, 5750}, "sugar": {"6", "3", 300, 900}}, 5750+900)
	check("par", gen("par"), map[string]want{"lemons": {"31.25", "2", 5750, 11500}}, 11500)
	check("both", gen("both"), map[string]want{"lemons": {"31.25", "2", 5750, 11500}, "sugar": {"6", "3", 300, 900}}, 11500+900)
}
