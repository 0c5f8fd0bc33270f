package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/pg/pgtest"
)

// call sends a JSON request to the API and decodes the answer into out (when not nil).
func promCall(t *testing.T, method, url, token string, header map[string]string, body any, want int, out any) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		t.Fatalf("%s %s: %d, want %d: %s", method, url, res.StatusCode, want, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, url, err, raw)
		}
	}
}

// promQuery asks Prometheus for an instant vector: each sample's labels and value.
func promQuery(t *testing.T, base, q string) []map[string]string {
	t.Helper()
	res, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatalf("query %s: %v", q, err)
	}
	defer res.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || body.Status != "success" {
		t.Fatalf("query %s: %v %s", q, err, body.Error)
	}
	out := make([]map[string]string, 0, len(body.Data.Result))
	for _, r := range body.Data.Result {
		m := map[string]string{}
		for k, v := range r.Metric {
			m[k] = v
		}
		m["__value__"], _ = r.Value[1].(string)
		out = append(out, m)
	}
	return out
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("value %q: %v", s, err)
	}
	return f
}

// eventually polls cond until it reports true, or fails after a minute: what waiting for
// Prometheus's next scrape (every second here) looks like.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	last := ""
	for time.Now().Before(deadline) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		<-tick.C
	}
	t.Fatalf("%s: never true; last seen %s", what, last)
}

// groupInterval matches a rule group's own evaluation interval in a rules file.
var groupInterval = regexp.MustCompile(`(?m)^(\s+interval: )\S+$`)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// The real thing: a Prometheus server scrapes `sous serve` every second while traffic goes
// through the API (sign-ins, an HL7 body, a webhook delivery, a refused request), and its HTTP
// API then shows the request rate per route, the 4xx series, the HL7 messages applied, the
// delivery and sane pool gauges. Skipped where the prometheus binary is not installed (CI
// installs Debian's package).
func TestPrometheusScrapesTheServer(t *testing.T) {
	promBin, err := exec.LookPath("prometheus")
	if err != nil {
		missingTool(t, "prometheus", "apt-get install prometheus")
	}
	t.Parallel()
	_, waitLog, _ := startLogged(t, "DATABASE_URL="+pgtest.NewURL(t), "SOUS_ADDR=127.0.0.1:0",
		"SOUS_DATA_DIR="+t.TempDir(), "SOUS_ACCESS_LOG=false", "SOUS_METRICS_ADDR=127.0.0.1:0",
		"SOUS_WEBHOOK_ALLOW_PRIVATE=true", "SOUS_SHUTDOWN_GRACE=0s")
	metricsAddr, _ := waitLog("metrics listening")["addr"].(string)
	addr, _ := waitLog("serving")["addr"].(string)
	api := "http://" + addr + "/v1/"

	dir := t.TempDir()
	// The rules of docs/operations/monitoring as they are, evaluated every second rather than
	// at their groups' intervals, so the test need not wait 30 s for a recording.
	var ruleFiles []string
	for _, name := range []string{"alerts.yml", "slo.yml"} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "operations", "monitoring", name))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, groupInterval.ReplaceAll(raw, []byte("${1}1s")), 0o644); err != nil {
			t.Fatal(err)
		}
		ruleFiles = append(ruleFiles, path)
	}
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files: ['%s']\nscrape_configs:\n  - job_name: sous\n    static_configs:\n      - targets: ['%s']\n",
		strings.Join(ruleFiles, "', '"), metricsAddr)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	promAddr := freeAddr(t)
	prom := exec.Command(promBin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+promAddr)
	var promLog bytes.Buffer
	prom.Stdout, prom.Stderr = &promLog, &promLog
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = prom.Process.Kill(); _ = prom.Wait() })
	base := "http://" + promAddr

	// Prometheus has scraped Sous at least once before any traffic: the rates below compare
	// samples before and after it.
	eventually(t, "first scrape", func() (bool, string) {
		res, err := http.Get(base + "/-/ready")
		if err != nil {
			return false, err.Error()
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return false, res.Status
		}
		up := promQuery(t, base, `up{job="sous"}`)
		return len(up) == 1 && up[0]["__value__"] == "1", fmt.Sprint(up)
	})

	// Traffic: a registration with an organization, sign-ins, reads, a refused request.
	email := fmt.Sprintf("ops-%d@sous-test.example", time.Now().UnixNano())
	var reg struct {
		AccessToken string `json:"accessToken"`
		User        struct {
			Memberships []struct {
				OrgID string `json:"orgId"`
			} `json:"memberships"`
		} `json:"user"`
	}
	promCall(t, http.MethodPost, api+"auth/register", "", nil, map[string]string{
		"name": "Ops", "email": email, "password": "walk-in-cooler-pantry-9", "orgName": "Harborview Kitchens",
	}, http.StatusCreated, &reg)
	token, org := reg.AccessToken, api+"orgs/"+reg.User.Memberships[0].OrgID
	for range 3 {
		promCall(t, http.MethodPost, api+"auth/login", "", nil, map[string]string{"email": email, "password": "walk-in-cooler-pantry-9"}, http.StatusOK, nil)
		promCall(t, http.MethodGet, api+"auth/me", token, nil, nil, http.StatusOK, nil)
	}
	promCall(t, http.MethodGet, api+"auth/me", "", nil, nil, http.StatusUnauthorized, nil)

	// An HL7 body through an API key.
	var site, key struct {
		ID  string `json:"id"`
		Key string `json:"key"`
	}
	promCall(t, http.MethodPost, org+"/sites", token, nil, map[string]string{"name": "Main campus", "timezone": "America/Chicago"}, http.StatusCreated, &site)
	promCall(t, http.MethodPost, org+"/api-keys", token, nil, map[string]string{"name": "Interface engine"}, http.StatusCreated, &key)
	var msgs strings.Builder
	for i := range 5 {
		fmt.Fprintf(&msgs, "MSH|^~\\&|EPIC|HMC|SOUS|SOUS|20260302090000||ADT^A01|P-%d|P|2.5.1\rPID|1||10000000%d^^^HMC^MR||DOE^JANE||19700101|F\rPV1|1|I|4W^41%d^A\r", i, i, i)
	}
	msgs.WriteString("MSH|^~\\&|EPIC|HMC|SOUS|SOUS|20260302090000||ADT^A01|P-0|P|2.5.1\rPID|1||100000000^^^HMC^MR||DOE^JANE||19700101|F\rPV1|1|I|4W^410^A\r")
	var ingested struct {
		Results []struct {
			Outcome string `json:"outcome"`
		} `json:"results"`
	}
	promCall(t, http.MethodPost, org+"/adt/hl7", "", map[string]string{"x-api-key": key.Key},
		map[string]any{"siteId": site.ID, "message": msgs.String()}, http.StatusOK, &ingested)
	applied := 0
	for _, r := range ingested.Results {
		if r.Outcome == "applied" {
			applied++
		}
	}
	if applied != 5 {
		t.Fatalf("%d applied: %+v", applied, ingested.Results)
	}

	// A webhook delivery to a local receiver.
	var received atomic.Int32
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		received.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer rcv.Close()
	var hook struct {
		ID string `json:"id"`
	}
	promCall(t, http.MethodPost, org+"/webhooks", token, nil, map[string]any{"url": rcv.URL, "events": []string{"*"}}, http.StatusCreated, &hook)
	promCall(t, http.MethodPost, org+"/webhooks/"+hook.ID+"/test", token, nil, nil, http.StatusOK, nil)
	if received.Load() != 1 {
		t.Fatalf("receiver got %d deliveries", received.Load())
	}

	// What Prometheus saw.
	eventually(t, "request rate per route", func() (bool, string) {
		rates := map[string]float64{}
		for _, s := range promQuery(t, base, `sum by (http_route) (rate(http_server_request_duration_seconds_count{job="sous"}[1m]))`) {
			rates[s["http_route"]] = num(t, s["__value__"])
		}
		for _, route := range []string{"/v1/auth/register", "/v1/auth/login", "/v1/auth/me", "/v1/orgs/{orgId}/adt/hl7", "/v1/orgs/{orgId}/webhooks/{id}/test"} {
			if rates[route] <= 0 {
				return false, fmt.Sprintf("%s at %v", route, rates[route])
			}
		}
		return true, ""
	})
	eventually(t, "the 4xx series", func() (bool, string) {
		s := promQuery(t, base, `http_server_request_duration_seconds_count{job="sous",http_route="/v1/auth/me",http_response_status_code="401",operation="getMe",http_request_method="GET"}`)
		return len(s) == 1 && num(t, s[0]["__value__"]) == 1, fmt.Sprint(s)
	})
	eventually(t, "HL7 messages applied", func() (bool, string) {
		s := promQuery(t, base, `sous_hl7_messages_total{job="sous",outcome="applied"}`)
		d := promQuery(t, base, `sous_hl7_messages_total{job="sous",outcome="duplicate"}`)
		return len(s) == 1 && num(t, s[0]["__value__"]) == float64(applied) && len(d) == 1 && num(t, d[0]["__value__"]) == 1, fmt.Sprint(s, d)
	})
	eventually(t, "the webhook delivery", func() (bool, string) {
		s := promQuery(t, base, `sous_webhook_deliveries_total{job="sous"}`)
		byResult := map[string]float64{}
		for _, x := range s {
			byResult[x["result"]] = num(t, x["__value__"])
		}
		h := promQuery(t, base, `sous_webhook_delivery_duration_seconds_count{job="sous"}`)
		return byResult["delivered"] == 1 && byResult["failed"] == 0 && byResult["unreachable"] == 0 &&
			len(h) == 1 && num(t, h[0]["__value__"]) == 1, fmt.Sprint(s, h)
	})
	eventually(t, "pool gauges", func() (bool, string) {
		max := promQuery(t, base, `sous_db_pool_max_connections{job="sous"}`)
		conns := promQuery(t, base, `sous_db_pool_connections{job="sous"}`)
		acq := promQuery(t, base, `sous_db_pool_acquire_duration_seconds_count{job="sous"}`)
		if len(max) != 1 || len(conns) != 3 || len(acq) != 1 {
			return false, fmt.Sprint(max, conns, acq)
		}
		total := 0.0
		for _, c := range conns {
			v := num(t, c["__value__"])
			if v < 0 {
				return false, fmt.Sprint(conns)
			}
			total += v
		}
		m := num(t, max[0]["__value__"])
		return m >= 1 && total >= 1 && total <= m && num(t, acq[0]["__value__"]) > 0, fmt.Sprint(max, conns, acq)
	})
	// The availability SLO on a healthy server (no 5xx answered, so no 5xx series exists) is
	// exactly 1 for every main route that had traffic, not "no data".
	eventually(t, "availability SLO of a healthy server", func() (bool, string) {
		s := promQuery(t, base, `sous:slo_availability:ratio_rate5m`)
		got := map[string]string{}
		for _, x := range s {
			got[x["operation"]] = x["__value__"]
		}
		for _, op := range []string{"login", "getMe", "ingestHl7", "testWebhook"} {
			if got[op] != "1" {
				return false, fmt.Sprint(got)
			}
		}
		return len(got) == 4, fmt.Sprint(got)
	})
	if s := promQuery(t, base, `http_server_request_duration_seconds_count{http_response_status_code=~"5.."}`); len(s) != 0 {
		t.Fatalf("the server answered 5xx: %v", s)
	}
	eventually(t, "build info", func() (bool, string) {
		s := promQuery(t, base, `sous_build_info{job="sous"}`)
		return len(s) == 1 && s[0]["goversion"] != "", fmt.Sprint(s)
	})
}
