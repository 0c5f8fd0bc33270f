package pg

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

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
//
// A lookup on the generic-plan pool is bounded on the server rather than through its context:
// its sessions' statement_timeout (a wait for a lock included) is the bound OpenLookups is
// given, and a server that stops answering is fenced within seconds, which closes the
// connection under it (see fence). Its context still bounds the wait for a connection and is
// checked before the statement is sent, but is not watched while the statement runs: pgx
// watches a cancelable context by registering a callback on it and unregistering it after,
// per statement, which cost an authenticated read more than any one of its middleware layers,
// for a statement that reads one row by its key and answers in microseconds.
type Lookups struct {
	main    *pgxpool.Pool
	generic *pgxpool.Pool
	// slots, when not nil, holds a place for each of generic's connections, and lookups run
	// unwatched (generic is a pool of its own whose sessions carry the bound). A lookup takes a
	// slot, waiting under its context if none is free, before it asks the pool, which then never
	// makes it wait: the pool's own wait would ask the context for its Done channel, and a
	// request's context makes one (and registers it with its parent) only when asked.
	slots chan struct{}
}

// OpenLookups opens the generic-plan pool beside main: the same server, credentials, dialer
// (and so the same fence after a failover), size and session settings but plan_cache_mode, none
// of its connections opened before the first lookup. Most authenticated requests read through
// it (their authorization, /auth/me, the sites list), so it gets the main pool's size; with half
// of it the sites list lost a third of its throughput at 32 concurrent clients. Close it before
// main.
//
// bound, when positive, is each lookup's statement_timeout on the server (a request's deadline:
// a lookup that waits on a lock taken by a migration ends then, and its request answers 503, as
// it would have at its deadline); lookups are then not watched through their context (see
// Lookups). With no bound they are, as every other statement is.
//
// Behind a transaction pooler (pooler: see Options.Pooler) no session keeps anything between
// transactions, a plan included, and the pooler refuses settings in the startup message: there
// every statement goes to main, watched through its context.
func OpenLookups(main *pgxpool.Pool, pooler bool, bound time.Duration) (*Lookups, error) {
	if pooler {
		return &Lookups{main: main, generic: main}, nil
	}
	cfg := main.Config()
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_generic_plan"
	if bound > 0 {
		// At least 1 ms: 0 would turn the bound off.
		ms := strconv.FormatInt(max(bound.Milliseconds(), 1), 10)
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = ms
	}
	cfg.MinConns = 0
	generic, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, fmt.Errorf("pg: create lookup pool: %w", err)
	}
	l := &Lookups{main: main, generic: generic}
	if bound > 0 {
		l.slots = make(chan struct{}, cfg.MaxConns)
	}
	return l, nil
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
	if !PlanStableTenantSlice[QueryName(sql)] {
		return d.l.main.Query(ctx, sql, args...)
	}
	if d.l.slots == nil {
		return d.l.generic.Query(ctx, sql, args...)
	}
	c, err := d.l.acquire(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := c.Query(context.WithoutCancel(ctx), sql, args...)
	if err != nil {
		d.l.release(c)
		return nil, err
	}
	return &releasingRows{Rows: rows, l: d.l, c: c}, nil
}

// QueryRow sends a listed statement to the generic-plan pool, anything else to the main pool.
func (d lookupDB) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if !PlanStable[QueryName(sql)] {
		return d.l.main.QueryRow(ctx, sql, args...)
	}
	if d.l.slots == nil {
		return d.l.generic.QueryRow(ctx, sql, args...)
	}
	c, err := d.l.acquire(ctx)
	if err != nil {
		return errRow{err}
	}
	return &releasingRow{row: c.QueryRow(context.WithoutCancel(ctx), sql, args...), l: d.l, c: c}
}

// acquire takes a slot and then a connection of the generic pool for an unwatched lookup: ctx
// bounds the wait for a slot, and a ctx already done sends nothing. release gives both back.
func (l *Lookups) acquire(ctx context.Context) (*pgxpool.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case l.slots <- struct{}{}:
	default:
		select {
		case l.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	// With a slot, a connection is idle or may be opened (bounded by the connect timeout).
	c, err := l.generic.Acquire(context.WithoutCancel(ctx))
	if err != nil {
		<-l.slots
		return nil, err
	}
	return c, nil
}

func (l *Lookups) release(c *pgxpool.Conn) {
	c.Release()
	<-l.slots
}

// releasingRow gives its connection back once scanned, as pgxpool's own rows do.
type releasingRow struct {
	row pgx.Row
	l   *Lookups
	c   *pgxpool.Conn
}

func (r *releasingRow) Scan(dest ...any) error {
	defer r.l.release(r.c)
	return r.row.Scan(dest...)
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// releasingRows gives its connection back when closed (Next closes them at the end).
type releasingRows struct {
	pgx.Rows
	l *Lookups
	c *pgxpool.Conn
}

func (r *releasingRows) Next() bool {
	if r.Rows.Next() {
		return true
	}
	r.Close()
	return false
}

func (r *releasingRows) Close() {
	r.Rows.Close()
	if r.c != nil {
		r.l.release(r.c)
		r.c = nil
	}
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
