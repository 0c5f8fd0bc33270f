package tracing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/sous-app/sous/internal/tracing"
)

func TestQueryName(t *testing.T) {
	for sql, want := range map[string]string{
		"-- name: GetUserByEmail :one\nSELECT * FROM users WHERE email = $1": "GetUserByEmail",
		"-- name: FlushPosting :one\nWITH x AS (SELECT 1) SELECT 1":          "FlushPosting",
		"SET LOCAL synchronous_commit = off":                                 "SET",
		"  rollback to savepoint ingest":                                     "ROLLBACK",
		"-- a comment\nSELECT 1":                                             "SELECT",
		"":                                                                   "SQL",
	} {
		if got := tracing.QueryName(sql); got != want {
			t.Errorf("QueryName(%q) = %q, want %q", sql, got, want)
		}
	}
}

// A line logged with a span's context carries its trace_id and span_id; one without, neither.
func TestLogHandlerStampsTraceIDs(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(tracing.LogHandler(slog.NewJSONHandler(&buf, nil))).With("app", "sous")
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid}))
	logger.InfoContext(ctx, "request")
	logger.InfoContext(context.Background(), "request")
	var lines []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, m)
	}
	if lines[0]["trace_id"] != tid.String() || lines[0]["span_id"] != sid.String() || lines[0]["app"] != "sous" {
		t.Fatalf("with a span: %v", lines[0])
	}
	if _, ok := lines[1]["trace_id"]; ok {
		t.Fatalf("without a span: %v", lines[1])
	}
}

func TestCheckRefusesMalformedVariables(t *testing.T) {
	for k, v := range map[string]string{
		"OTEL_TRACES_SAMPLER":                "sometimes",
		"OTEL_EXPORTER_OTLP_ENDPOINT":        "collector:4318",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "grpc://collector:4317",
		"OTEL_EXPORTER_OTLP_PROTOCOL":        "grpc",
		"OTEL_TRACES_EXPORTER":               "zipkin",
	} {
		lookup := func(name string) (string, bool) {
			if name == k {
				return v, true
			}
			return "", false
		}
		if err := tracing.Check(lookup); err == nil {
			t.Errorf("%s=%q accepted", k, v)
		}
	}
	on := func(name string) (string, bool) {
		return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}[name], true
	}
	if tracing.Check(on) != nil || !tracing.Enabled(on) {
		t.Fatal("a plain endpoint is refused or off")
	}
	if tracing.Enabled(func(string) (string, bool) { return "", false }) {
		t.Fatal("on without an endpoint")
	}
}
