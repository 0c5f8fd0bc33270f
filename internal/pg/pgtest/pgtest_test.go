package pgtest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/db/migrations"
	"github.com/sous-app/sous/internal/pg"
)

func currentDatabase(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var name string
	if err := pool.QueryRow(t.Context(), "SELECT current_database()").Scan(&name); err != nil {
		t.Fatal(err)
	}
	return name
}

func databaseGone(t *testing.T, name string) bool {
	t.Helper()
	ok, err := databaseExists(context.Background(), shared.admin, name)
	if err != nil {
		t.Fatal(err)
	}
	return !ok
}

func TestParallelTestsGetIsolatedDatabases(t *testing.T) {
	var (
		mu    sync.Mutex
		names []string
	)
	t.Run("group", func(t *testing.T) {
		for i := range 4 {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				pool := New(t)
				ctx := t.Context()
				// Same primary key everywhere: would collide in a shared database.
				if _, err := pool.Exec(ctx, "INSERT INTO widgets VALUES (1, $1)", fmt.Sprint("widget ", i)); err != nil {
					t.Fatalf("insert: %v", err)
				}
				var got []string
				rows, _ := pool.Query(ctx, "SELECT name FROM widgets")
				got, err := pgx.CollectRows(rows, pgx.RowTo[string])
				if err != nil {
					t.Fatal(err)
				}
				if want := fmt.Sprint("widget ", i); len(got) != 1 || got[0] != want {
					t.Fatalf("widgets = %q, want only %q", got, want)
				}
				mu.Lock()
				names = append(names, currentDatabase(t, pool))
				mu.Unlock()
			})
		}
	})

	shared.supply.settle()
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			t.Errorf("database %s handed to two tests", name)
		}
		seen[name] = true
		if !databaseGone(t, name) {
			t.Errorf("database %s still exists after its test ended", name)
		}
	}
	if len(seen) != 4 {
		t.Errorf("got %d distinct databases, want 4", len(seen))
	}
}

func TestNewURLDatabaseIsDroppedEvenWithOpenConnections(t *testing.T) {
	var name string
	t.Run("leaky", func(t *testing.T) {
		conn, err := pgx.Connect(t.Context(), NewURL(t))
		if err != nil {
			t.Fatal(err)
		}
		// Deliberately not closed: the drop must not wait for it.
		if err := conn.QueryRow(t.Context(), "SELECT current_database()").Scan(&name); err != nil {
			t.Fatal(err)
		}
	})
	shared.supply.settle()
	if name == "" || !databaseGone(t, name) {
		t.Fatalf("database %q not dropped", name)
	}
}

func TestDatabasesStartFromMigratedTemplate(t *testing.T) {
	t.Parallel()
	pool := New(t)
	var version int64
	if err := pool.QueryRow(t.Context(), "SELECT max(version_id) FROM goose_db_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version != 1 {
		t.Fatalf("goose version = %d, want 1", version)
	}
	current, err := pg.MigrationStatus(t.Context(), pool, Migrations)
	if err != nil || !current {
		t.Fatalf("MigrationStatus = %v, %v; want current", current, err)
	}
}

func TestTemplateNameFollowsMigrationContents(t *testing.T) {
	t.Parallel()
	edited := fstest.MapFS{"00001_widgets.sql": {Data: append([]byte("-- edited\n"), testMigrations["00001_widgets.sql"].Data...)}}
	a, errA := hashFS(testMigrations)
	b, errB := hashFS(fstest.MapFS{"00001_widgets.sql": {Data: testMigrations["00001_widgets.sql"].Data}})
	c, errC := hashFS(edited)
	if errA != nil || errB != nil || errC != nil {
		t.Fatal(errA, errB, errC)
	}
	if a != b {
		t.Error("identical migrations hash differently")
	}
	if a == c {
		t.Error("an edited migration hashes like the original")
	}
}

// Several test binaries (one per package) may share a TEST_DATABASE_URL
// server; each builds the template through its own admin pool. Exactly one
// must build it while the others wait and reuse it.
func TestConcurrentBinariesShareOneTemplate(t *testing.T) {
	t.Parallel()
	getEnv(t)
	// Unique contents, hence a template no earlier run has built.
	fsys := fstest.MapFS{"00001_gadgets.sql": {Data: []byte(fmt.Sprintf(`-- +goose Up
-- run %s
CREATE TABLE gadgets (id int PRIMARY KEY);
-- +goose Down
DROP TABLE gadgets;
`, randomHex(8)))}}

	const binaries = 4
	names := make([]string, binaries)
	errs := make([]error, binaries)
	var wg sync.WaitGroup
	for i := range binaries {
		wg.Go(func() {
			admin, err := pg.Connect(t.Context(), shared.url)
			if err != nil {
				errs[i] = err
				return
			}
			defer admin.Close()
			names[i], errs[i] = ensureTemplate(t.Context(), admin, shared.url, fsys)
		})
	}
	wg.Wait()
	for i := range binaries {
		if errs[i] != nil {
			t.Fatalf("binary %d: %v", i, errs[i])
		}
		if names[i] != names[0] {
			t.Fatalf("binaries got templates %q and %q", names[0], names[i])
		}
	}
	t.Cleanup(func() {
		// A database marked as template cannot be dropped until unmarked.
		for _, stmt := range []string{
			"ALTER DATABASE " + ident(names[0]) + " WITH IS_TEMPLATE false",
			"DROP DATABASE " + ident(names[0]),
		} {
			if _, err := shared.admin.Exec(context.Background(), stmt); err != nil {
				t.Errorf("%s: %v", stmt, err)
			}
		}
	})
	if !strings.HasPrefix(names[0], "sous_tmpl_") || names[0] == shared.template {
		t.Fatalf("template name %q", names[0])
	}
}

// The application's own migrations must build a template: this is what every
// other package's tests will start from.
func TestApplicationMigrationsBuildTemplate(t *testing.T) {
	t.Parallel()
	getEnv(t)
	name, err := ensureTemplate(t.Context(), shared.admin, shared.url, migrations.FS)
	if err != nil {
		t.Fatalf("template from db/migrations: %v", err)
	}
	if name == shared.template {
		t.Fatal("application migrations share a template with the test migrations")
	}
}

func TestWithDatabase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"postgres://u:p@h:5/postgres?sslmode=disable", "postgres://u:p@h:5/db1?sslmode=disable"},
		{"postgres://u@h/", "postgres://u@h/db1"},
		{"host=h user=u dbname=postgres", "host=h user=u dbname=postgres dbname='db1'"},
	} {
		if got := withDatabase(tc.in, "db1"); got != tc.want {
			t.Errorf("withDatabase(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Quiesce returns when nothing is made or dropped behind the tests: a finished test's database
// is gone and every clone made ahead is ready.
func TestQuiesceWaitsForTheBackgroundWork(t *testing.T) {
	var name string
	t.Run("finished", func(t *testing.T) {
		pool := New(t)
		name = currentDatabase(t, pool)
	})
	Quiesce()
	if !databaseGone(t, name) {
		t.Errorf("database %q still there after Quiesce", name)
	}
	if n, c := len(shared.supply.ready), cap(shared.supply.ready); n != c {
		t.Errorf("%d of %d clones made ahead after Quiesce", n, c)
	}
}
