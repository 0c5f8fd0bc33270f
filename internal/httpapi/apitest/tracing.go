package apitest

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/pg/pgtest"
	"github.com/sous-app/sous/internal/tracing"
)

// NewTraced is New with tracing on, as `sous serve` runs it when an OTLP endpoint is set: a
// server span per request and a span per SQL statement of the server's pool, made by the
// global tracer provider (the test installs one, e.g. over an in-memory exporter).
func NewTraced(t testing.TB, opts ...Option) *Env {
	t.Helper()
	return NewObserved(t, nil, opts...)
}

// NewObserved is NewTraced with the server's access log and every line of its logger (at every
// level, as JSON) written to logs, for a test that reads what an operator would (nil: no logs).
// logs must be safe for concurrent writes.
func NewObserved(t testing.TB, logs io.Writer, opts ...Option) *Env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := pg.ConnectWith(ctx, pgtest.NewURL(t), pg.Options{
		ConnectTimeout: pg.DefaultConnectTimeout, StatementTimeout: pg.DefaultStatementTimeout, Tracer: tracing.SQLTracer{},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return newEnvTraced(t, pool, Tuning{}, true, logs, opts...)
}
