package pg

import (
	"context"
	"fmt"
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
	// Every organization-scoped request: the organization by id.
	"GetOrgPlan": true,
	// An organization-scoped request with a user session whose membership is not in memory at
	// the organization's members_version: memberships by (org_id, user_id).
	"GetMembershipAccess": true,
	// GET /auth/me: the user by id, with the version of their memberships.
	"GetUserMembershipVersion": true,
}

// PlanStableTenantSlice names the generated queries that read one organization's whole slice of
// a table (its sites) and filter nothing an index could serve better: any index that leads with
// org_id finds exactly those rows, so the generic plan's choice among them cannot make the work
// grow with the table; it is the tenant's own rows at any size. A generic plan is kept for them
// as for PlanStable. Reviewed, not inferred: TestPlanStableTenantSlicesReadByOrgIndexes plans each
// one generically on empty, never-analysed tables and fails unless every table is read through
// an index whose leading column org_id is bound to a parameter.
var PlanStableTenantSlice = map[string]bool{
	// GET /orgs/{orgId}/sites.
	"ListSites": true,
}

// Lookups runs the statements listed in PlanStable and PlanStableTenantSlice on a small pool of
// its own, whose sessions keep generic plans (plan_cache_mode = force_generic_plan): each is one
// prepared statement's Bind and Execute, planned once per connection, as cheap for the server as
// a read gets. Every other statement goes to the main pool, whose sessions plan each run for its
// parameters (see applySessionDefaults), so a size-dependent statement can never reach a session
// that keeps generic plans.
type Lookups struct {
	main    *pgxpool.Pool
	generic *pgxpool.Pool
}

// OpenLookups opens the generic-plan pool beside main: the same server, credentials, dialer
// (and so the same fence after a failover), size and session settings but plan_cache_mode, none
// of its connections opened before the first lookup. Most authenticated requests read through
// it (their authorization, /auth/me, the sites list), so it gets the main pool's size; with half
// of it the sites list lost a third of its throughput at 32 concurrent clients. Close it before
// main.
//
// Behind a transaction pooler (pooler: see Options.Pooler) no session keeps anything between
// transactions, a plan included, and the pooler refuses settings in the startup message: there
// every statement goes to main.
func OpenLookups(main *pgxpool.Pool, pooler bool) (*Lookups, error) {
	if pooler {
		return &Lookups{main: main, generic: main}, nil
	}
	cfg := main.Config()
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_generic_plan"
	cfg.MinConns = 0
	generic, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, fmt.Errorf("pg: create lookup pool: %w", err)
	}
	return &Lookups{main: main, generic: generic}, nil
}

// Close closes the generic-plan pool (not main).
func (l *Lookups) Close() {
	if l.generic != l.main {
		l.generic.Close()
	}
}

// Pools are the distinct pools Lookups reads through: main, and the generic-plan pool when there
// is one (metrics report the connections of both).
func (l *Lookups) Pools() []*pgxpool.Pool {
	if l.generic == l.main {
		return []*pgxpool.Pool{l.main}
	}
	return []*pgxpool.Pool{l.main, l.generic}
}

// Queries returns the generated queries with the listed statements routed to the generic-plan
// pool. Use it for reads outside a transaction; inside one, db.New(tx).
func (l *Lookups) Queries() *db.Queries { return db.New(lookupDB{l}) }

// lookupDB is the db.DBTX of Lookups.Queries.
type lookupDB struct{ l *Lookups }

func (d lookupDB) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return d.l.main.Exec(ctx, sql, args...)
}

func (d lookupDB) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if PlanStableTenantSlice[QueryName(sql)] {
		return d.l.generic.Query(ctx, sql, args...)
	}
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
