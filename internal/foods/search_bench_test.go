package foods_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// benchQueries are what a cook types into a food picker: names, partial names, typos.
var benchQueries = []string{
	"butter salted", "buter salted", "chicken breast", "chiken brest", "apple", "milk whole", "cheddar",
	"salt", "rice cooked", "egg", "beef ground", "tomato", "orange juice", "bread wheat", "yogurt plain",
	"potato baked", "olive oil", "sugar", "brocoli", "salmon", "harvest dairy", "oat milk",
}

// searchServer is the real server and database with SR28 imported and 10,000 of the
// organization's own foods beside it (and 10,000 of another organization's, which the search
// must pass over); search runs one GET /foods?q= and says how it went.
func searchServer(b *testing.B) (search func(q string) error) {
	dir := sr28Dir(b)
	env := apitest.New(b)
	owner, org := env.NewOwner("Bench Kitchens")
	_, other := env.NewOwner("Elsewhere")
	ctx := b.Context()
	if _, err := importSR28(b, env, dir); err != nil {
		b.Fatal(err)
	}
	// Own foods named like a supplier's catalogue: USDA names with a brand and a number.
	for _, orgID := range []any{org, other} {
		if _, err := env.Pool.Exec(ctx, `
			WITH names AS (SELECT row_number() OVER (ORDER BY ndb_no) - 1 AS n, name FROM usda_foods)
			INSERT INTO org_foods (org_id, id, name, per_serving, basis_grams, portions, allergens, created_at, updated_at)
			SELECT $1, gen_random_uuid(), names.name || ' (' || (ARRAY['Harvest Dairy','Sysco','US Foods','Gordon','Local Farm'])[1 + i % 5] || ' ' || i || ')',
			       false, 100, '[{"amount":"1","measure":"cup","grams":"240"}]', '{}', now(), now()
			FROM generate_series(1, 10000) i JOIN names ON names.n = (i * 7) % 8789`, orgID); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := env.Pool.Exec(ctx, "ANALYZE org_foods"); err != nil {
		b.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 30 * time.Second}
	base := env.URL + "/v1/orgs/" + org.String() + "/foods?q="
	search = func(q string) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+url.QueryEscape(q), nil)
		req.Header.Set("Authorization", "Bearer "+owner.AccessToken)
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		_, _ = io.Copy(io.Discard, res.Body)
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("q=%s: %d", q, res.StatusCode)
		}
		return nil
	}
	for _, q := range benchQueries { // warm the connections and caches
		if err := search(q); err != nil {
			b.Fatal(err)
		}
	}
	return search
}

// BenchmarkFoodSearch runs the searches open loop at 200 requests a second (latency counted
// from each request's scheduled start, so a slow answer delays no measurement), after a first
// second of the same load reported apart (see apitest.BenchOpenLoop), and reports p50, p99 and
// max in ms, and the requests that failed. Run it with a request count:
//
//	go test ./internal/foods -run '^$' -bench 'FoodSearch$' -benchtime 2000x
func BenchmarkFoodSearch(b *testing.B) {
	search := searchServer(b)
	apitest.BenchOpenLoop(b, 200, func(i int) error { return search(benchQueries[i%len(benchQueries)]) })
}

// BenchmarkFoodSearchSerial runs the searches one after another: each one's service time, with
// nothing queued before it.
//
//	go test ./internal/foods -run '^$' -bench 'FoodSearchSerial' -benchtime 1000x
func BenchmarkFoodSearchSerial(b *testing.B) {
	search := searchServer(b)
	latencies := make([]time.Duration, b.N)
	b.ResetTimer()
	for i := range b.N {
		t := time.Now()
		if err := search(benchQueries[i%len(benchQueries)]); err != nil {
			b.Fatal(err)
		}
		latencies[i] = time.Since(t)
	}
	b.StopTimer()
	apitest.ReportLatencies(b, "", latencies)
}
