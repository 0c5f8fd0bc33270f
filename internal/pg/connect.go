package pg

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Defaults of Options, also what Connect uses.
const (
	// DefaultConnectTimeout bounds one connection attempt to one host. pgx tries the hosts of a
	// multi-host URL in order, so without it a host whose port accepts but never answers (a frozen
	// primary) would hold every new connection until the operating system gives up.
	DefaultConnectTimeout = 2 * time.Second
	// DefaultStatementTimeout bounds a statement on the server, so work the client gave up on
	// (its request's deadline passed) does not go on holding locks.
	DefaultStatementTimeout = 60 * time.Second
)

// Keepalive settings of the pool's TCP connections: a primary that vanished (host lost, network
// cut) is noticed within about idle + interval × count, even by a connection nobody uses.
const (
	keepaliveIdle     = 5 * time.Second
	keepaliveInterval = 2 * time.Second
	keepaliveCount    = 3
)

// Options tune the pool's sessions. Whatever the connection string sets itself wins.
type Options struct {
	// ConnectTimeout bounds each host's connection attempt (connect_timeout in the URL wins).
	ConnectTimeout time.Duration
	// StatementTimeout is the sessions' statement_timeout and
	// idle_in_transaction_session_timeout (either in the URL wins for itself).
	StatementTimeout time.Duration
	// Pooler says the URL leads to a transaction pooler (PgBouncer with pool_mode=transaction):
	// consecutive transactions may reach different server sessions, so statements are sent
	// without named prepared statements (pgx's cache_describe mode, unless the URL sets
	// default_query_exec_mode: the parameter and result types are asked once per connection,
	// each execution parses the statement again in the same round trip), and no session
	// settings travel in the startup message (PgBouncer refuses parameters it does not know):
	// plan_cache_mode, statement_timeout and idle_in_transaction_session_timeout are then the
	// database role's (ALTER ROLE … SET; docs/operations/scaling.md).
	Pooler bool
	// Tracer, when set, is told of every statement (the SQL spans of tracing).
	Tracer pgx.QueryTracer
}

// DefaultOptions are the Options of Connect.
func DefaultOptions() Options {
	return Options{ConnectTimeout: DefaultConnectTimeout, StatementTimeout: DefaultStatementTimeout}
}

// Connect is ConnectWith and DefaultOptions.
func Connect(ctx context.Context, url string) (*pgxpool.Pool, error) {
	return ConnectWith(ctx, url, DefaultOptions())
}

// ConnectWith opens a connection pool for url (a postgres:// URL or keyword/value DSN, one host
// or several; pool_* parameters are honoured) and pings the server before returning, so a bad URL
// or an unreachable server fails at start-up rather than on the first request.
func ConnectWith(ctx context.Context, url string, o Options) (*pgxpool.Pool, error) {
	cfg, err := PoolConfig(url, o)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pg: create pool: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pg: ping %s@%s:%d/%s: %w",
			cfg.ConnConfig.User, cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database, err)
	}
	return pool, nil
}

// PoolConfig parses url and applies the pool's defaults and o. Its connections are made by a
// dialer of its own (pgx's keeps the operating system's keepalive timing, minutes; see dialer),
// which every connection made from the returned ConnConfig shares.
func PoolConfig(url string, o Options) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pg: parse connection string: %w", err)
	}
	applyPoolDefaults(cfg, url)
	applySessionDefaults(&cfg.ConnConfig.Config, url, o)
	if o.Pooler && !strings.Contains(url, "default_query_exec_mode") {
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	}
	if o.Tracer != nil {
		cfg.ConnConfig.Tracer = o.Tracer
	}
	// Every connection, the pool's and those made from its config (the listeners of the
	// realtime hub and the webhook dispatcher), goes through the fence's dialer; see fence.
	f := newFence(cfg.ConnConfig.ConnectTimeout)
	cfg.ConnConfig.DialFunc = newDialer(cfg.ConnConfig.ConnectTimeout, f).DialContext
	// A connection whose query was cancelled by its deadline is closed by pgx, so the pool never
	// hands it out again; PingTimeout below does the same for one found dead on acquire. Either
	// makes the fence check the server.
	cfg.PingTimeout = cfg.ConnConfig.ConnectTimeout
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		if err := registerUUID(ctx, c); err != nil {
			return err
		}
		registerTimestamptzPlans(c.TypeMap())
		if err := registerDecimal(ctx, c); err != nil {
			return err
		}
		registerNumericPlans(c.TypeMap())
		return nil
	}
	cfg.PrepareConn = func(_ context.Context, c *pgx.Conn) (bool, error) {
		return f.prepareConn(c), nil
	}
	cfg.BeforeClose = func(c *pgx.Conn) {
		f.beforeClose(c)
		dropAbandoned(c)
	}
	return cfg, nil
}

// dropAbandoned closes the socket of a connection pgx gave up on (a query timed out or failed
// mid-way). pgx would first drain it, waiting up to 15 seconds for the server to hang up, and
// the pool holds the connection's slot until then: a server that froze would keep the pool
// starved of connections for that long, just when it should reconnect elsewhere.
func dropAbandoned(c *pgx.Conn) {
	if c.IsClosed() {
		_ = c.PgConn().Conn().Close()
	}
}

func applyPoolDefaults(cfg *pgxpool.Config, connString string) {
	// pgx's default (max(4, NumCPU)) starves a request-serving process whose
	// handlers mostly wait on I/O; scale with the CPUs we may actually use
	// unless the operator chose a size explicitly.
	if !strings.Contains(connString, "pool_max_conns") {
		cfg.MaxConns = int32(4 * runtime.GOMAXPROCS(0))
	}
	// Detect connections killed behind our back (server restart, failover,
	// idle-timeout in a proxy) before a request trips over them.
	if !strings.Contains(connString, "pool_health_check_period") {
		cfg.HealthCheckPeriod = 30 * time.Second
	}
	if !strings.Contains(connString, "pool_max_conn_idle_time") {
		cfg.MaxConnIdleTime = 5 * time.Minute
	}
	if !strings.Contains(connString, "pool_max_conn_lifetime") {
		cfg.MaxConnLifetime = time.Hour
		cfg.MaxConnLifetimeJitter = 5 * time.Minute
	}
}

// applySessionDefaults bounds connecting and the server-side life of a statement, where the
// connection string does not say otherwise.
func applySessionDefaults(cfg *pgconn.Config, connString string, o Options) {
	explicit := func(name string) bool { return strings.Contains(connString, name) }
	if cfg.ConnectTimeout == 0 && !explicit("connect_timeout") && o.ConnectTimeout > 0 {
		cfg.ConnectTimeout = o.ConnectTimeout
	}
	if o.Pooler {
		return // the role's settings apply; see Options.Pooler
	}
	// A prepared statement's generic plan is made once per connection, after its fifth run, for
	// the table sizes of that moment, and kept until the schema changes or the table is
	// analysed. On a new database that moment is when the tables are nearly empty, where every
	// index that starts with org_id costs the same: a probe by (org_id, site_id, mrn) was frozen
	// onto the (org_id, id) key and read the organization's whole table for every MRN, seconds a
	// statement once the census had grown (docs/benchmarks/history.md, "Plans frozen on empty tables").
	// Planning every execution for its parameters and the tables' current size costs tens of
	// microseconds a statement and never goes stale. The exceptions are the unique-index lookups
	// listed in PlanStable, which Lookups runs with a generic plan set for their own transaction.
	if _, set := cfg.RuntimeParams["plan_cache_mode"]; !set && !explicit("plan_cache_mode") {
		cfg.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	}
	if o.StatementTimeout > 0 {
		ms := strconv.FormatInt(o.StatementTimeout.Milliseconds(), 10)
		for _, name := range []string{"statement_timeout", "idle_in_transaction_session_timeout"} {
			if _, set := cfg.RuntimeParams[name]; !set && !explicit(name) {
				cfg.RuntimeParams[name] = ms
			}
		}
	}
}
