package sensors_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// benchClient sends requests straight to the test server, without the response validation of
// apitest's client (which would spend the benchmark's CPU on the client side).
var benchClient = &http.Client{Timeout: time.Minute}

func benchDo(b *testing.B, env *apitest.Env, method, path string, header http.Header, body []byte) []byte {
	req, err := http.NewRequestWithContext(b.Context(), method, env.URL+"/v1/"+path, bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header = header
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := benchClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		b.Fatalf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	return raw
}

// BenchmarkIngest1000: readings saturated into one organization on a fresh database: 4 gateways
// at once, each call 1,000 readings (probesPerGateway probes × 1000/probesPerGateway minutes
// each, as a gateway flushes), every call new readings. Reports readings/s.
func BenchmarkIngest1000(b *testing.B) {
	for _, probes := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("probes=%d", probes), func(b *testing.B) { benchIngest(b, 4, probes) })
	}
}

func benchIngest(b *testing.B, gateways, probes int) {
	env := apitest.New(b)
	owner, org := env.NewOwner("Ingest")
	env.SetPlan(org, "enterprise", nil)
	site := env.Site(owner.AccessToken, org, "Main Kitchen")
	k := &kitchen{env: env, owner: owner, org: org, basePath: "orgs/" + org.String(), signedAt: env.Clock.Now(), site: site}
	k.cooler = k.location(site, "Walk-in cooler")
	tokens := make([]string, gateways)
	for g := range gateways {
		gw, tok := env.PairDevice(owner.AccessToken, org, site, "sensor_gateway")
		tokens[g] = tok
		if _, err := env.Pool.Exec(b.Context(), `
			WITH s AS (
			  INSERT INTO sensors (id, org_id, site_id, gateway_device_id, external_id, name, kind, storage_location_id, excursion_minutes, active, created_at, updated_at)
			  SELECT gen_random_uuid(), $1, $2, $3, 'probe-' || i, 'Probe ' || i, 'temperature', $4, 15, true, now(), now()
			  FROM generate_series(1, $5::int) i RETURNING id)
			INSERT INTO sensor_states (sensor_id, org_id, phase) SELECT id, $1, 'in_range' FROM s`, org, site, gw, k.cooler, probes); err != nil {
			b.Fatal(err)
		}
	}
	minutes := 1000 / probes
	start := env.Clock.Now().Add(-365 * 24 * time.Hour)
	// Each call is the next `minutes` minutes of one gateway's probes, 38–39.9 °F.
	body := func(call int) []byte {
		rs := make([]reading, 0, 1000)
		for m := range minutes {
			at := start.Add(time.Duration(call*minutes+m) * time.Minute)
			for p := range probes {
				rs = append(rs, reading{Sensor: fmt.Sprintf("probe-%d", p+1), At: at, Value: fmt.Sprintf("%d.%d", 38+(p+m)%2, (p*7+m)%10), Unit: "F"})
			}
		}
		raw, _ := json.Marshal(map[string]any{"readings": rs})
		return raw
	}
	// Warm the partitions and the connections once.
	for g := range gateways {
		benchDo(b, env, http.MethodPost, "device/readings", http.Header{"X-Device-Token": {tokens[g]}}, body(0))
	}
	var next atomic.Int64
	next.Store(1)
	b.ResetTimer()
	began := time.Now()
	var wg sync.WaitGroup
	per := (b.N + gateways - 1) / gateways
	for g := range gateways {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				raw := body(int(next.Add(1)))
				var r result
				_ = json.Unmarshal(benchDo(b, env, http.MethodPost, "device/readings", http.Header{"X-Device-Token": {tokens[g]}}, raw), &r)
				if r.Accepted != 1000 {
					b.Errorf("accepted %d of 1000", r.Accepted)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(began)
	b.ReportMetric(float64(per*gateways*1000)/elapsed.Seconds(), "readings/s")
}

// seedMonth writes days of one-minute readings (37–40.9 °F) for each sensor by SQL (setup, not
// what is measured), ending at end.
func seedMonth(b *testing.B, env *apitest.Env, org uuid.UUID, sensors []uuid.UUID, end time.Time, days int) {
	ctx := b.Context()
	from := end.Add(-time.Duration(days) * 24 * time.Hour)
	first := time.Date(from.UTC().Year(), from.UTC().Month(), 1, 0, 0, 0, 0, time.UTC)
	for m := first; !m.After(end); m = m.AddDate(0, 1, 0) {
		if _, err := env.Pool.Exec(ctx, `SELECT sensor_readings_ensure($1)`, m); err != nil {
			b.Fatal(err)
		}
	}
	for _, id := range sensors {
		if _, err := env.Pool.Exec(ctx, `
			INSERT INTO sensor_readings (org_id, sensor_id, at, value, received_at)
			SELECT $1, $2, t, 37 + (extract(epoch FROM t)::bigint / 60 % 40) / 10.0, t
			FROM generate_series($3::timestamptz, $4::timestamptz - interval '1 minute', interval '1 minute') t`, org, id, from, end); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := env.Pool.Exec(ctx, `ANALYZE sensor_readings`); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRawHourOf30Days: the 1-hour raw log (60 readings) of a sensor holding 30 days of
// one-minute readings, through HTTP.
func BenchmarkRawHourOf30Days(b *testing.B) {
	env := apitest.New(b)
	k := newKitchen(b, env, "Log")
	s := k.sensor("probe-7", nil)
	end := env.Clock.Now().Truncate(time.Hour)
	seedMonth(b, env, k.org, []uuid.UUID{s.ID}, end, 30)
	header := http.Header{"Authorization": {"Bearer " + k.token()}}
	path := k.path("sensors", s.ID.String(), "readings") + "?resolution=raw&from=" + end.Add(-15*24*time.Hour).Format(time.RFC3339) +
		"&to=" + end.Add(-15*24*time.Hour+time.Hour).Format(time.RFC3339)
	var log struct {
		Readings []json.RawMessage `json:"readings"`
	}
	if err := json.Unmarshal(benchDo(b, env, http.MethodGet, path, header, nil), &log); err != nil || len(log.Readings) != 60 {
		b.Fatalf("readings %d (%v)", len(log.Readings), err)
	}
	b.ResetTimer()
	for b.Loop() {
		benchDo(b, env, http.MethodGet, path, header, nil)
	}
}

// BenchmarkTemperatureLogMonth: a site's temperature log for a month (March: 31 days) of 20
// probes reading every minute (892,800 readings), each with one excursion a week and its task,
// hourly buckets, in JSON, CSV and PDF.
func BenchmarkTemperatureLogMonth(b *testing.B) {
	env := apitest.New(b)
	k := newKitchen(b, env, "Month")
	env.SetPlan(k.org, "enterprise", nil)
	var ids []uuid.UUID
	for i := range 20 {
		ids = append(ids, k.sensor(fmt.Sprintf("probe-%d", i+1), nil).ID)
	}
	chicago, _ := time.LoadLocation("America/Chicago")
	end := time.Date(2026, 4, 1, 0, 0, 0, 0, chicago)
	seedMonth(b, env, k.org, ids, end, 31)
	// Four excursions a probe, their alerts and tasks, by SQL.
	if _, err := env.Pool.Exec(b.Context(), `
		WITH x AS (
		  SELECT s AS sensor_id, gen_random_uuid() AS id, gen_random_uuid() AS alert_id,
		         timestamptz '2026-03-03 14:00-06' + w * interval '7 days' AS started
		  FROM unnest($2::uuid[]) s, generate_series(0, 3) w),
		a AS (INSERT INTO alerts (id, org_id, site_id, kind, severity, message, subject_type, subject_id, occurrence, opened_at, resolved_at)
		      SELECT alert_id, $1, $3, 'temperature_excursion', 'critical', 'warm', 'sensor', sensor_id, started, started + interval '15 minutes', started + interval '45 minutes' FROM x),
		t AS (INSERT INTO tasks (id, org_id, site_id, title, kind, priority, status, due_at, missed_after, source, source_id, completed_at, completed_by, evidence, created_at)
		      SELECT gen_random_uuid(), $1, $3, 'Check', 'temperature_log', 'high', 'done', started + interval '75 minutes', started + interval '90 minutes',
		             'sensor_alert', alert_id, started + interval '40 minutes', $4,
		             '{"note":"Door propped open; closed it","outOfRange":false,"temperature":{"value":"39","unit":"F","fahrenheit":"39"}}', started FROM x)
		INSERT INTO sensor_excursions (id, org_id, sensor_id, kind, started_at, confirmed_at, ended_at, resolved_at, peak, min_temp_f, max_temp_f, alert_id, created_at)
		SELECT id, $1, sensor_id, 'temperature_excursion', started, started + interval '15 minutes', started + interval '30 minutes',
		       started + interval '45 minutes', 46, 33, 41, alert_id, started FROM x`, k.org, ids, k.site, k.owner.User.ID); err != nil {
		b.Fatal(err)
	}
	header := func(accept string) http.Header {
		return http.Header{"Authorization": {"Bearer " + k.token()}, "Accept": {accept}}
	}
	path := k.logPath("2026-03-01", "2026-03-31", "")
	var log temperatureLog
	if err := json.Unmarshal(benchDo(b, env, http.MethodGet, path, header("application/json"), nil), &log); err != nil ||
		len(log.Sensors) != 20 || len(log.Sensors[0].Buckets) != 31*24-1 || len(log.Sensors[0].Excursions) != 4 || log.Sensors[0].Excursions[0].Task == nil {
		b.Fatalf("log: %d sensors (%v)", len(log.Sensors), err)
	}
	for _, accept := range []string{"application/json", "text/csv", "application/pdf"} {
		b.Run(accept, func(b *testing.B) {
			h := header(accept)
			for b.Loop() {
				benchDo(b, env, http.MethodGet, path, h, nil)
			}
		})
	}
}
