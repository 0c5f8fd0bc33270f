package webhooks

import (
	"context"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/metrics"
	"github.com/sous-app/sous/internal/tracing"
	"github.com/sous-app/sous/internal/webhooks/delivery"
)

// RegisterOutboxMetrics adds the outbox backlog gauges, read from the database at each scrape;
// the returned function removes them.
func RegisterOutboxMetrics(pool *pgxpool.Pool, logger *slog.Logger) (unregister func(), err error) {
	return metrics.RegisterOutbox(func(ctx context.Context) (int64, float64, error) {
		row, err := db.New(pool).OutboxBacklog(ctx)
		return row.Pending, row.OldestAgeSeconds, err
	}, logger)
}

// startDispatch opens the span of one outbox dispatch round that claimed events.
func startDispatch(ctx context.Context, events int) (context.Context, trace.Span) {
	return tracing.Tracer().Start(ctx, "outbox dispatch", trace.WithAttributes(attribute.Int("sous.outbox.events", events)))
}

// deliveryResult is the metric label of one attempt's outcome.
func deliveryResult(res delivery.Result) string {
	switch {
	case res.Delivered:
		return metrics.WebhookDelivered
	case res.Status != 0:
		return metrics.WebhookFailed
	default:
		return metrics.WebhookUnreachable
	}
}

// startDelivery opens the span of one delivery attempt; the client's request carries its
// traceparent to the receiver. The event name is a fixed catalogue; no id is recorded.
func startDelivery(ctx context.Context, event string) (context.Context, trace.Span) {
	return tracing.Tracer().Start(ctx, "webhook delivery", trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithAttributes(attribute.String("sous.webhook.event", event)))
}

// observeDelivery counts the attempt and closes its span.
func observeDelivery(span trace.Span, res delivery.Result) {
	result := deliveryResult(res)
	metrics.WebhookDeliveries.WithLabelValues(result).Inc()
	metrics.WebhookDeliveryDuration.Observe(res.Duration.Seconds())
	if span.IsRecording() {
		span.SetAttributes(attribute.String("sous.webhook.result", result))
		if res.Status != 0 {
			span.SetAttributes(attribute.Int("http.response.status_code", res.Status))
		}
		if !res.Delivered {
			span.SetStatus(codes.Error, res.Error)
		}
	}
	span.End()
}
