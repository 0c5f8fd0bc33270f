package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

func mustStatus(t *testing.T, spec string) statusSet {
	t.Helper()
	s, err := parseStatusSet(spec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func baseConfig(t *testing.T, urls ...string) attackConfig {
	t.Helper()
	tgts, err := buildTargets(targetSpec{URLs: urls, Method: "GET", Header: http.Header{}})
	if err != nil {
		t.Fatal(err)
	}
	return attackConfig{Targets: tgts, Workers: 4, Timeout: 5 * time.Second, Expect: mustStatus(t, "2xx")}
}

func TestConstantRateSendsExactlyRateTimesDuration(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, "ok")
	}))
	defer srv.Close()

	cfg := baseConfig(t, srv.URL+"/a")
	cfg.Rate, cfg.Duration = 200, 250*time.Millisecond
	r := runAttack(context.Background(), cfg, nil)

	if r.Requests != 50 || r.Planned != 50 || hits.Load() != 50 {
		t.Fatalf("requests=%d planned=%d served=%d, want 50 each", r.Requests, r.Planned, hits.Load())
	}
	if r.SuccessRatio != 1 || r.Successes != 50 {
		t.Fatalf("success ratio %v (%d), want 1", r.SuccessRatio, r.Successes)
	}
	if r.StatusCodes["200"] != 50 || len(r.StatusCodes) != 1 {
		t.Fatalf("status codes %v", r.StatusCodes)
	}
	if len(r.Errors) != 0 {
		t.Fatalf("unexpected errors %v", r.Errors)
	}
	l := r.Latency
	if !(l.Min > 0 && l.Min <= l.P50 && l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.P999 && l.P999 <= l.Max) {
		t.Fatalf("percentiles not ordered: %+v", l)
	}
	// Correction only ever adds time.
	if r.Latency.Max < r.RawLatency.Max || r.Latency.Min < r.RawLatency.Min {
		t.Fatalf("corrected %+v below raw %+v", r.Latency, r.RawLatency)
	}
}

func TestRoundRobinAcrossURLs(t *testing.T) {
	var a, b atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/a", func(w http.ResponseWriter, r *http.Request) { a.Add(1) })
	mux.HandleFunc("/b", func(w http.ResponseWriter, r *http.Request) { b.Add(1) })
	srv := httptest.NewServer(mux)
	defer srv.Close()

	cfg := baseConfig(t, srv.URL+"/a", srv.URL+"/b")
	cfg.Rate, cfg.Duration = 100, 200*time.Millisecond
	r := runAttack(context.Background(), cfg, nil)
	if r.Requests != 20 || a.Load() != 10 || b.Load() != 10 {
		t.Fatalf("requests=%d a=%d b=%d, want 20/10/10", r.Requests, a.Load(), b.Load())
	}
	if len(r.Targets) != 2 {
		t.Fatalf("targets %v", r.Targets)
	}
}

func TestExpectStatusDecidesSuccess(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error": "no such order",
			"requestId": "r1"}`)
	}))
	defer srv.Close()

	cfg := baseConfig(t, srv.URL)
	cfg.Rate, cfg.Duration = 100, 100*time.Millisecond

	r := runAttack(context.Background(), cfg, nil)
	if r.Requests != 10 || r.SuccessRatio != 0 {
		t.Fatalf("default 2xx: requests=%d success=%v", r.Requests, r.SuccessRatio)
	}
	if len(r.Errors) != 1 || r.Errors[0].Error != "HTTP 404 Not Found" || r.Errors[0].Count != 10 {
		t.Fatalf("errors %+v", r.Errors)
	}
	if got := r.Errors[0].Example; got != `{"error": "no such order", "requestId": "r1"}` {
		t.Fatalf("example body %q should be the body on one line", got)
	}

	cfg.Expect = mustStatus(t, "200,404")
	r = runAttack(context.Background(), cfg, nil)
	if r.SuccessRatio != 1 || len(r.Errors) != 0 {
		t.Fatalf("expect 404: success=%v errors=%v", r.SuccessRatio, r.Errors)
	}
}

func TestTransportErrorsAreSampled(t *testing.T) {
	// A port that was just free: connecting is refused at once, so the test
	// stays quick without relying on timeouts.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	cfg := baseConfig(t, "http://"+addr+"/x")
	cfg.Rate, cfg.Duration = 100, 50*time.Millisecond
	r := runAttack(context.Background(), cfg, nil)
	if r.Requests != 5 || r.Successes != 0 || r.StatusCodes["0"] != 5 {
		t.Fatalf("requests=%d successes=%d codes=%v", r.Requests, r.Successes, r.StatusCodes)
	}
	var total uint64
	for _, e := range r.Errors {
		total += e.Count
		if !strings.Contains(e.Error, "refused") {
			t.Errorf("error %q does not mention the refusal", e.Error)
		}
	}
	if total != 5 {
		t.Fatalf("error counts add to %d, want 5: %+v", total, r.Errors)
	}
}

func TestAbortStopsEarly(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer srv.Close()
	cfg := baseConfig(t, srv.URL)
	cfg.Rate, cfg.Duration = 100, 10*time.Second
	start := time.Now()
	r := runAttack(context.Background(), cfg, func(c *collector) string {
		if c.failures >= 3 {
			return "enough"
		}
		return ""
	})
	if r.Aborted != "enough" || r.Requests >= r.Planned {
		t.Fatalf("aborted=%q requests=%d of %d", r.Aborted, r.Requests, r.Planned)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("abort did not stop the attack")
	}
}

func TestContextCancelStopsAttack(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	cfg := baseConfig(t, srv.URL)
	cfg.Rate, cfg.Duration = 50, time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := runAttack(ctx, cfg, nil)
	if r.Aborted != "interrupted" || r.Requests > 5 {
		t.Fatalf("aborted=%q requests=%d", r.Aborted, r.Requests)
	}
}

// The correction rules, on a synthetic timeline: 10ms interval, one worker,
// a server taking 100ms. Request 1 is released on time at 20ms but the only
// worker is busy until 110ms, so request 2, due at 30ms, leaves at 110ms and
// the pacer then fires the overdue requests back to back.
func TestScheduleChargesWorkerWaits(t *testing.T) {
	ms, us := time.Millisecond, time.Microsecond
	s := schedule{interval: 10 * ms}
	s.release(0, 0, 10*ms+300*us) // timer overshoot of 0.3ms
	s.release(1, 10*ms+320*us, 20*ms)
	s.release(2, 110*ms, 110*ms) // handing request 1 over blocked 90ms
	for k := uint64(3); k <= 10; k++ {
		at := 110*ms + time.Duration(k)*10*us
		s.release(k, at, at)
	}
	s.release(11, 112*ms, 120*ms) // caught up: sleeps until request 11's slot

	want := map[int]time.Duration{
		0:  10*ms + 300*us, // overshoot is not charged
		1:  20 * ms,
		2:  30 * ms, // measured from its slot: the 80ms wait is charged
		3:  40 * ms,
		10: 110 * ms,
		11: 120 * ms, // no debt once the pacer had time to spare
	}
	for i, w := range want {
		if s.starts[i] != w {
			t.Errorf("start[%d] = %v, want %v", i, s.starts[i], w)
		}
	}
}

// At rates whose interval is shorter than timer overshoot the pacer is
// always "overdue"; that lateness is the generator's, not the server's.
func TestScheduleIgnoresTimerOvershootAtHighRate(t *testing.T) {
	us := time.Microsecond
	s := schedule{interval: 100 * us}
	s.release(0, 0, 600*us)
	s.release(1, 610*us, 610*us) // 10us handover, then overdue by 410us
	s.release(2, 615*us, 615*us) // 5us handover
	// Only the handovers (15us in all) are charged, not the 500us overshoot.
	for i, w := range []time.Duration{600 * us, 600 * us, 600 * us} {
		if s.starts[i] != w {
			t.Errorf("start[%d] = %v, want %v", i, s.starts[i], w)
		}
	}
}

func TestCountedPacerSchedule(t *testing.T) {
	p := newCountedPacer(200, 3)
	if p.interval != 5*time.Millisecond {
		t.Fatalf("interval %v", p.interval)
	}
	if _, stop := p.Pace(0, 3); !stop {
		t.Fatal("pacer should stop after total requests")
	}
	if fractional := newCountedPacer(0.5, 1); fractional.interval != 2*time.Second {
		t.Fatalf("0.5/s interval %v", fractional.interval)
	}
	if n := plannedRequests(0.1, time.Second); n != 1 {
		t.Fatalf("planned %d, want at least 1", n)
	}
}

func TestParseStatusSet(t *testing.T) {
	s := mustStatus(t, "2xx, 404,500-502")
	for code, want := range map[int]bool{200: true, 299: true, 300: false, 404: true, 405: false, 501: true, 503: false} {
		if s.has(code) != want {
			t.Errorf("has(%d) = %v", code, !want)
		}
	}
	for _, bad := range []string{"", "abc", "99", "700", "300-200", "2xx,foo", "6xx"} {
		if _, err := parseStatusSet(bad); err == nil {
			t.Errorf("parseStatusSet(%q) accepted", bad)
		}
	}
}

func TestBuildTargetsFromFileMergesHeaders(t *testing.T) {
	dir := t.TempDir()
	bodyPath := filepath.Join(dir, "order.json")
	if err := os.WriteFile(bodyPath, []byte(`{"items":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	file := "# comment\nGET http://127.0.0.1:1/v1/menu\n\nPOST http://127.0.0.1:1/v1/orders\nX-Idempotency-Key: abc\n@" + bodyPath + "\n"
	targetsPath := filepath.Join(dir, "targets.txt")
	if err := os.WriteFile(targetsPath, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set("Authorization", "Bearer t")
	tgts, err := buildTargets(targetSpec{TargetsFile: targetsPath, Method: "GET", Header: h,
		URLs: []string{"http://127.0.0.1:1/v1/auth/me"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tgts) != 3 {
		t.Fatalf("got %d targets", len(tgts))
	}
	get, post, extra := tgts[0], tgts[1], tgts[2]
	if get.Method != "GET" || get.Header.Get("Authorization") != "Bearer t" || get.Header.Get("X-Idempotency-Key") != "" {
		t.Fatalf("GET target %+v", get)
	}
	if post.Method != "POST" || string(post.Body) != `{"items":[]}` || post.Header.Get("X-Idempotency-Key") != "abc" ||
		post.Header.Get("Authorization") != "Bearer t" || post.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("POST target %+v", post)
	}
	if extra.URL != "http://127.0.0.1:1/v1/auth/me" {
		t.Fatalf("-url target %+v", extra)
	}

	if _, err := buildTargets(targetSpec{Header: h}); err == nil {
		t.Fatal("no targets accepted")
	}
}

func TestBuildTargetsKeepsExplicitContentType(t *testing.T) {
	h := http.Header{}
	h.Set("Content-Type", "text/plain")
	tgts, err := buildTargets(targetSpec{URLs: []string{"http://127.0.0.1:1/"}, Method: "POST", Body: []byte("x"), Header: h})
	if err != nil {
		t.Fatal(err)
	}
	if got := tgts[0].Header.Get("Content-Type"); got != "text/plain" {
		t.Fatalf("Content-Type %q", got)
	}
	var _ vegeta.Target = tgts[0]
}

// A fleet of tokens multiplies the targets, each request carrying its device's token, the
// devices in turn, and sockets take the tokens in turn as well.
func TestDeviceTokensMakeAFleet(t *testing.T) {
	tgts, err := buildTargets(targetSpec{
		URLs: []string{"http://127.0.0.1:1/v1/device/state"}, Method: "GET",
		Header: http.Header{"If-None-Match": {`"e"`}}, DeviceTokens: []string{"a", "b", "c"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tg := range tgts {
		got = append(got, tg.Header.Get("x-device-token")+tg.Header.Get("If-None-Match"))
	}
	if strings.Join(got, ",") != `a"e",b"e",c"e"` {
		t.Fatalf("targets %v", got)
	}
	h := &wsHolder{cfg: wsConfig{URL: "ws://127.0.0.1:1/v1/board/ws?token={token}", Tokens: []string{"a b", "c"}}}
	if h.connURL(0) != "ws://127.0.0.1:1/v1/board/ws?token=a+b" || h.connURL(3) != "ws://127.0.0.1:1/v1/board/ws?token=c" {
		t.Fatalf("socket URLs %s, %s", h.connURL(0), h.connURL(3))
	}
}
