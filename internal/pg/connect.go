package pg

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Connect opens a connection pool for url (a postgres:// URL or keyword/value
// DSN; pool_* parameters are honoured) and pings the server before returning,
// so a bad URL or an unreachable server fails at start-up rather than on the
// first request.
func Connect(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pg: parse connection string: %w", err)
	}
	applyPoolDefaults(cfg, url)
	cfg.AfterConnect = registerUUID

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
	// A half-open TCP connection would otherwise hang the acquiring request.
	cfg.PingTimeout = 5 * time.Second
}
