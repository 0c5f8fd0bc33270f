package pg_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/db/migrations"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/pg/pgtest"
)

// generatedQueries reads sqlc's statements from gen/db: name → SQL as the server receives it.
func generatedQueries(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("../../gen/db/*.sql.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("generated queries: %v (%d files)", err, len(files))
	}
	re := regexp.MustCompile("(?s)const \\w+ = `(-- name: (\\w+) :\\w+\n.*?)`")
	out := map[string]string{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			out[m[2]] = m[1]
		}
	}
	return out
}

// migratedPool is a pool with the product's settings on an empty database with the application's
// schema: no rows, never analysed, the moment a generic plan would freeze wrong.
func migratedPool(t *testing.T, params string) *pgxpool.Pool {
	t.Helper()
	url := pgtest.NewURL(t)
	if err := pg.Migrate(t.Context(), url, migrations.FS); err != nil {
		t.Fatal(err)
	}
	if params != "" {
		url = withParam(url, params)
	}
	pool, err := pg.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// uniqueLookupViolations plans sql generically on conn and lists every way its plan is not a
// unique lookup: a table read other than by an index scan on a unique index with every key
// column bound by equality. Nothing listed means no statistics can change the plan.
func uniqueLookupViolations(ctx context.Context, conn *pgx.Conn, sql string) ([]string, error) {
	return genericPlanViolations(ctx, conn, sql, uniqueIndexProblem)
}

// tenantSliceViolations plans sql generically on conn and lists every table read other than
// through an index whose leading column org_id is bound to a parameter by equality.
func tenantSliceViolations(ctx context.Context, conn *pgx.Conn, sql string) ([]string, error) {
	return genericPlanViolations(ctx, conn, sql, orgIndexProblem)
}

// genericPlanViolations plans sql generically on conn and asks check about every node that reads
// a table.
func genericPlanViolations(ctx context.Context, conn *pgx.Conn, sql string, check func(context.Context, *pgx.Conn, planNode) (string, error)) ([]string, error) {
	if _, err := conn.Exec(ctx, "SET plan_cache_mode = force_generic_plan"); err != nil {
		return nil, err
	}
	defer func() { _, _ = conn.Exec(ctx, "RESET plan_cache_mode") }()
	sd, err := conn.Prepare(ctx, "plan_stable_probe", sql)
	if err != nil {
		return nil, err
	}
	defer func() { _ = conn.Deallocate(ctx, "plan_stable_probe") }()
	args := strings.TrimSuffix(strings.Repeat("NULL, ", len(sd.ParamOIDs)), ", ")
	explain := "EXPLAIN (FORMAT JSON) EXECUTE plan_stable_probe"
	if args != "" {
		explain += "(" + args + ")"
	}
	var out []struct{ Plan planNode }
	if err := conn.QueryRow(ctx, explain).Scan(&out); err != nil {
		return nil, err
	}
	var problems []string
	var walk func(n planNode) error
	walk = func(n planNode) error {
		if n.Relation != "" {
			problem, err := check(ctx, conn, n)
			if err != nil {
				return err
			}
			if problem != "" {
				problems = append(problems, problem)
			}
		}
		for _, c := range n.Plans {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(out[0].Plan); err != nil {
		return nil, err
	}
	return problems, nil
}

type planNode struct {
	Type      string     `json:"Node Type"`
	Relation  string     `json:"Relation Name"`
	Index     string     `json:"Index Name"`
	IndexCond string     `json:"Index Cond"`
	Plans     []planNode `json:"Plans"`
}

// orgIndexProblem: a table read by an index scan, or a bitmap scan of one index, whose index
// leads with org_id and whose condition binds it to a parameter.
func orgIndexProblem(ctx context.Context, conn *pgx.Conn, n planNode) (string, error) {
	scan := n
	switch n.Type {
	case "Index Scan", "Index Only Scan":
	case "Bitmap Heap Scan":
		if len(n.Plans) != 1 || n.Plans[0].Type != "Bitmap Index Scan" {
			return fmt.Sprintf("%s read by a bitmap of more than one index", n.Relation), nil
		}
		scan = n.Plans[0]
	default:
		return fmt.Sprintf("%s read by %s", n.Relation, n.Type), nil
	}
	var lead string
	err := conn.QueryRow(ctx, `
		SELECT coalesce(a.attname, '')
		FROM pg_index i
		JOIN pg_class c ON c.oid = i.indexrelid
		LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
		WHERE c.relname = $1 AND c.relnamespace = 'public'::regnamespace`, scan.Index).Scan(&lead)
	if err != nil {
		return "", fmt.Errorf("index %s: %w", scan.Index, err)
	}
	if lead != "org_id" || !regexp.MustCompile(`\(org_id = \$\d+\)`).MatchString(scan.IndexCond) {
		return fmt.Sprintf("%s read by %s (leading column %q, Index Cond %s), not by org_id bound to a parameter", n.Relation, scan.Index, lead, scan.IndexCond), nil
	}
	return "", nil
}

func uniqueIndexProblem(ctx context.Context, conn *pgx.Conn, n planNode) (string, error) {
	if n.Type != "Index Scan" && n.Type != "Index Only Scan" {
		return fmt.Sprintf("%s read by %s", n.Relation, n.Type), nil
	}
	var unique bool
	var columns []string
	err := conn.QueryRow(ctx, `
		SELECT i.indisunique, array_agg(coalesce(a.attname, '') ORDER BY k.ord)
		FROM pg_index i
		JOIN pg_class c ON c.oid = i.indexrelid
		CROSS JOIN unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
		LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
		WHERE c.relname = $1 AND c.relnamespace = 'public'::regnamespace
		GROUP BY i.indisunique`, n.Index).Scan(&unique, &columns)
	if err != nil {
		return "", fmt.Errorf("index %s: %w", n.Index, err)
	}
	if !unique {
		return fmt.Sprintf("%s read by %s, not a unique index", n.Relation, n.Index), nil
	}
	for _, col := range columns {
		// "(org_id = $1)", "((org_id = $1) AND (id = $2))", "(id = m.org_id)"
		if col == "" || !regexp.MustCompile(`\(`+regexp.QuoteMeta(col)+` = `).MatchString(n.IndexCond) {
			return fmt.Sprintf("%s read by %s without equality on %q (Index Cond %s)", n.Relation, n.Index, col, n.IndexCond), nil
		}
	}
	return "", nil
}

// violationsFunc plans a statement generically on empty tables and says what is wrong with it.
type violationsFunc func(ctx context.Context, conn *pgx.Conn, sql string) ([]string, error)

// checkListed holds a reviewed list to its promise: every statement on it is a generated query
// of the given kind (":one" or ":many"), a plain SELECT, on no other list, and passes check.
func checkListed(t *testing.T, conn *pgx.Conn, queries map[string]string, list, other map[string]bool, kind string, check violationsFunc) {
	t.Helper()
	for name := range list {
		sql, ok := queries[name]
		if !ok {
			t.Errorf("%s: no such generated query", name)
			continue
		}
		if head := strings.SplitN(sql, "\n", 2)[0]; !strings.HasSuffix(head, " "+kind) {
			t.Errorf("%s: %q is not a %s query (Lookups runs QueryRow for :one and Query for :many)", name, head, kind)
		}
		if body := strings.TrimSpace(stripComments(sql)); !strings.HasPrefix(strings.ToUpper(body), "SELECT ") {
			t.Errorf("%s: not a plain SELECT: %.60s", name, body)
		}
		problems, err := check(t.Context(), conn, sql)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, p := range problems {
			t.Errorf("%s: %s", name, p)
		}
		if other[name] {
			t.Errorf("%s is in both lists", name)
		}
	}
}

// TestPlanStableQueriesAreUniqueLookups holds the list in PlanStable to its promise: every
// statement on it is a read of one row and plans, generically on empty tables, as unique-index
// lookups only.
func TestPlanStableQueriesAreUniqueLookups(t *testing.T) {
	t.Parallel()
	conn := migratedConn(t)
	checkListed(t, conn, generatedQueries(t), pg.PlanStable, pg.PlanStableTenantSlice, ":one", uniqueLookupViolations)
}

// TestPlanStableTenantSlicesReadByOrgIndexes holds PlanStableTenantSlice to its promise.
func TestPlanStableTenantSlicesReadByOrgIndexes(t *testing.T) {
	t.Parallel()
	queries := generatedQueries(t)
	conn := migratedConn(t)
	checkListed(t, conn, queries, pg.PlanStableTenantSlice, pg.PlanStable, ":many", tenantSliceViolations)
	// The check refuses reads not bound to one organization.
	for _, name := range []string{
		"GetUserWithMemberships", // memberships by user_id
		"GetUserByEmail",         // users by lower(email)
	} {
		problems, err := tenantSliceViolations(t.Context(), conn, queries[name])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(problems) == 0 {
			t.Errorf("%s passed the tenant-slice check", name)
		}
	}
}

// The check itself: statements whose plans depend on the tables' size are refused.
func TestUniqueLookupCheckRefusesSizeDependentStatements(t *testing.T) {
	t.Parallel()
	queries := generatedQueries(t)
	conn := migratedConn(t)
	for _, name := range []string{
		"GetUserWithMemberships", // memberships by user_id: a non-unique index
		"ListSites",              // an organization's sites: a range
		"GetUserByEmail",         // unique, but on lower(email): an expression the check does not vouch for
	} {
		problems, err := uniqueLookupViolations(t.Context(), conn, queries[name])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(problems) == 0 {
			t.Errorf("%s passed the unique-lookup check", name)
		}
		if pg.PlanStable[name] {
			t.Errorf("%s is listed in PlanStable", name)
		}
	}
}

// TestLookupsPlanOnlyListedStatementsGenerically runs listed and unlisted statements through
// Lookups and asks the server how each was planned: the listed ones generically on the lookup
// pool's sessions, the unlisted ones for their parameters on the main pool's, which never keep a
// generic plan.
func TestLookupsPlanOnlyListedStatementsGenerically(t *testing.T) {
	t.Parallel()
	pool := migratedPool(t, "pool_max_conns=1")
	ctx := t.Context()
	lookups, err := pg.OpenLookups(pool, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lookups.Close)
	q := lookups.Queries()
	for range 8 {
		if _, err := q.GetOrgPlan(ctx, uuid.New()); !pg.IsNoRows(err) {
			t.Fatalf("GetOrgPlan: %v", err)
		}
		if _, err := q.GetUser(ctx, uuid.New()); !pg.IsNoRows(err) {
			t.Fatalf("GetUser: %v", err)
		}
		if sites, err := q.ListSites(ctx, uuid.New()); err != nil || len(sites) != 0 {
			t.Fatalf("ListSites: %v, %v", sites, err)
		}
	}
	var mode string
	if err := pool.QueryRow(ctx, "SHOW plan_cache_mode").Scan(&mode); err != nil || mode != "force_custom_plan" {
		t.Fatalf("plan_cache_mode of the main pool: %q, %v", mode, err)
	}
	// pg_prepared_statements shows the asking session's statements only, so each pool is asked
	// on its own connection: the lookup pool through a listed statement's connection.
	plans := map[string][2]int64{}
	for _, sessionPool := range []func() (*pgxpool.Conn, error){
		func() (*pgxpool.Conn, error) { return pool.Acquire(ctx) },
		func() (*pgxpool.Conn, error) { return pg.LookupConn(ctx, lookups) },
	} {
		conn, err := sessionPool()
		if err != nil {
			t.Fatal(err)
		}
		rows, err := conn.Query(ctx, `SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var sql string
			var generic, custom int64
			if err := rows.Scan(&sql, &generic, &custom); err != nil {
				t.Fatal(err)
			}
			if name := pg.QueryName(sql); name != "" {
				plans[name] = [2]int64{generic, custom}
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		conn.Release()
	}
	if p := plans["GetOrgPlan"]; p[0] == 0 || p[1] != 0 {
		t.Errorf("GetOrgPlan (listed): %d generic and %d custom plans, want generic only", p[0], p[1])
	}
	if p := plans["ListSites"]; p[0] == 0 || p[1] != 0 {
		t.Errorf("ListSites (listed tenant slice): %d generic and %d custom plans, want generic only", p[0], p[1])
	}
	if p := plans["GetUser"]; p[0] != 0 || p[1] == 0 {
		t.Errorf("GetUser (not listed): %d generic and %d custom plans, want custom only", p[0], p[1])
	}
}

func stripComments(sql string) string {
	var b strings.Builder
	for line := range strings.Lines(sql) {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// migratedConn is one connection of a freshly migrated database, for planning statements on it.
func migratedConn(t *testing.T) *pgx.Conn {
	t.Helper()
	conn, err := migratedPool(t, "").Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Release)
	return conn.Conn()
}
