package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/internal/metrics"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/tracing"
	"github.com/sous-app/sous/internal/webhooks"
)

// serveMetrics serves GET /metrics on its own listener (never the API's port: what it shows is
// for the operator's monitoring, not the API's clients). The address is bound now, so a busy
// port stops the start; the returned function closes it.
func serveMetrics(addr string, lookups *pg.Lookups, pool *pgxpool.Pool, logger *slog.Logger) (func(), error) {
	b := readBuild()
	metrics.SetBuild(b.Version, b.Revision)
	unregisterPool, err := metrics.RegisterPool(lookups.Pools()...)
	if err != nil {
		return nil, err
	}
	unregisterOutbox, err := webhooks.RegisterOutboxMetrics(pool, logger)
	if err != nil {
		unregisterPool()
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		unregisterPool()
		unregisterOutbox()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 2 * time.Minute}
	logger.Info("metrics listening", "addr", ln.Addr().String())
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics listener", "err", err.Error())
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		unregisterPool()
		unregisterOutbox()
	}, nil
}

// sqlTracer is the pool's statement tracer: SQL spans when tracing is on, nothing otherwise.
func sqlTracer(on bool) pgx.QueryTracer {
	if !on {
		return nil
	}
	return tracing.SQLTracer{}
}
