package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/db/migrations"
	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/auth"
	"github.com/sous-app/sous/internal/clinical"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/gctune"
	"github.com/sous-app/sous/internal/httpapi"
	"github.com/sous-app/sous/internal/idempotency"
	"github.com/sous-app/sous/internal/inventory"
	"github.com/sous-app/sous/internal/logbuf"
	"github.com/sous-app/sous/internal/periodic"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/realtime"
	"github.com/sous-app/sous/internal/records"
	"github.com/sous-app/sous/internal/sensors"
	"github.com/sous-app/sous/internal/tasks"
	"github.com/sous-app/sous/internal/tracing"
	"github.com/sous-app/sous/internal/trayline"
	"github.com/sous-app/sous/internal/webhooks"
)

// accessLogFlush is the longest an access log line waits in its batch.
const accessLogFlush = 200 * time.Millisecond

// shutdownGrace is how long in-flight requests may finish after SIGINT/SIGTERM (once the
// readiness grace, SOUS_SHUTDOWN_GRACE, is over).
const shutdownGrace = 20 * time.Second

// serveFlags declares serve's flags: whether to skip the migrations.
func serveFlags(fs *flag.FlagSet) (noMigrate *bool) {
	return fs.Bool("no-migrate", false, "do not apply migrations on start (they must already be current)")
}

func serve(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	noMigrate := serveFlags(fs)
	if done, err := parseFlags(fs, args); done || err != nil {
		return err
	}
	cfg, logger, err := setup()
	if err != nil {
		return err
	}
	gctune.Apply()
	// Traces, when the OTEL_* variables ask for them; checked before anything starts.
	stopTracing, tracingOn, err := tracing.Setup(ctx, os.LookupEnv)
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := stopTracing(sctx); err != nil {
			logger.Warn("flushing traces at shutdown", "err", err.Error())
		}
	}()

	url, stopDB, err := database(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer stopDB()

	// Behind a transaction pooler, what needs a session of its own (the migrations' advisory
	// lock, LISTEN) goes to the database directly.
	direct := cmp.Or(cfg.DatabaseDirectURL, url)
	if !*noMigrate {
		if err := pg.Migrate(ctx, direct, migrations.FS); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	// Statements are bounded on the server by the longest request deadline, so none outlives
	// the request that gave up on it (the URL may set its own statement_timeout).
	dbOpts := pg.Options{
		ConnectTimeout:   cfg.DBConnectTimeout,
		StatementTimeout: max(cfg.RequestTimeout, cfg.HL7RequestTimeout),
		Pooler:           cfg.DatabaseDirectURL != "",
		Tracer:           sqlTracer(tracingOn),
	}
	pool, err := pg.ConnectWith(ctx, url, dbOpts)
	if err != nil {
		return err
	}
	defer pool.Close()
	// A lookup (the authorization read, /auth/me) is bounded on the server by the request's
	// deadline; see pg.Lookups.
	lookups, err := pg.OpenLookups(pool, dbOpts.Pooler, cfg.RequestTimeout)
	if err != nil {
		return err
	}
	defer lookups.Close()
	var listen *pgx.ConnConfig
	if cfg.DatabaseDirectURL != "" {
		dbOpts.Pooler = false
		directCfg, err := pg.PoolConfig(cfg.DatabaseDirectURL, dbOpts)
		if err != nil {
			return fmt.Errorf("SOUS_DATABASE_DIRECT_URL: %w", err)
		}
		listen = directCfg.ConnConfig
	}

	key, err := auth.LoadOrCreateSigningKey(cfg.JWTKeyFile, true)
	if err != nil {
		return fmt.Errorf("JWT signing key: %w", err)
	}

	// One realtime hub per process: it listens for device hints on its own connection and
	// fans them out to the WebSockets this replica holds. Stopping it closes those sockets with
	// 1001 (http.Server.Shutdown does not wait for hijacked connections), so devices reconnect
	// to a replica that stays.
	hub := realtime.NewHub(pool, logger)
	hub.SetLimits(realtime.Limits(cfg.Sockets))
	if listen != nil {
		hub.ListenVia(listen)
	}
	hubCtx, stopHub := context.WithCancel(context.WithoutCancel(ctx))
	hubDone := make(chan struct{})
	go func() {
		defer close(hubDone)
		if err := hub.Run(hubCtx); err != nil {
			logger.Error("realtime hub", "err", err)
		}
	}()
	defer func() {
		stopHub()
		<-hubDone
	}()

	// draining is set at SIGTERM: /readyz answers 503 from then on.
	var draining atomic.Bool
	// The access log is batched: a write per request would cost a system call each. Lines are
	// out within accessLogFlush, and all of them once the server has stopped.
	var accessLog io.Writer
	if cfg.AccessLog && cfg.LogLevel <= slog.LevelInfo {
		lines := logbuf.New(os.Stdout, accessLogFlush)
		defer lines.Close()
		accessLog = lines
	}
	e, err := httpapi.New(httpapi.Deps{
		Config: cfg, Logger: logger, AccessLog: accessLog, Pool: pool, Lookups: lookups, Clock: clock.Real{}, SigningKey: key, Hub: hub,
		Tracing: tracingOn, Draining: &draining,
	})
	if err != nil {
		return err
	}

	// The webhook dispatcher delivers committed events from this replica (any replica may deliver
	// any event). It stops claiming work when ctx ends and finishes the deliveries in flight.
	dispatcher := webhooks.NewDispatcher(webhooks.DispatcherOptions{
		Pool: pool, Clock: clock.Real{}, Logger: logger, AllowPrivate: cfg.WebhookAllowPrivate, Listen: listen,
	})
	dispatchCtx, stopDispatch := context.WithCancel(ctx)
	defer stopDispatch()
	dispatched := make(chan struct{})
	go func() {
		defer close(dispatched)
		_ = dispatcher.Run(dispatchCtx)
	}()

	// Background work no request triggers (alerts about silence and time, retention, abandoned
	// deliveries) runs on every replica; each task is idempotent, so replicas may overlap.
	periodicDone := make(chan struct{})
	go func() {
		defer close(periodicDone)
		periodic.NewRunner(clock.Real{}, logger,
			alerts.SensorTask(pool, clock.Real{}),
			clinical.NutritionRiskTask(pool, clock.Real{}),
			clinical.TrailExpiryTask(pool, clock.Real{}),
			dispatcher.MaintenanceTask(),
			idempotency.PruneTask(pool, clock.Real{}),
			auth.SecurityEventRetentionTask(pool, clock.Real{}),
			inventory.ExpiringLotsTask(pool, clock.Real{}),
			tasks.MissedTask(pool, clock.Real{}),
			records.LapseTask(pool, clock.Real{}),
			tasks.PlanTask(pool, clock.Real{}, logger),
			trayline.LateTask(pool, clock.Real{}),
			sensors.PartitionTask(pool, clock.Real{}, cfg.ReadingsRetentionMonths),
			sensors.OfflineTask(pool, clock.Real{}),
		).Run(dispatchCtx)
	}()

	srv := &http.Server{
		Addr:              cfg.Addr,
		Handler:           e,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ConnState:         httpapi.ClearWriteDeadlineWhenIdle,
	}
	if cfg.PprofAddr != "" {
		go servePprof(cfg.PprofAddr, logger)
	}
	if cfg.MetricsAddr != "" {
		stopMetrics, err := serveMetrics(cfg.MetricsAddr, lookups, pool, logger)
		if err != nil {
			return err
		}
		defer stopMetrics()
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() {
		b := readBuild()
		logger.Info("serving", "addr", ln.Addr().String(), "public_url", cfg.PublicURL, "docs", cfg.PublicURL+"/docs",
			"version", b.Version, "revision", b.Revision, "modified", b.Modified)
		// Requests net/http refuses before any handler (oversized or malformed headers) are
		// answered in the API's JSON error shape too.
		errc <- srv.Serve(httpapi.JSONErrorListener(ln))
	}()
	// stopDispatcher lets deliveries in flight finish (each is bounded by its 8-second timeout).
	stopDispatcher := func(sctx context.Context) {
		stopDispatch()
		select {
		case <-dispatched:
		case <-sctx.Done():
			logger.Warn("webhook deliveries still in flight at shutdown")
		}
		select {
		case <-periodicDone:
		case <-sctx.Done():
		}
	}
	select {
	case err := <-errc:
		sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		stopDispatcher(sctx)
		return err
	case <-ctx.Done():
	}
	// Behind a load balancer: stop being ready at once, and keep serving until its probes have
	// seen it, so no request is sent to a listener that has closed.
	draining.Store(true)
	logger.Info("shutting down: not ready, still serving during the grace", "grace", cfg.ShutdownGrace.String())
	if cfg.ShutdownGrace > 0 {
		select {
		case <-time.After(cfg.ShutdownGrace):
		case err := <-errc:
			sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
			defer cancel()
			stopDispatcher(sctx)
			return err
		}
	}
	logger.Info("shutting down: closing device sockets, draining requests and webhook deliveries")
	stopHub()
	<-hubDone
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	stopDispatcher(sctx)
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func migrate(ctx context.Context, args []string) error {
	if done, err := parseFlags(flag.NewFlagSet("migrate", flag.ContinueOnError), args); done || err != nil {
		return err
	}
	cfg, logger, err := setup()
	if err != nil {
		return err
	}
	url, stopDB, err := database(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer stopDB()
	if err := pg.Migrate(ctx, cmp.Or(cfg.DatabaseDirectURL, url), migrations.FS); err != nil {
		return err
	}
	logger.Info("migrations applied")
	return nil
}

func setup() (config.Config, *slog.Logger, error) {
	cfg, err := config.Env()
	if err != nil {
		return cfg, nil, err
	}
	// Lines logged with a request's context carry its trace_id and span_id (when tracing is on).
	logger := slog.New(tracing.LogHandler(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: cfg.LogLevel})))
	slog.SetDefault(logger)
	return cfg, logger, nil
}

// database returns the URL to use: DATABASE_URL, or a private cluster under the data directory
// that this process starts now and stops when the returned function is called.
func database(ctx context.Context, cfg config.Config, logger *slog.Logger) (string, func(), error) {
	if cfg.DatabaseURL != "" {
		return cfg.DatabaseURL, func() {}, nil
	}
	dir, err := filepath.Abs(filepath.Join(cfg.DataDir, "pgdata"))
	if err != nil {
		return "", nil, err
	}
	if ok, err := pg.ReachableByServer(dir); err != nil {
		return "", nil, err
	} else if !ok {
		// Run as root from a checkout under a private directory (root's home, typically): the
		// postgres user cannot reach the data directory there, so keep the cluster in a
		// directory of its own under the system temp dir, named after the checkout.
		sum := sha256.Sum256([]byte(dir))
		fallback := filepath.Join(os.TempDir(), "sous-"+hex.EncodeToString(sum[:6]), "pgdata")
		logger.Warn("the postgres user cannot reach the data directory; using another", "wanted", dir, "using", fallback)
		dir = fallback
	}
	logger.Info("DATABASE_URL not set: starting a private PostgreSQL cluster", "dir", dir)
	local, err := pg.StartLocal(ctx, pg.LocalOptions{Dir: dir, Logger: logger})
	if err != nil {
		return "", nil, fmt.Errorf("embedded PostgreSQL: %w", err)
	}
	stop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := local.Stop(sctx); err != nil {
			logger.Error("stopping embedded PostgreSQL", "err", err)
		}
	}
	return local.URL(), stop, nil
}

// servePprof exposes the profiler on its own address, for measuring where time goes under load.
func servePprof(addr string, logger *slog.Logger) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	logger.Info("pprof listening", "addr", addr)
	if err := http.ListenAndServe(addr, mux); err != nil {
		logger.Error("pprof", "err", err)
	}
}
