package httpapi

import (
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"

	"github.com/labstack/echo/v4"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/sous-app/sous/internal/tracing"
)

// BenchmarkObserve measures what the metrics and tracing middleware adds to a request, against
// the same route without it: metrics alone, and metrics with tracing configured but not sampled
// (a parent-based ratio of 0, the caller sending no traceparent).
func BenchmarkObserve(b *testing.B) {
	doc, err := LoadSpec()
	if err != nil {
		b.Fatal(err)
	}
	handler := func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]string{"id": "0192f3a4-0000-7000-8000-0000000000a1", "name": "Cook"})
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0))),
		sdktrace.WithSyncer(tracetest.NewInMemoryExporter()))
	for _, bc := range []struct {
		name    string
		obs     bool
		tracing bool
	}{
		{"without", false, false},
		{"metrics", true, false},
		{"metrics+unsampled-tracing", true, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.tracing {
				tracing.Install(tp)
			}
			e := echo.New()
			if bc.obs {
				e.Use(newObserver(doc, bc.tracing).middleware)
			}
			e.GET(BasePath+"/auth/me", handler)
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodGet, BasePath+"/auth/me", nil)
				rec := httptest.NewRecorder()
				e.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatal(rec.Code)
				}
			}
			// CPU time, unlike wall time, is barely moved by the other processes of a shared
			// machine: the comparison that matters here.
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the process's user and system CPU time so far, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
