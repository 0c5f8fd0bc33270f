package kitchen_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

func names(field string) func(apitest.ErrorBody) bool {
	return func(e apitest.ErrorBody) bool {
		return slices.ContainsFunc(e.Details, func(d struct {
			Field   string `json:"field"`
			Message string `json:"message"`
		}) bool {
			return d.Field == field
		})
	}
}

// Covers beyond what the database's integer holds are refused by the contract, not answered 500
// (2^31) or stored wrapped (2^32 + 40 as 40).
func TestForecastCoversAreBounded(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	for _, covers := range []int{2147483648, 4294967336, 100001} {
		e := k.forecast("2026-03-03", "lunch", covers).ExpectError(http.StatusBadRequest, "")
		if !names("covers")(e) {
			t.Fatalf("covers %d: 400 does not name covers: %+v", covers, e)
		}
	}
	if n := k.count("forecasts"); n != 0 {
		t.Fatalf("forecasts written: %d", n)
	}
	k.forecast("2026-03-03", "lunch", 100000).Expect(http.StatusOK)
}

// A recipe whose cost is beyond what the server computes is a clear 422, never a wrapped
// (negative) cost; nothing is written.
func TestRecipeCostDoesNotWrap(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	gold := k.item("Saffron", "g", map[string]string{})
	k.cost(gold, "100000000000000", "1") // a million dollars a gram
	body := recipeBody("Gilded", amount{"1", "each"}, amount{"1", "each"}, itemLine(gold, "100000", "g"))
	k.call(http.MethodPost, "recipes").JSON(body).Do().ExpectCode(http.StatusUnprocessableEntity, "unprocessable")
	if n := k.count("recipes"); n != 0 {
		t.Fatalf("recipes written: %d", n)
	}
	// Within the bound the cost is exact: 0.01 g is a hundred million dollars.
	body = recipeBody("Gilded", amount{"1", "each"}, amount{"1", "each"}, itemLine(gold, "0.01", "g"))
	if r := k.recipe(body); r.CostCents != 1_000_000_000_000 || r.PortionCostCents != 1_000_000_000_000 {
		t.Fatalf("cost = %d, portion %d", r.CostCents, r.PortionCostCents)
	}
}
