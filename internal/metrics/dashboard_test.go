package metrics

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

const monitoringDir = "../../docs/operations/monitoring/"

// exported returns every metric name the server exposes (histograms with their _bucket, _sum
// and _count series), the pool and outbox collectors included, and the recording rules' names.
func exported(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{"up": true} // Prometheus's own, per scrape target
	fq := regexp.MustCompile(`fqName: "([^"]+)"`)
	describe := func(c prometheus.Collector) {
		ch := make(chan *prometheus.Desc, 64)
		go func() { c.Describe(ch); close(ch) }()
		for d := range ch {
			if m := fq.FindStringSubmatch(d.String()); m != nil {
				names[m[1]] = true
			}
		}
	}
	describe(newPoolCollector(nil))
	describe(&outboxCollector{
		read:    func(context.Context) (int64, float64, error) { return 0, 0, nil },
		pending: prometheus.NewDesc("sous_outbox_pending", "", nil, nil),
		oldest:  prometheus.NewDesc("sous_outbox_oldest_age_seconds", "", nil, nil),
	})
	for _, c := range registered {
		describe(c)
	}
	for n := range names {
		for _, h := range []string{"http_server_request_duration_seconds", "sous_hl7_batch_duration_seconds", "sous_webhook_delivery_duration_seconds",
			"sous_password_hash_wait_seconds", "sous_stock_posting_size", "sous_db_pool_acquire_duration_seconds"} {
			if n == h {
				names[n+"_bucket"], names[n+"_sum"], names[n+"_count"] = true, true, true
			}
		}
	}
	rules, err := os.ReadFile(monitoringDir + "slo.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`record: (\S+)`).FindAllStringSubmatch(string(rules), -1) {
		names[m[1]] = true
	}
	return names
}

// metricRef finds the metric names in a PromQL expression: ours, the request metrics, the
// runtime's, the recording rules' and up.
var metricRef = regexp.MustCompile(`\b(sous_[a-z0-9_]+|sous:[a-z0-9_:]+|http_server_[a-z0-9_]+|go_[a-z0-9_]+|process_[a-z0-9_]+|up)\b`)

// The dashboard is valid JSON and every panel's every query names at least one metric, each of
// which the server (or a recording rule) exports.
func TestDashboardQueriesNameMetricsThatExist(t *testing.T) {
	names := exported(t)
	raw, err := os.ReadFile(monitoringDir + "dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Type    string `json:"type"`
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("dashboard.json: %v", err)
	}
	queries := 0
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			refs := metricRef.FindAllString(q.Expr, -1)
			if len(refs) == 0 {
				t.Errorf("panel %q: query %q names no metric", p.Title, q.Expr)
			}
			for _, r := range refs {
				if !names[r] {
					t.Errorf("panel %q: %s is not a metric the server exports", p.Title, r)
				}
			}
			queries++
		}
	}
	if queries < 20 {
		t.Fatalf("only %d queries", queries)
	}
	// Label names and values the panels filter on are the metrics' own.
	for _, want := range []string{`http_route`, `http_response_status_code`, `state`, `outcome`, `result`, `limit`, `job`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the dashboard never uses the label %s", want)
		}
	}
}

// The alerting and recording rules name only metrics that exist, so a renamed metric cannot
// silently leave an alert that never fires.
func TestRulesNameMetricsThatExist(t *testing.T) {
	names := exported(t)
	for _, file := range []string{"alerts.yml", "slo.yml"} {
		raw, err := os.ReadFile(monitoringDir + file)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(raw), "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "runbook:") || strings.HasPrefix(line, "summary:") {
				continue
			}
			for _, r := range metricRef.FindAllString(line, -1) {
				if !names[r] {
					t.Errorf("%s: %s is not a metric the server exports (%q)", file, r, line)
				}
			}
		}
	}
}
