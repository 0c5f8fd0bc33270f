package inventory

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/sous-app/sous/internal/metrics"
)

// endPosting counts a written posting by its ledger rows and closes its span.
func endPosting(span trace.Span, rows int, err error) {
	if err == nil {
		metrics.StockPostings.Inc()
		metrics.StockPostingSize.Observe(float64(rows))
	} else {
		span.SetStatus(codes.Error, "posting failed")
	}
	span.SetAttributes(attribute.Int("sous.stock.ledger_rows", rows))
	span.End()
}
