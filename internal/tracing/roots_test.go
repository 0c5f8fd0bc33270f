package tracing_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/tracing"
)

func TestRootsNeverSampledReadsTheSampler(t *testing.T) {
	for _, c := range []struct {
		sampler, arg string
		never        bool
	}{
		{"", "", false},
		{"always_on", "", false},
		{"always_off", "", true},
		{"parentbased_always_off", "", true},
		{"parentbased_always_on", "", false},
		{"parentbased_traceidratio", "0", true},
		{"traceidratio", "0.0", true},
		{"parentbased_traceidratio", "0.01", false},
		{"parentbased_traceidratio", "", false}, // the SDK's default ratio is 1
		{"traceidratio", "not a number", false},
	} {
		env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_SAMPLER": c.sampler, "OTEL_TRACES_SAMPLER_ARG": c.arg}
		shutdown, on, err := tracing.Setup(t.Context(), func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		if err != nil || !on {
			t.Fatalf("%s %s: on %v, %v", c.sampler, c.arg, on, err)
		}
		if got := tracing.RootsNeverSampled(); got != c.never {
			t.Errorf("sampler %q arg %q: RootsNeverSampled %v, want %v", c.sampler, c.arg, got, c.never)
		}
		_ = shutdown(t.Context())
	}
}

// With a sampler that never records a trace begun here, a request without trace context gets no
// span at all (its webhook delivery carries no traceparent), while a caller's sampled trace is
// still followed through the server to the receiver.
func TestNoSpanForRequestsNoTraceCanRecord(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0))))
	tracing.Install(tp)
	tracing.SetRootsNeverSampled(true)
	t.Cleanup(func() { tracing.SetRootsNeverSampled(false); _ = tp.Shutdown(t.Context()) })

	env := apitest.NewTraced(t, func(c *config.Config) { c.WebhookAllowPrivate = true })
	owner, orgID := env.NewOwner("Harborview Kitchens")
	var mu sync.Mutex
	var received []http.Header
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		received = append(received, r.Header.Clone())
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer rcv.Close()
	var hook struct {
		ID uuid.UUID `json:"id"`
	}
	org := "orgs/" + orgID.String()
	env.Call(http.MethodPost, org+"/webhooks").Token(owner.AccessToken).
		JSON(map[string]any{"url": rcv.URL, "events": []string{"*"}}).Do().Expect(http.StatusCreated).Decode(&hook)
	test := org + "/webhooks/" + hook.ID.String() + "/test"

	env.Call(http.MethodPost, test).Token(owner.AccessToken).Do().Expect(http.StatusOK)
	traceID := "4bf92f3577b34da6a3ce929d0e0e4736"
	env.Call(http.MethodPost, test).Token(owner.AccessToken).
		Header("traceparent", "00-"+traceID+"-00f067aa0ba902b7-01").Do().Expect(http.StatusOK)

	mu.Lock()
	defer mu.Unlock()
	if len(received) != 2 {
		t.Fatalf("%d deliveries, want 2", len(received))
	}
	if tp := received[0].Get("Traceparent"); tp != "" {
		t.Errorf("delivery of a request without trace context carried traceparent %q", tp)
	}
	if tp := received[1].Get("Traceparent"); !strings.Contains(tp, traceID) || !strings.HasSuffix(tp, "-01") {
		t.Errorf("delivery of the sampled caller's request: traceparent %q, want trace %s sampled", tp, traceID)
	}
	spans := exp.GetSpans().Snapshots()
	if len(spans) == 0 {
		t.Fatal("the sampled caller's request recorded nothing")
	}
	for _, s := range spans {
		if s.SpanContext().TraceID().String() != traceID {
			t.Errorf("span %q outside the caller's trace", s.Name())
		}
	}
}
