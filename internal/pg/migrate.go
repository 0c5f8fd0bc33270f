package pg

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// Migrate applies every pending goose migration in fsys (SQL files at its
// root) to the database at url.
//
// It holds a PostgreSQL session advisory lock for the duration, so replicas
// that start together queue up: the first migrates, the others then find
// nothing pending. Running it against an up-to-date database is a no-op.
func Migrate(ctx context.Context, url string, fsys fs.FS) error {
	// Parse as a pool config so that pool_* parameters meant for Connect are
	// stripped instead of being sent to the server as settings. Connecting is
	// bounded like the pool's; statements are not (a migration may be long).
	cfg, err := PoolConfig(url, Options{ConnectTimeout: DefaultConnectTimeout})
	if err != nil {
		return fmt.Errorf("pg: migrate: %w", err)
	}
	db := stdlib.OpenDB(*cfg.ConnConfig)
	defer db.Close()

	// goose's defaults poll every 5s; a replica waiting on a peer's short
	// migration would then idle for seconds. Poll each second, give up after
	// 10 minutes.
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 600))
	if err != nil {
		return fmt.Errorf("pg: migrate: %w", err)
	}
	p, err := newProvider(db, fsys, goose.WithSessionLocker(locker))
	if err != nil {
		return err
	}

	results, err := p.Up(ctx)
	for _, r := range results {
		slog.InfoContext(ctx, "pg: applied migration",
			"version", r.Source.Version, "file", r.Source.Path, "duration", r.Duration)
	}
	if err != nil {
		return fmt.Errorf("pg: migrate: %w", err)
	}
	return nil
}

// MigrationStatus reports whether every migration in fsys has been applied to
// the database behind pool. It takes no lock and costs a couple of queries, so
// it suits a readiness probe; the only write it may do is goose creating its
// empty version table in a database never migrated. A database that is ahead
// of fsys (a newer replica already migrated it) counts as current.
func MigrationStatus(ctx context.Context, pool *pgxpool.Pool, fsys fs.FS) (current bool, err error) {
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()

	p, err := newProvider(db, fsys)
	if err != nil {
		return false, err
	}
	pending, err := p.HasPending(ctx)
	if err != nil {
		return false, fmt.Errorf("pg: migration status: %w", err)
	}
	return !pending, nil
}

func newProvider(db *sql.DB, fsys fs.FS, opts ...goose.ProviderOption) (*goose.Provider, error) {
	// Migrations come only from fsys: a Go migration registered globally by
	// some imported package must not sneak into our schema history.
	opts = append(opts, goose.WithDisableGlobalRegistry(true))
	p, err := goose.NewProvider(goose.DialectPostgres, db, fsys, opts...)
	if errors.Is(err, goose.ErrNoMigrations) {
		// An empty FS is almost always a wrong fs.Sub path or a missing
		// embed, and migrating "successfully" with nothing would hide it.
		return nil, fmt.Errorf("pg: no migrations found at the root of the migrations FS: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("pg: migrations: %w", err)
	}
	return p, nil
}
