// Package pgtest gives every test its own fresh, fully migrated PostgreSQL
// database, cloned in milliseconds from a template migrated once per test
// binary.
//
// A package whose tests use it must route its TestMain through Main, which
// tears the server down after the tests:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
// The server comes from, in order: TEST_DATABASE_URL (an admin-capable URL;
// databases are created on that server), a postgres:15 container when a Docker
// daemon answers, or a private throwaway cluster started from the local
// PostgreSQL server binaries (see pg.StartLocal). Nothing is started until the
// first test asks for a database.
//
// Templates are named after a hash of the migration files, so on a shared
// TEST_DATABASE_URL server they are reused across runs and packages, and each
// edit of a migration leaves an old sous_tmpl_* behind; drop those at will
// while no tests run. A local cluster or container whose test binary was
// killed is removed by the next test binary that starts one.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/db/migrations"
	"github.com/sous-app/sous/internal/pg"
)

// Migrations is the schema every test database starts with. A TestMain may
// replace it before calling Main; nil means empty databases (for testing the
// migration machinery itself).
var Migrations fs.FS = migrations.FS

// env is what one test binary shares between its tests: a server, a pool of
// admin connections to it, and the template to clone.
type env struct {
	provider string
	url      string // admin-capable; its database is where we issue CREATE DATABASE
	admin    *pgxpool.Pool
	template string
	strategy string // CREATE DATABASE clause choosing how to copy the template
	stop     func(context.Context) error
	supply   *supply // the tests' databases, cloned ahead and dropped behind
}

var (
	mu         sync.Mutex
	mainCalled bool
	setupDone  bool
	torndown   bool
	shared     *env
	setupErr   error

	// setupCtx is cancelled by a signal so that a slow start-up (pulling an
	// image, a hung server) does not delay the exit.
	setupCtx, cancelSetup = context.WithCancel(context.Background())
)

// Main runs the tests and then stops whatever server this binary started. It
// also stops it on SIGINT/SIGTERM, which would otherwise leave a detached
// postmaster or container running after `go test` is interrupted.
func Main(m *testing.M) int {
	mu.Lock()
	mainCalled = true
	mu.Unlock()

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			fmt.Fprintf(os.Stderr, "pgtest: %v: stopping PostgreSQL\n", sig)
			cancelSetup()
			teardown()
			os.Exit(1)
		case <-done:
		}
	}()

	code := m.Run()
	signal.Stop(sigs)
	close(done)
	if err := teardown(); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: teardown: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// teardown is idempotent, and waits for a setup in progress so that a server
// being started concurrently is stopped rather than leaked.
func teardown() error {
	mu.Lock()
	defer mu.Unlock()
	if torndown {
		return nil
	}
	torndown = true
	if shared == nil {
		return nil
	}
	dropErr := shared.supply.close()
	shared.admin.Close()
	if shared.stop == nil {
		return dropErr
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return errors.Join(dropErr, shared.stop(ctx))
}

func getEnv(t testing.TB) *env {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	switch {
	case !mainCalled:
		t.Fatal("pgtest: this package's TestMain must call os.Exit(pgtest.Main(m)) so that the test server is stopped afterwards")
	case torndown:
		t.Fatal("pgtest: test server already stopped (interrupted?)")
	case !setupDone:
		shared, setupErr = setup(setupCtx)
		setupDone = true
	}
	if setupErr != nil {
		t.Fatalf("pgtest: %v", setupErr)
	}
	return shared
}

func setup(ctx context.Context) (*env, error) {
	start := time.Now()
	srv, err := startServer(ctx)
	if err != nil {
		return nil, err
	}
	e, err := prepare(ctx, srv)
	if err != nil {
		if srv.stop != nil {
			_ = srv.stop(context.WithoutCancel(ctx))
		}
		return nil, err
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "pgtest: %s server with template %s ready in %v\n",
			e.provider, e.template, time.Since(start).Round(time.Millisecond))
	}
	return e, nil
}

func prepare(ctx context.Context, srv *server) (*env, error) {
	admin, err := pg.ConnectWith(ctx, srv.url, testOptions())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", srv.provider, err)
	}
	tmpl, err := ensureTemplate(ctx, admin, srv.url, Migrations)
	if err != nil {
		admin.Close()
		return nil, fmt.Errorf("%s: %w", srv.provider, err)
	}
	strategy, err := cloneStrategy(ctx, admin)
	if err != nil {
		admin.Close()
		return nil, fmt.Errorf("%s: %w", srv.provider, err)
	}
	e := &env{provider: srv.provider, url: srv.url, admin: admin, template: tmpl, strategy: strategy, stop: srv.stop}
	e.supply = newSupply(e)
	return e, nil
}

// cloneStrategy picks how CREATE DATABASE copies the template. Since
// PostgreSQL 15 the default (WAL_LOG) writes every page of the copy to WAL,
// which suits durable servers; FILE_COPY copies the files and checkpoints
// instead, several times faster for a small template when fsync is off, as on
// the throwaway servers we start.
func cloneStrategy(ctx context.Context, admin *pgxpool.Pool) (string, error) {
	var fileCopy bool
	err := admin.QueryRow(ctx, `SELECT current_setting('server_version_num')::int >= 150000
		AND NOT current_setting('fsync')::bool`).Scan(&fileCopy)
	if err != nil {
		return "", fmt.Errorf("inspect server: %w", err)
	}
	if fileCopy {
		return " STRATEGY FILE_COPY", nil
	}
	return "", nil
}

// Quiesce waits until the server makes and drops no test database in the background: what a
// benchmark calls before it measures, so that a clone made ahead for the next test, or the drop
// of a finished one (each a checkpoint), does not stall the server inside its window. It returns
// at once in a process that has made no database.
func Quiesce() {
	mu.Lock()
	e := shared
	mu.Unlock()
	if e != nil {
		e.supply.quiet()
	}
}

// NewURL creates a database for this test only, cloned from the migrated
// template, drops it when the test ends, and returns a superuser URL to it.
// Connections still open at that point are terminated.
func NewURL(t testing.TB) string {
	t.Helper()
	e := getEnv(t)
	name, err := e.supply.take(t.Context())
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() { e.supply.release(name) })
	return withDatabase(e.url, name)
}

// New returns a pool on a database of this test's own (see NewURL), closed
// when the test ends.
func New(t testing.TB) *pgxpool.Pool {
	t.Helper()
	url := NewURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := pg.ConnectWith(ctx, url, testOptions())
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	// Registered after NewURL's drop, so it runs before it.
	t.Cleanup(pool.Close)
	return pool
}

func ident(name string) string { return pgx.Identifier{name}.Sanitize() }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails on supported platforms
	return hex.EncodeToString(b)
}

// testOptions are the product's connection defaults with a longer connect timeout: the product's
// 2 s is there to leave a dead host quickly, while a test's server is never dead, only slow to
// answer when every package's tests start at once on a small machine.
func testOptions() pg.Options {
	o := pg.DefaultOptions()
	o.ConnectTimeout = 15 * time.Second
	return o
}
