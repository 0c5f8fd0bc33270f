package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func sampleReport() *Report {
	ms := time.Millisecond
	return &Report{
		Mode:          "constant",
		Targets:       []string{"GET http://127.0.0.1:8080/v1/auth/me"},
		TargetRate:    1000,
		Planned:       30000,
		Requests:      30000,
		Successes:     29970,
		AttemptedRate: 999.97,
		Throughput:    998.9,
		SuccessRatio:  0.999,
		Expect:        "2xx",
		SendDuration:  29999 * ms,
		TotalDuration: 30001 * ms,
		StatusCodes:   map[string]uint64{"200": 29970, "401": 20, "0": 10},
		Latency:       Latencies{Min: 180 * time.Microsecond, Mean: 900 * time.Microsecond, P50: 700 * time.Microsecond, P90: 1200 * time.Microsecond, P99: 4 * ms, P999: 12 * ms, Max: 1500 * ms},
		RawLatency:    Latencies{Min: 180 * time.Microsecond, P50: 690 * time.Microsecond, Max: 1400 * ms},
		Slip:          Latencies{P50: 400 * time.Microsecond, P99: time.Millisecond, Max: 3 * ms},
		Errors: []ErrorSample{
			{Error: "HTTP 401 Unauthorized", Count: 20, Example: `{"error":"unauthorized"}`},
			{Error: "context deadline exceeded", Count: 10},
		},
	}
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	writeTable(&b, sampleReport())
	out := b.String()
	for _, want := range []string{
		"GET http://127.0.0.1:8080/v1/auth/me",
		"30000 of 30000 planned",
		"target 1000.0/s, attempted 1000.0/s, throughput 998.9/s",
		"99.90% (29970/30000, expecting 2xx)",
		"0 (no response): 10, 200: 29970, 401: 20",
		"p99.9",
		"0.700ms", "4.00ms", "12.00ms", "1500.0ms",
		"Schedule slip: p50 0.400ms, p99 1.00ms, max 3.00ms",
		"     20  HTTP 401 Unauthorized",
		`e.g. {"error":"unauthorized"}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "WebSocket") {
		t.Error("WebSocket section printed without WebSocket load")
	}
}

func TestWriteTableAlignsLatencyColumns(t *testing.T) {
	var b bytes.Buffer
	writeTable(&b, sampleReport())
	var rows []string
	for line := range strings.SplitSeq(b.String(), "\n") {
		if strings.Contains(line, "corrected") || strings.HasPrefix(strings.TrimSpace(line), "Latency") {
			rows = append(rows, line)
		}
	}
	if len(rows) != 3 {
		t.Fatalf("latency rows %q", rows)
	}
	if len(rows[0]) != len(rows[1]) || len(rows[1]) != len(rows[2]) {
		t.Fatalf("latency rows not aligned:\n%s", strings.Join(rows, "\n"))
	}
}

func TestReportJSON(t *testing.T) {
	r := sampleReport()
	r.WebSocket = &WSReport{URL: "ws://127.0.0.1:8080/v1/ws", Requested: 2, Opened: 2, StillConnected: 2, Frames: 7, Errors: []ErrorSample{}}
	var b bytes.Buffer
	if err := writeJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	lat := got["latency_ms"].(map[string]any)
	if lat["p99"] != 4.0 || lat["p99.9"] != 12.0 || lat["p50"] != 0.7 || lat["max"] != 1500.0 {
		t.Fatalf("latency_ms %v", lat)
	}
	if got["requests"] != 30000.0 || got["success_ratio"] != 0.999 || got["send_seconds"] != 29.999 {
		t.Fatalf("fields %v", got)
	}
	if codes := got["status_codes"].(map[string]any); codes["401"] != 20.0 {
		t.Fatalf("status codes %v", codes)
	}
	if ws := got["websocket"].(map[string]any); ws["frames"] != 7.0 || ws["still_connected"] != 2.0 {
		t.Fatalf("websocket %v", ws)
	}
	if _, ok := got["SendDuration"]; ok {
		t.Fatal("raw nanosecond durations leaked into JSON")
	}
}

func TestSummarizeNearestRank(t *testing.T) {
	ds := make([]time.Duration, 0, 1000)
	for i := 1000; i >= 1; i-- { // unsorted input
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	l := summarize(ds)
	ms := time.Millisecond
	want := Latencies{Min: ms, Mean: 500500 * time.Microsecond, P50: 500 * ms, P90: 900 * ms, P99: 990 * ms, P999: 999 * ms, Max: 1000 * ms}
	if l != want {
		t.Fatalf("got %+v\nwant %+v", l, want)
	}
	if ds[0] != 1000*ms {
		t.Fatal("summarize must not reorder its input")
	}
	if (summarize(nil) != Latencies{}) {
		t.Fatal("empty input")
	}
	if one := summarize([]time.Duration{5}); one.P999 != 5 || one.P50 != 5 {
		t.Fatalf("single sample %+v", one)
	}
}

func TestFmtDur(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                        "0",
		250 * time.Microsecond:   "0.250ms",
		12345 * time.Microsecond: "12.35ms",
		1500 * time.Millisecond:  "1500.0ms",
	} {
		if got := fmtDur(d); got != want {
			t.Errorf("fmtDur(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestStepLineAligned(t *testing.T) {
	var b bytes.Buffer
	writeStepHeader(&b)
	writeStepLine(&b, Step{N: 12, Rate: 1600, Pass: false, Reasons: []string{"p99 80.00ms > SLO 50.00ms"},
		Report: &Report{AttemptedRate: 1600, Throughput: 1500, SuccessRatio: 1, Latency: Latencies{P50: time.Millisecond, P99: 80 * time.Millisecond, P999: 120 * time.Millisecond}}})
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("lines %q", lines)
	}
	h, l := lines[0], lines[1]
	if strings.Index(h, "verdict") != strings.Index(l, "FAIL") {
		t.Fatalf("verdict column misaligned:\n%s\n%s", h, l)
	}
	if !strings.Contains(l, "FAIL: p99 80.00ms > SLO 50.00ms") {
		t.Fatalf("line %q", l)
	}
}
