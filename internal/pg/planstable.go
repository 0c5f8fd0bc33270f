package pg

import (
	"context"
	"fmt"
	"runtime"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
)

// PlanStable names the generated queries (sqlc's "-- name:") whose plan cannot depend on the
// tables' size or statistics: each reads at most one row of every table it touches, through
// equality on every column of a primary key or unique index. A cached generic plan of such a
// statement is the plan any statistics would give, so it is safe to keep for the life of the
// connection, and it saves the planning that force_custom_plan spends on every run.
//
// The list is reviewed, not inferred: TestPlanStableQueriesAreUniqueLookups (this package) plans
// each one generically on empty, never-analysed tables and fails unless every table is read by
// an index scan on a unique index with every key column bound by equality. Everything not listed
// stays planned for its parameters on every run (see applySessionDefaults).
var PlanStable = map[string]bool{
	// Every organization-scoped request with a user session: memberships by (org_id, user_id),
	// its organization by id.
	"GetMembershipWithOrg": true,
	// Organization-scoped requests with an API key or a device token.
	"GetOrgPlan": true,
	// GET /auth/me: the user by id, with the version of their memberships.
	"GetUserMembershipVersion": true,
}

// Lookups runs the statements listed in PlanStable on a small pool of its own, whose sessions
// keep generic plans (plan_cache_mode = force_generic_plan): each lookup is one prepared
// statement's Bind and Execute, planned once per connection, as cheap for the server as a read
// gets. Every other statement goes to the main pool, whose sessions plan each run for its
// parameters (see applySessionDefaults), so a size-dependent statement can never reach a session
// that keeps generic plans.
type Lookups struct {
	main    *pgxpool.Pool
	generic *pgxpool.Pool
}

// OpenLookups opens the generic-plan pool beside main: the same server, credentials, dialer
// (and so the same fence after a failover) and session settings but plan_cache_mode, at most
// 2 × GOMAXPROCS connections (a lookup holds one for a single round trip), none opened before
// the first lookup. Close it before main.
func OpenLookups(main *pgxpool.Pool) (*Lookups, error) {
	cfg := main.Config()
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_generic_plan"
	cfg.MaxConns = min(cfg.MaxConns, int32(max(2, 2*runtime.GOMAXPROCS(0))))
	cfg.MinConns = 0
	generic, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, fmt.Errorf("pg: create lookup pool: %w", err)
	}
	return &Lookups{main: main, generic: generic}, nil
}

// Close closes the generic-plan pool (not main).
func (l *Lookups) Close() { l.generic.Close() }

// Queries returns the generated queries with the listed statements routed to the generic-plan
// pool. Use it for reads outside a transaction; inside one, db.New(tx).
func (l *Lookups) Queries() *db.Queries { return db.New(lookupDB{l}) }

// lookupDB is the db.DBTX of Lookups.Queries.
type lookupDB struct{ l *Lookups }

func (d lookupDB) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return d.l.main.Exec(ctx, sql, args...)
}

func (d lookupDB) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return d.l.main.Query(ctx, sql, args...)
}

// QueryRow sends a listed statement to the generic-plan pool, anything else to the main pool.
func (d lookupDB) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if PlanStable[QueryName(sql)] {
		return d.l.generic.QueryRow(ctx, sql, args...)
	}
	return d.l.main.QueryRow(ctx, sql, args...)
}

// QueryName is the name sqlc gives a generated statement: "-- name: GetOrgPlan :one" at its head.
func QueryName(sql string) string {
	rest, ok := strings.CutPrefix(sql, "-- name: ")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, " ")
	return name
}
