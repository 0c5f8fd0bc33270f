package kitchen_test

import (
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// BenchmarkRecipeNutrition measures GET /recipes/{id}/nutrition over the real server and
// database for a recipe of 40 ingredients under 3 levels of sub-recipes (12 items and a sauce;
// the sauce 10 items and a base; the base 9 items and a stock; the stock 9 items), each item
// linked to its own food and weighed three ways (grams, a cup through the food's measure, an
// each through the item's gramsPer). Open loop at 200 requests a second, latency counted from
// each request's scheduled start, after a first second of the same load reported apart (see
// apitest.BenchOpenLoop); reports p50, p99 and max in ms. Run it with a request count:
//
//	go test ./internal/kitchen -run '^$' -bench RecipeNutrition -benchtime 2000x
func BenchmarkRecipeNutrition(b *testing.B) {
	do := nutritionServer(b)
	apitest.BenchOpenLoop(b, 200, func(int) error { return do() })
}

// nutritionServer is the real server and database with BenchmarkRecipeNutrition's recipe; do
// analyses it once through GET /recipes/{id}/nutrition.
func nutritionServer(b *testing.B) (do func() error) {
	k := newBenchKitchen(b)
	item := func(i int) ingredient {
		food := k.food(fmt.Sprintf("Food %d", i), oats, map[string]string{"amount": "1", "measure": "cup", "grams": "80"})
		switch i % 3 {
		case 0:
			return itemLine(k.foodItem(fmt.Sprintf("Item %d", i), "kg", &food, nineFree(), nil), "100", "g")
		case 1:
			return itemLine(k.foodItem(fmt.Sprintf("Item %d", i), "l", &food, nineFree(), nil), "2", "cup")
		}
		id := k.foodItem(fmt.Sprintf("Item %d", i), "each", &food, nineFree(), map[string]any{"gramsPer": map[string]string{"each": "120"}})
		return itemLine(id, "3", "each")
	}
	n := 0
	lines := func(count int) []ingredient {
		var out []ingredient
		for range count {
			out = append(out, item(n))
			n++
		}
		return out
	}
	stock := k.recipe(recipeBody("Stock", amount{"4", "l"}, amount{"250", "ml"}, lines(9)...))
	base := k.recipe(recipeBody("Base", amount{"3", "l"}, amount{"250", "ml"}, append(lines(9), subLine(stock.ID, "1", "l"))...))
	sauce := k.recipe(recipeBody("Sauce", amount{"2", "l"}, amount{"250", "ml"}, append(lines(10), subLine(base.ID, "500", "ml"))...))
	top := k.recipe(recipeBody("Plate", amount{"10", "each"}, amount{"1", "each"}, append(lines(12), subLine(sauce.ID, "1", "l"))...))
	if n != 40 {
		b.Fatalf("%d ingredients", n)
	}

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 10 * time.Second}
	url := k.env.URL + "/v1/orgs/" + k.org.String() + "/recipes/" + top.ID.String() + "/nutrition"
	do = func() error {
		req, _ := http.NewRequestWithContext(b.Context(), http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer "+k.owner.AccessToken)
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		_, _ = io.Copy(io.Discard, res.Body)
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %d", top.ID, res.StatusCode)
		}
		return nil
	}
	for range 20 { // warm the connections and caches
		if err := do(); err != nil {
			b.Fatal(err)
		}
	}
	return do
}

// BenchmarkRecipeNutritionSerial analyses the same recipe one request after another: each
// one's service time, with nothing queued before it (what a loaded machine can still compare).
//
//	go test ./internal/kitchen -run '^$' -bench RecipeNutritionSerial -benchtime 500x
func BenchmarkRecipeNutritionSerial(b *testing.B) {
	do := nutritionServer(b)
	latencies := make([]time.Duration, b.N)
	b.ResetTimer()
	for i := range b.N {
		t := time.Now()
		if err := do(); err != nil {
			b.Fatal(err)
		}
		latencies[i] = time.Since(t)
	}
	b.StopTimer()
	apitest.ReportLatencies(b, "", latencies)
	b.ReportMetric(0, "ns/op")
}
