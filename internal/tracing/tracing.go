// Package tracing sets up OpenTelemetry traces from the standard OTEL_* variables and holds the
// small pieces the rest of the server traces with: the tracer, the span names, the pgx tracer
// that names each SQL statement's span after its sqlc query, and the log handler that stamps
// trace and span ids on log lines.
//
// Tracing is off unless OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set
// (and OTEL_SDK_DISABLED is not true): off, the global provider stays OpenTelemetry's no-op one
// and nothing on the request path does tracing work.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// instrumentation names the tracer of every span the server makes.
const instrumentation = "github.com/sous-app/sous"

// DefaultServiceName is service.name when neither OTEL_SERVICE_NAME nor
// OTEL_RESOURCE_ATTRIBUTES names the service.
const DefaultServiceName = "sous"

// Tracer is the server's tracer, from whatever provider is global (the no-op one when off).
// While RootsNeverSampled, a span asked for outside any trace is not started at all.
func Tracer() trace.Tracer { return rootAwareTracer{otel.Tracer(instrumentation)} }

// rootAwareTracer skips the spans that could only be roots of traces the sampler drops: the SDK
// would give each new ids, record nothing and still hand its context to a webhook's receiver.
type rootAwareTracer struct{ trace.Tracer }

func (t rootAwareTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	if rootsNeverSampled.Load() && !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx, trace.SpanFromContext(ctx)
	}
	return t.Tracer.Start(ctx, name, opts...)
}

// samplers are the OTEL_TRACES_SAMPLER values the SDK reads (the jaeger and xray ones need
// packages that are not built in).
var samplers = []string{
	"always_on", "always_off", "traceidratio",
	"parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio",
}

// Enabled reports whether the environment asks for traces: an OTLP endpoint is set and the SDK
// is not disabled.
func Enabled(lookup func(string) (string, bool)) bool {
	get := func(k string) string { v, _ := lookup(k); return strings.TrimSpace(v) }
	if strings.EqualFold(get("OTEL_SDK_DISABLED"), "true") || strings.EqualFold(get("OTEL_TRACES_EXPORTER"), "none") {
		return false
	}
	return get("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Check validates the tracing variables at start, like every other setting, so a typo stops
// the process with the variable's name instead of silently sampling nothing.
func Check(lookup func(string) (string, bool)) error {
	get := func(k string) string { v, _ := lookup(k); return strings.TrimSpace(v) }
	if s := get("OTEL_TRACES_SAMPLER"); s != "" && !contains(samplers, s) {
		return fmt.Errorf("OTEL_TRACES_SAMPLER=%q: not one of %s", s, strings.Join(samplers, ", "))
	}
	if e := get("OTEL_TRACES_EXPORTER"); e != "" && e != "otlp" && e != "none" {
		return fmt.Errorf("OTEL_TRACES_EXPORTER=%q: only otlp (OTLP over HTTP) or none", e)
	}
	if p := get("OTEL_EXPORTER_OTLP_PROTOCOL"); p != "" && p != "http/protobuf" {
		return fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%q: only http/protobuf is built in", p)
	}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		if v := get(k); v != "" && !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") {
			return fmt.Errorf("%s=%q: not an http:// or https:// URL", k, v)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Setup installs the global tracer provider and the W3C propagators when the environment asks
// for traces, and returns the function that flushes and stops it (a no-op when off). The
// exporter, sampler and resource read their OTEL_* variables themselves, as the SDK defines.
func Setup(ctx context.Context, lookup func(string) (string, bool)) (shutdown func(context.Context) error, enabled bool, err error) {
	if err := Check(lookup); err != nil {
		return nil, false, err
	}
	if !Enabled(lookup) {
		return func(context.Context) error { return nil }, false, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	res, err := Resource(ctx)
	if err != nil {
		return nil, false, err
	}
	// No sampler option: the SDK takes OTEL_TRACES_SAMPLER and _ARG, default parent-based
	// always-on, so a caller's sampled traceparent is continued and an unsampled one is not.
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	Install(tp)
	SetRootsNeverSampled(neverSamplesRoots(lookup))
	return tp.Shutdown, true, nil
}

// rootsNeverSampled: the configured sampler never records a trace that starts in this process.
var rootsNeverSampled atomic.Bool

// SetRootsNeverSampled records whether the sampler can record a trace begun here (Setup reads it
// from OTEL_TRACES_SAMPLER; tests set it beside the provider they install).
func SetRootsNeverSampled(never bool) { rootsNeverSampled.Store(never) }

// RootsNeverSampled reports that no trace begun in this process can be recorded: the sampler is
// always_off, parentbased_always_off, or a trace-id ratio of 0 (tracing kept configured so that a
// caller's sampled traceparent is still followed). A request that brings no trace context then
// needs no span at all: the SDK would make one that records nothing and is seen by no one, and
// starting it was most of what unsampled tracing cost a request.
func RootsNeverSampled() bool { return rootsNeverSampled.Load() }

// neverSamplesRoots reads OTEL_TRACES_SAMPLER and _ARG as the SDK does (an argument that does not
// parse is the SDK's default ratio, 1).
func neverSamplesRoots(lookup func(string) (string, bool)) bool {
	get := func(k string) string { v, _ := lookup(k); return strings.TrimSpace(v) }
	switch get("OTEL_TRACES_SAMPLER") {
	case "always_off", "parentbased_always_off":
		return true
	case "traceidratio", "parentbased_traceidratio":
		ratio, err := strconv.ParseFloat(get("OTEL_TRACES_SAMPLER_ARG"), 64)
		return err == nil && ratio <= 0
	}
	return false
}

// Install makes tp the global provider with the W3C trace-context and baggage propagators
// (tests install one over an in-memory exporter).
func Install(tp trace.TracerProvider) {
	SetRootsNeverSampled(false)
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
}

// Resource describes this process: service.name "sous" unless OTEL_SERVICE_NAME or
// OTEL_RESOURCE_ATTRIBUTES say otherwise (the environment wins the merge).
func Resource(ctx context.Context) (*resource.Resource, error) {
	env, err := resource.New(ctx, resource.WithFromEnv(), resource.WithTelemetrySDK(), resource.WithProcessRuntimeVersion())
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	base := resource.NewSchemaless(semconv.ServiceName(DefaultServiceName))
	return resource.Merge(base, env)
}

// Attr is a shorthand for the attributes the domain spans carry (counts and names, never ids).
func Attr(key string, v int) attribute.KeyValue { return attribute.Int(key, v) }
