package tracing

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// SQLTracer makes a client span per SQL statement, a child of the span in the statement's
// context, named by its sqlc query name ("GetUserByEmail") or, for a statement written by hand,
// its first keyword ("SET"). The statement's text goes in db.query.text; parameter values are
// never recorded. Outside a recording span it does nothing at all, so a request that is not
// sampled pays one interface call per statement.
type SQLTracer struct{}

var _ interface {
	pgx.QueryTracer
	pgx.BatchTracer
} = SQLTracer{}

var dbSystem = semconv.DBSystemNamePostgreSQL

func (SQLTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx
	}
	name := QueryName(data.SQL)
	ctx, _ = Tracer().Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(dbSystem, semconv.DBOperationName(name), semconv.DBQueryText(data.SQL)))
	return ctx
}

func (SQLTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	end(span, data.Err, data.CommandTag.RowsAffected())
}

// batchKey marks a context whose span is a batch's, so its end is told apart from the caller's.
type batchKey struct{}

func (SQLTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx
	}
	n := 0
	if data.Batch != nil {
		n = data.Batch.Len()
	}
	ctx, _ = Tracer().Start(ctx, "batch", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(dbSystem, semconv.DBOperationName("BATCH"), attribute.Int("db.operation.batch.size", n)))
	return context.WithValue(ctx, batchKey{}, true)
}

// TraceBatchQuery records each statement of a batch as a child span of the batch; a batch's
// statements run pipelined, so each one's span marks when its result was read.
func (SQLTracer) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchQueryData) {
	if ctx.Value(batchKey{}) == nil || !trace.SpanFromContext(ctx).IsRecording() {
		return
	}
	name := QueryName(data.SQL)
	_, span := Tracer().Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(dbSystem, semconv.DBOperationName(name), semconv.DBQueryText(data.SQL)))
	end(span, data.Err, data.CommandTag.RowsAffected())
}

func (SQLTracer) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchEndData) {
	if ctx.Value(batchKey{}) == nil {
		return
	}
	span := trace.SpanFromContext(ctx)
	if span.IsRecording() {
		end(span, data.Err, -1)
	}
}

func end(span trace.Span, err error, rows int64) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "statement failed")
	} else if rows >= 0 {
		span.SetAttributes(attribute.Int64("db.response.returned_rows", rows))
	}
	span.End()
}

// QueryName is the sqlc query name of a statement ("-- name: GetUser :one" gives "GetUser"), or
// the first keyword of one written by hand, upper-cased: never anything the caller supplied.
func QueryName(sql string) string {
	s := strings.TrimLeft(sql, " \t\r\n")
	if rest, ok := strings.CutPrefix(s, "-- name: "); ok {
		if name, _, ok := strings.Cut(rest, " "); ok && name != "" {
			return name
		}
	}
	for s != "" && strings.HasPrefix(s, "--") { // other leading comments
		_, s, _ = strings.Cut(s, "\n")
		s = strings.TrimLeft(s, " \t\r\n")
	}
	word, _, _ := strings.Cut(s, " ")
	word, _, _ = strings.Cut(word, "\n")
	if word == "" {
		return "SQL"
	}
	return strings.ToUpper(word)
}
