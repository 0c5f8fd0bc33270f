package clinical

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/internal/metrics"
	"github.com/sous-app/sous/internal/tracing"
)

// phase opens the span of one phase of an HL7 body (parse, lock wait, load, apply, write).
func phase(ctx context.Context, name string) (context.Context, trace.Span) {
	return tracing.Tracer().Start(ctx, name)
}

// observeBatch counts a committed body's messages by outcome and its duration, parse to commit.
func observeBatch(results []api.Hl7MessageResult, took time.Duration) {
	var n [4]int
	for i := range results {
		for j, o := range metrics.HL7Outcomes {
			if string(results[i].Outcome) == o {
				n[j]++
			}
		}
	}
	for j, o := range metrics.HL7Outcomes {
		if n[j] > 0 {
			metrics.HL7Messages.WithLabelValues(o).Add(float64(n[j]))
		}
	}
	metrics.HL7BatchDuration.Observe(took.Seconds())
}
