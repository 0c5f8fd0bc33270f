package pg_test

import (
	"maps"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/pg/pgtest"
)

// Deliberately not idempotent SQL (no IF NOT EXISTS): applying a migration
// twice fails loudly.
var migrationsV1 = fstest.MapFS{
	"00001_recipes.sql": {Data: []byte(`-- +goose Up
CREATE TABLE recipes (id int PRIMARY KEY, title text NOT NULL);
-- +goose Down
DROP TABLE recipes;
`)},
	"00002_recipe_notes.sql": {Data: []byte(`-- +goose Up
ALTER TABLE recipes ADD COLUMN notes text;
-- +goose Down
ALTER TABLE recipes DROP COLUMN notes;
`)},
}

func withMigration(base fstest.MapFS, name, sql string) fstest.MapFS {
	fsys := maps.Clone(base)
	fsys[name] = &fstest.MapFile{Data: []byte(sql)}
	return fsys
}

func appliedVersions(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM goose_db_version WHERE version_id > 0").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func requireStatus(t *testing.T, pool *pgxpool.Pool, fsys fstest.MapFS, want bool) {
	t.Helper()
	current, err := pg.MigrationStatus(t.Context(), pool, fsys)
	if err != nil {
		t.Fatalf("MigrationStatus: %v", err)
	}
	if current != want {
		t.Fatalf("MigrationStatus current = %v, want %v", current, want)
	}
}

func TestMigrateIsIdempotentAndStatusTracksIt(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	pool, err := pg.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)

	requireStatus(t, pool, migrationsV1, false)
	for range 2 {
		if err := pg.Migrate(t.Context(), url, migrationsV1); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		requireStatus(t, pool, migrationsV1, true)
		if n := appliedVersions(t, pool); n != 2 {
			t.Fatalf("%d migrations recorded, want 2", n)
		}
	}
	if _, err := pool.Exec(t.Context(), "INSERT INTO recipes VALUES (1, 'stock', 'roast the bones')"); err != nil {
		t.Fatalf("schema not migrated: %v", err)
	}

	v2 := withMigration(migrationsV1, "00003_recipe_yield.sql", `-- +goose Up
ALTER TABLE recipes ADD COLUMN yield int;
-- +goose Down
ALTER TABLE recipes DROP COLUMN yield;
`)
	requireStatus(t, pool, v2, false)
	// pool_* parameters are for Connect; Migrate must not pass them to the server.
	if err := pg.Migrate(t.Context(), withParam(url, "pool_max_conns=2"), v2); err != nil {
		t.Fatalf("Migrate v2: %v", err)
	}
	requireStatus(t, pool, v2, true)
	// A database ahead of an older binary's migrations still serves it.
	requireStatus(t, pool, migrationsV1, true)
}

func TestMigrateConcurrentReplicasApplyOnce(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { errs[i] = pg.Migrate(t.Context(), url, migrationsV1) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("replica %d: Migrate: %v", i, err)
		}
	}
	pool, err := pg.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if n := appliedVersions(t, pool); n != 2 {
		t.Fatalf("%d migrations recorded, want 2", n)
	}
}

func TestMigrateRejectsEmptyFS(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	if err := pg.Migrate(t.Context(), url, fstest.MapFS{}); err == nil {
		t.Fatal("Migrate with no migrations succeeded; want an error pointing at the FS")
	}
}
