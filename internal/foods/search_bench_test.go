package foods_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sync"
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

// BenchmarkFoodSearch measures GET /foods?q= over the real server and database, with SR28
// imported and 10,000 of the organization's own foods beside it, open loop at 200 requests a
// second (latency counted from each request's scheduled start, so a slow answer delays no
// measurement). It reports p50, p99 and max in ms. Run it with a request count:
//
//	go test ./internal/foods -run '^$' -bench FoodSearch -benchtime 2000x
func BenchmarkFoodSearch(b *testing.B) {
	dir := sr28Dir(b)
	env := apitest.New(b)
	owner, org := env.NewOwner("Bench Kitchens")
	ctx := b.Context()
	if _, err := importSR28(b, env, dir); err != nil {
		b.Fatal(err)
	}
	// 10,000 own foods named like a supplier's catalogue: USDA names with a brand, in another
	// organization too (the search must keep to its own).
	for _, o := range []any{org, nil} {
		orgID := o
		if orgID == nil {
			_, other := env.NewOwner("Elsewhere")
			orgID = other
		}
		if _, err := env.Pool.Exec(ctx, `
			INSERT INTO org_foods (org_id, id, name, per_serving, basis_grams, portions, allergens, created_at, updated_at)
			SELECT $1, gen_random_uuid(), f.name || ' (' || (ARRAY['Harvest Dairy','Sysco','US Foods','Gordon','Local Farm'])[1 + i % 5] || ' ' || i || ')',
			       false, 100, '[{"amount":"1","measure":"cup","grams":"240"}]', '{}', now(), now()
			FROM generate_series(1, 10000) i JOIN usda_foods f ON f.ndb_no = (SELECT ndb_no FROM usda_foods ORDER BY ndb_no OFFSET (i * 7) % 8789 LIMIT 1)`, orgID); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := env.Pool.Exec(ctx, "ANALYZE org_foods"); err != nil {
		b.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 10 * time.Second}
	base := env.URL + "/v1/orgs/" + org.String() + "/foods?q="
	do := func(q string) error {
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
		if err := do(q); err != nil {
			b.Fatal(err)
		}
	}

	const rate = 200
	interval := time.Second / rate
	latencies := make([]time.Duration, b.N)
	var wg sync.WaitGroup
	var failed sync.Once
	var failure error
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		at := start.Add(time.Duration(i) * interval)
		time.Sleep(time.Until(at)) // pacing the load generator, not waiting on the system under test
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := do(benchQueries[i%len(benchQueries)]); err != nil {
				failed.Do(func() { failure = err })
			}
			latencies[i] = time.Since(at)
		}()
	}
	wg.Wait()
	b.StopTimer()
	if failure != nil {
		b.Fatal(failure)
	}
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		return float64(latencies[min(len(latencies)-1, int(p*float64(len(latencies))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(1), "max-ms")
	b.ReportMetric(0, "ns/op")
}
