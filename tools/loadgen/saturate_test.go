package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// A server with two slots of 10ms each can complete at most 200 requests a
// second whatever the machine, so any rate above 200/0.95 must fail the
// throughput criterion. That bound is what the test relies on, not timing.
func TestSaturateFindsFiniteRate(t *testing.T) {
	slots := make(chan struct{}, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case slots <- struct{}{}:
		case <-r.Context().Done():
			return
		}
		time.Sleep(10 * time.Millisecond)
		<-slots
	}))
	defer srv.Close()

	cfg := baseConfig(t, srv.URL)
	cfg.Timeout = 2 * time.Second
	sc := defaultSaturateConfig()
	sc.StartRate, sc.MaxRate = 50, 3200
	sc.StepDuration, sc.Cooldown = 400*time.Millisecond, 0
	// Generous: only the queueing of an overloaded step should breach it.
	sc.SLO = 150 * time.Millisecond
	sc.Precision = 0.25
	sc.MaxSteps = 8

	var seen []Step
	res := saturate(context.Background(), cfg, sc, func(s Step) { seen = append(seen, s) })

	if !res.Saturated || res.FirstFailing == 0 {
		t.Fatalf("expected saturation, got %+v", res)
	}
	if res.MaxRate <= 0 || res.MaxRate >= 400 {
		t.Fatalf("max sustained rate %v, want within (0, 400)", res.MaxRate)
	}
	if res.FirstFailing <= res.MaxRate {
		t.Fatalf("first failing %v not above max %v", res.FirstFailing, res.MaxRate)
	}
	if res.Best == nil || res.Best.TargetRate != res.MaxRate || res.Throughput != res.Best.Throughput {
		t.Fatalf("best report does not match max rate: %+v", res.Best)
	}
	if len(seen) != len(res.Steps) || len(seen) < 3 {
		t.Fatalf("onStep saw %d of %d steps", len(seen), len(res.Steps))
	}
	// Doubling first, and every failing step says why.
	if seen[0].Rate != 50 || seen[1].Rate != 100 {
		t.Fatalf("steps %v, %v should double from 50", seen[0].Rate, seen[1].Rate)
	}
	for _, s := range res.Steps {
		if !s.Pass && len(s.Reasons) == 0 {
			t.Fatalf("failing step %d has no reasons", s.N)
		}
	}

	var out bytes.Buffer
	writeSaturation(&out, res, sc)
	if !strings.Contains(out.String(), "max sustained rate") {
		t.Fatalf("summary missing result:\n%s", out.String())
	}
}

func TestSaturateReportsUnsaturated(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	cfg := baseConfig(t, srv.URL)
	sc := defaultSaturateConfig()
	sc.StartRate, sc.MaxRate = 20, 40
	sc.StepDuration, sc.Cooldown = 100*time.Millisecond, 0
	sc.SLO = time.Second
	res := saturate(context.Background(), cfg, sc, nil)
	if res.Saturated || res.MaxRate != 40 || len(res.Steps) != 2 {
		t.Fatalf("want two passing steps up to the cap, got %+v", res)
	}
	var out bytes.Buffer
	writeSaturation(&out, res, sc)
	if !strings.Contains(out.String(), "not saturated") {
		t.Fatalf("summary should say the cap was reached:\n%s", out.String())
	}
}

func TestJudge(t *testing.T) {
	sc := defaultSaturateConfig()
	good := &Report{Requests: 1000, TargetRate: 100, AttemptedRate: 100, Throughput: 99, SuccessRatio: 1,
		Latency: Latencies{P99: 10 * time.Millisecond}}
	if pass, why := judge(good, sc); !pass {
		t.Fatalf("good step failed: %v", why)
	}
	cases := map[string]func(r *Report){
		"errors":     func(r *Report) { r.SuccessRatio = 0.99 },
		"throughput": func(r *Report) { r.Throughput = 94 },
		"SLO":        func(r *Report) { r.Latency.P99 = 51 * time.Millisecond },
		"early":      func(r *Report) { r.Aborted = "x" },
		"responses":  func(r *Report) { r.Requests = 0 },
	}
	for want, mutate := range cases {
		r := *good
		mutate(&r)
		pass, why := judge(&r, sc)
		if pass || !strings.Contains(strings.Join(why, ";"), want) {
			t.Errorf("%s: pass=%v reasons=%v", want, pass, why)
		}
	}
	slowGen := *good
	slowGen.Throughput, slowGen.AttemptedRate = 50, 50
	if _, why := judge(&slowGen, sc); !strings.Contains(strings.Join(why, ";"), "generator only sent") {
		t.Errorf("generator shortfall not flagged: %v", why)
	}
}

// The abort budget must never end a step that could still pass.
func TestStepAbortBudget(t *testing.T) {
	sc := defaultSaturateConfig()
	abort := stepAbort(500, sc)
	c := &collector{}
	c.failures = 5
	if abort(c) != "" {
		t.Fatal("5 errors of 500 is exactly 1%: the verdict fails, but abort waits for proof")
	}
	c.failures = 6
	if abort(c) == "" {
		t.Fatal("6 errors of 500 planned must abort")
	}
	c.failures, c.overSLO = 0, 6
	if abort(c) == "" {
		t.Fatal("6 of 500 over SLO forces p99 over SLO")
	}
}

func TestRoundRate(t *testing.T) {
	for in, want := range map[float64]float64{150.4: 150, 3.14: 3.1, 0.01: 0.1, 12.5: 13} {
		if got := roundRate(in); got != want {
			t.Errorf("roundRate(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestRotatedContinuesThroughTheTargets(t *testing.T) {
	ts := []int{0, 1, 2, 3, 4}
	for _, tt := range []struct {
		sent uint64
		want []int
	}{{0, []int{0, 1, 2, 3, 4}}, {2, []int{2, 3, 4, 0, 1}}, {7, []int{2, 3, 4, 0, 1}}} {
		if got := rotated(ts, tt.sent); !slices.Equal(got, tt.want) {
			t.Errorf("after %d sent: %v, want %v", tt.sent, got, tt.want)
		}
	}
}
