package trayline_test

import (
	"net/http"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/trayline"
)

// TestBenchTrayLine measures, when SOUS_BENCH_TRAYLINE is set, the generation of a 600-bed
// site's lunch tickets (three menu items per patient, one allergy in ten, a sodium limit on one
// patient in five) through the HTTP API, and GET /device/state of a tray-line screen with the
// 600 tickets: unchanged (200, and 304 to the ETag) and right after a ticket change.
// Indicative numbers for docs/benchmarks.md.
func TestBenchTrayLine(t *testing.T) {
	if os.Getenv("SOUS_BENCH_TRAYLINE") == "" {
		t.Skip("set SOUS_BENCH_TRAYLINE=1 to run")
	}
	h := newHospital(t)
	h.lunch()
	h.call(http.MethodPut, "clinical/diets/low_sodium/rules").JSON(map[string]any{"limits": map[string]string{"sodiumMg": "700"}}).Do().Expect(http.StatusOK)
	_, err := h.env.Pool.Exec(t.Context(), `
		INSERT INTO patients (id, org_id, site_id, mrn, mrn_source, encounter_id, unit, room, bed, admitted_at, allergies, diet_orders, created_at, updated_at)
		SELECT gen_random_uuid(), $1, $2, 'B' || i, 'pid3_mr', gen_random_uuid(), 'U' || (i % 12), lpad((i / 2)::text, 4, '0'), CASE WHEN i % 2 = 0 THEN 'A' ELSE 'B' END, now(),
		       CASE WHEN i % 10 = 0 THEN '[{"allergens":["sesame"]}]'::json ELSE '[]'::json END,
		       CASE WHEN i % 5 = 0 THEN '[{"codes":[{"diets":["regular","low_sodium"]}]}]'::json ELSE '[{"codes":[{"diets":["regular"]}]}]'::json END,
		       now(), now()
		FROM generate_series(1, 600) AS i`, h.org, h.site)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		start := time.Now()
		r := h.generate("lunch")
		t.Logf("generation %d: %v (%+v)", i+1, time.Since(start), r)
	}
	// The census hook's cost on a body of 100 patients none of whom has a queued ticket (the
	// common case for the ingest): one indexed statement.
	ids := make([]uuid.UUID, 100)
	for i := range ids {
		ids[i] = uuid.New()
	}
	var hookLat []time.Duration
	for i := 0; i < 200; i++ {
		tx, err := h.env.Pool.Begin(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := (trayline.CensusHook{Clock: h.env.Clock}).PatientsChanged(t.Context(), tx, h.org, ids); err != nil {
			t.Fatal(err)
		}
		hookLat = append(hookLat, time.Since(start))
		_ = tx.Rollback(t.Context())
	}
	slices.Sort(hookLat)
	t.Logf("census hook, 100 patients without queued tickets: p50 %v p99 %v", hookLat[len(hookLat)/2], hookLat[len(hookLat)*99/100])
	_, screen := h.env.PairDevice(h.owner.AccessToken, h.org, h.site, "tray_line")
	h.env.Clock.Advance(7*time.Hour + 30*time.Minute) // 10:30 local: lunch is next
	var s deviceState
	h.env.Call(http.MethodGet, "device/state").DeviceToken(screen).Do().Expect(http.StatusOK).Decode(&s)
	if len(s.Trays) != 600 {
		t.Fatalf("%d trays", len(s.Trays))
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	poll := func(etag string, want int) (time.Duration, string) {
		t.Helper()
		<-tick.C
		start := time.Now()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, h.env.URL+"/v1/device/state", nil)
		req.Header.Set("x-device-token", screen)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode != want {
			t.Fatalf("status %d", res.StatusCode)
		}
		return time.Since(start), res.Header.Get("ETag")
	}
	report := func(what string, lat []time.Duration) {
		slices.Sort(lat)
		t.Logf("%s: p50 %v p99 %v max %v", what, lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1])
	}
	// 500 requests paced at 50 req/s (10 s), each timed.
	var lat []time.Duration
	etag := ""
	for i := 0; i < 500; i++ {
		d, tag := poll("", http.StatusOK)
		lat = append(lat, d)
		etag = tag
	}
	report("device state with 600 trays at 50 req/s", lat)
	// The same with the screen's ETag: nothing changed, 304.
	lat = lat[:0]
	for i := 0; i < 500; i++ {
		d, _ := poll(etag, http.StatusNotModified)
		lat = append(lat, d)
	}
	report("the same, If-None-Match (304)", lat)
	// The first poll after each of 100 ticket changes (a status each), when the queue is read
	// and encoded again.
	lat = lat[:0]
	for i := 0; i < 100; i++ {
		if _, err := h.env.Pool.Exec(t.Context(), `UPDATE tray_tickets SET status = 'assembled' WHERE id = $1`, s.Trays[i].TicketID); err != nil {
			t.Fatal(err)
		}
		d, _ := poll("", http.StatusOK)
		lat = append(lat, d)
	}
	report("the first poll after a ticket change", lat)
}
