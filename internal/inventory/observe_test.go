package inventory_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/metrics"
	"github.com/sous-app/sous/internal/tracing"
)

func postingCount(t *testing.T) uint64 {
	t.Helper()
	var m dto.Metric
	if err := metrics.StockPostingSize.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount()
}

// A stock posting is counted with its size, and traced: a "stock posting" span under the
// request's, its one statement (FlushPosting) under it.
func TestStockPostingIsCountedAndTraced(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	tracing.Install(tp)
	t.Cleanup(func() { tracing.Install(noop.NewTracerProvider()); _ = tp.Shutdown(t.Context()) })

	env := apitest.NewTraced(t)
	owner, org := env.NewOwner("Harborview Kitchens")
	k := &kitchen{t: t, env: env, owner: owner, org: org, site: env.Site(owner.AccessToken, org, "Main Kitchen")}
	lemons, cooler := k.lemons(), k.location(k.site, "Walk-in "+uuid.NewString()[:4])
	postings, sized := testutil.ToFloat64(metrics.StockPostings), postingCount(t)

	traceID := "6bf92f3577b34da6a3ce929d0e0e4738"
	k.call(http.MethodPost, "stock/adjust").Header("traceparent", "00-"+traceID+"-00f067aa0ba902b7-01").
		JSON(map[string]any{"siteId": k.site, "lines": []map[string]any{
			line(lemons, cooler, "3", "lb", "receipt"), line(lemons, cooler, "2", "each", "receipt"),
		}}).Do().Expect(http.StatusOK)

	if got := testutil.ToFloat64(metrics.StockPostings); got < postings+1 {
		t.Errorf("sous_stock_postings_total %v → %v", postings, got)
	}
	if got := postingCount(t); got < sized+1 {
		t.Errorf("sous_stock_posting_size count %v → %v", sized, got)
	}
	var posting sdktrace.ReadOnlySpan
	spans := exp.GetSpans().Snapshots()
	for _, s := range spans {
		if s.SpanContext().TraceID().String() == traceID && s.Name() == "stock posting" {
			posting = s
		}
	}
	if posting == nil {
		t.Fatal("no stock posting span in the request's trace")
	}
	flushed := false
	for _, s := range spans {
		if s.Parent().SpanID() == posting.SpanContext().SpanID() && s.Name() == "FlushPosting" {
			flushed = true
		}
	}
	rows := ""
	for _, a := range posting.Attributes() {
		if a.Key == "sous.stock.ledger_rows" {
			rows = a.Value.String()
		}
	}
	if !flushed || rows != "2" {
		t.Fatalf("posting span: FlushPosting child %v, ledger rows %q", flushed, rows)
	}
}
