package httpapi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	dto "github.com/prometheus/client_model/go"

	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/idempotency"
	"github.com/sous-app/sous/internal/metrics"
	"github.com/sous-app/sous/internal/periodic"
	"github.com/sous-app/sous/internal/webhooks"
)

// series is one gathered sample: its metric name, labels and value (a histogram's count).
type series struct {
	name   string
	labels map[string]string
	value  float64
}

func gather(t *testing.T) []series {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []series
	for _, f := range families {
		for _, m := range f.GetMetric() {
			s := series{name: f.GetName(), labels: map[string]string{}}
			for _, l := range m.GetLabel() {
				s.labels[l.GetName()] = l.GetValue()
			}
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				s.value = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				s.value = m.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				s.value = float64(m.GetHistogram().GetSampleCount())
			case dto.MetricType_UNTYPED:
				s.value = m.GetUntyped().GetValue()
			}
			out = append(out, s)
		}
	}
	return out
}

// value sums the series of name whose labels include want (-1 when there is none).
func value(all []series, name string, want map[string]string) float64 {
	sum, found := 0.0, false
next:
	for _, s := range all {
		if s.name != name {
			continue
		}
		for k, v := range want {
			if s.labels[k] != v {
				continue next
			}
		}
		sum += s.value
		found = true
	}
	if !found {
		return -1
	}
	return sum
}

var (
	uuidLike  = regexp.MustCompile(`(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}`)
	emailLike = regexp.MustCompile(`[^@\s]+@[^@\s]+\.[^@\s]+`)
)

// After a busy run through the API (sign-ins good and bad, a lock-out, a replay, HL7, webhook
// deliveries of every result, lookups across organizations, unknown paths), every metric the
// operator's rules name exists with its labels, the counts moved, and no label value anywhere is
// an id or an email.
func TestMetricsAfterABusyRun(t *testing.T) {
	env := apitest.New(t, func(c *config.Config) { c.WebhookAllowPrivate = true })
	unregisterPool, err := metrics.RegisterPool(env.Pool)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unregisterPool)
	unregisterOutbox, err := webhooks.RegisterOutboxMetrics(env.Pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unregisterOutbox)
	before := gather(t)

	owner, orgID := env.NewOwner("Harborview Kitchens")
	org := "orgs/" + orgID.String()
	env.Call(http.MethodGet, "auth/me").Token(owner.AccessToken).Do().Expect(http.StatusOK)
	env.SignIn(owner.User.Email)

	// A replay of an idempotent create.
	key := uuid.NewString()
	for range 2 {
		env.Call(http.MethodPost, org+"/sites").Token(owner.AccessToken).Header("Idempotency-Key", key).
			JSON(map[string]string{"name": "Main kitchen", "timezone": "America/Chicago"}).Do().Expect(http.StatusCreated)
	}
	var site struct {
		ID uuid.UUID `json:"id"`
	}
	env.Call(http.MethodPost, org+"/sites").Token(owner.AccessToken).
		JSON(map[string]string{"name": "Harborview campus", "timezone": "America/Los_Angeles"}).Do().Expect(http.StatusCreated).Decode(&site)

	// Wrong passwords from one address until the account+address is locked (429).
	ip := env.NewIP()
	locked := false
	for range 8 {
		res := env.Call(http.MethodPost, "auth/login").FromIP(ip).
			JSON(map[string]string{"email": owner.User.Email, "password": "not-the-password-at-all"}).Do()
		if res.Status == http.StatusTooManyRequests {
			locked = true
			break
		}
		res.Expect(http.StatusUnauthorized)
	}
	if !locked {
		t.Fatal("never locked out")
	}

	// Refused and unknown requests.
	env.Call(http.MethodGet, "auth/me").Do().Expect(http.StatusUnauthorized)
	env.Call(http.MethodGet, "orgs/"+uuid.NewString()+"/sites").Token(owner.AccessToken).Do().Expect(http.StatusNotFound)
	res, err := http.Get(env.URL + "/v1/no-such-thing/" + uuid.NewString() + "/" + owner.User.Email)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()

	// HL7: two admissions and a duplicate.
	var k struct {
		Key string `json:"key"`
	}
	env.Call(http.MethodPost, org+"/api-keys").Token(owner.AccessToken).
		JSON(map[string]string{"name": "Interface engine"}).Do().Expect(http.StatusCreated).Decode(&k)
	admit := func(control, mrn string) string {
		return fmt.Sprintf("MSH|^~\\&|EPIC|HMC|SOUS|SOUS|20260302090000||ADT^A01|%s|P|2.5.1\rPID|1||%s^^^HMC^MR||DOE^JANE||19700101|F\rPV1|1|I|4W^412^A\r", control, mrn)
	}
	body := admit("M-1", "100000001") + admit("M-2", "100000002") + admit("M-1", "100000001")
	var ingested struct {
		Results []struct {
			Outcome string `json:"outcome"`
		} `json:"results"`
	}
	env.Call(http.MethodPost, org+"/adt/hl7").Header("x-api-key", k.Key).
		JSON(map[string]any{"siteId": site.ID, "message": body}).Do().Expect(http.StatusOK).Decode(&ingested)
	outcomes := map[string]float64{}
	for _, r := range ingested.Results {
		outcomes[r.Outcome]++
	}
	if outcomes["applied"] != 2 || outcomes["duplicate"] != 1 {
		t.Fatalf("outcomes %v", outcomes)
	}

	// Webhook test deliveries: delivered, failed (the receiver answers 500), unreachable.
	var status atomic.Int32
	status.Store(http.StatusNoContent)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(int(status.Load())) }))
	defer rcv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	hook := func(url string) string {
		var c struct {
			ID uuid.UUID `json:"id"`
		}
		env.Call(http.MethodPost, org+"/webhooks").Token(owner.AccessToken).
			JSON(map[string]any{"url": url, "events": []string{"*"}}).Do().Expect(http.StatusCreated).Decode(&c)
		return org + "/webhooks/" + c.ID.String() + "/test"
	}
	live, dead := hook(rcv.URL), hook(closedURL)
	env.Call(http.MethodPost, live).Token(owner.AccessToken).Do().Expect(http.StatusOK)
	status.Store(http.StatusInternalServerError)
	env.Call(http.MethodPost, live).Token(owner.AccessToken).Do().Expect(http.StatusOK)
	env.Call(http.MethodPost, dead).Token(owner.AccessToken).Do().Expect(http.StatusOK)

	// A background job's run.
	if err := periodic.NewRunner(env.Clock, nil, idempotency.PruneTask(env.Pool, env.Clock)).RunDue(t.Context()); err != nil {
		t.Fatal(err)
	}

	after := gather(t)
	grew := func(name string, labels map[string]string, by float64) {
		t.Helper()
		b, a := max(value(before, name, labels), 0), value(after, name, labels)
		if a < b+by {
			t.Errorf("%s%v: %v before, %v after; want at least %v more", name, labels, b, a, by)
		}
	}
	grew("http_server_request_duration_seconds", map[string]string{
		"http_request_method": "POST", "http_route": "/v1/orgs/{orgId}/sites", "http_response_status_code": "201", "operation": "createSite",
	}, 3)
	grew("http_server_request_duration_seconds", map[string]string{
		"http_request_method": "GET", "http_route": "/v1/auth/me", "http_response_status_code": "401", "operation": "getMe",
	}, 1)
	grew("http_server_request_duration_seconds", map[string]string{
		"http_route": "/v1/orgs/{orgId}/sites", "http_response_status_code": "404", "operation": "listSites",
	}, 1)
	grew("http_server_request_duration_seconds", map[string]string{
		"http_request_method": "GET", "http_route": "unmatched", "http_response_status_code": "404", "operation": "none",
	}, 1)
	grew("http_server_request_duration_seconds", map[string]string{"http_route": "/v1/auth/login", "http_response_status_code": "429"}, 1)
	grew("sous_rate_limited_total", map[string]string{"limit": "signin_fail"}, 1)
	grew("sous_idempotent_replays_total", nil, 1)
	grew("sous_hl7_messages_total", map[string]string{"outcome": "applied"}, 2)
	grew("sous_hl7_messages_total", map[string]string{"outcome": "duplicate"}, 1)
	grew("sous_hl7_batch_duration_seconds", nil, 1)
	grew("sous_webhook_deliveries_total", map[string]string{"result": "delivered"}, 1)
	grew("sous_webhook_deliveries_total", map[string]string{"result": "failed"}, 1)
	grew("sous_webhook_deliveries_total", map[string]string{"result": "unreachable"}, 1)
	grew("sous_webhook_delivery_duration_seconds", nil, 3)
	grew("sous_password_hash_wait_seconds", nil, 3)
	grew("sous_periodic_runs_total", map[string]string{"job": "idempotency_expired_keys", "result": "success"}, 1)
	if v := value(after, "sous_periodic_last_success_timestamp_seconds", map[string]string{"job": "idempotency_expired_keys"}); v < 1e9 {
		t.Errorf("last success %v", v)
	}
	if v := value(after, "sous_db_pool_max_connections", nil); v < 1 {
		t.Errorf("pool max %v", v)
	}
	if v := value(after, "sous_db_pool_connections", map[string]string{"state": "idle"}); v < 0 {
		t.Error("no idle pool gauge")
	}
	if v := value(after, "sous_outbox_pending", nil); v < 0 {
		t.Error("no outbox gauge")
	}

	// Every metric of the issue exists, with its labels and known values pre-created.
	for _, want := range []struct {
		name   string
		labels map[string]string
	}{
		{"http_server_active_requests", nil},
		{"sous_db_pool_connections", map[string]string{"state": "acquired"}},
		{"sous_db_pool_connections", map[string]string{"state": "constructing"}},
		{"sous_db_pool_acquire_duration_seconds", nil},
		{"sous_hl7_messages_total", map[string]string{"outcome": "skipped"}},
		{"sous_hl7_messages_total", map[string]string{"outcome": "rejected"}},
		{"sous_outbox_oldest_age_seconds", nil},
		{"sous_password_hash_waiting", nil},
		{"sous_password_hash_refused_total", nil},
		{"sous_heavy_reports_running", nil},
		{"sous_heavy_reports_waiting", nil},
		{"sous_heavy_reports_total", map[string]string{"outcome": "immediate"}},
		{"sous_heavy_reports_total", map[string]string{"outcome": "queued"}},
		{"sous_heavy_reports_total", map[string]string{"outcome": "refused"}},
		{"sous_rate_limited_total", map[string]string{"limit": "register"}},
		{"sous_rate_limited_total", map[string]string{"limit": "census_writers"}},
		{"sous_realtime_connections", nil},
		{"sous_realtime_hints_total", nil},
		{"sous_periodic_runs_total", map[string]string{"job": "idempotency_expired_keys", "result": "failure"}},
		{"sous_stock_postings_total", nil},
		{"sous_food_profiles_total", map[string]string{"result": "hit"}},
		{"sous_food_profiles_total", map[string]string{"result": "miss"}},
		{"sous_sensor_readings_total", map[string]string{"outcome": "implausible"}},
		{"sous_stock_posting_size", nil},
		{"sous_build_info", nil},
		{"go_goroutines", nil},
		{"process_resident_memory_bytes", nil},
	} {
		if value(after, want.name, want.labels) < 0 {
			t.Errorf("no series %s%v", want.name, want.labels)
		}
	}

	// Bounded cardinality, no tenant data: no label value is an id or an email.
	for _, s := range after {
		for k, v := range s.labels {
			if uuidLike.MatchString(v) || emailLike.MatchString(v) {
				t.Errorf("%s{%s=%q}: an id or an email in a label", s.name, k, v)
			}
			if k == "http_route" && v != "unmatched" && !strings.HasPrefix(v, "/") {
				t.Errorf("%s: route %q", s.name, v)
			}
		}
	}
}
