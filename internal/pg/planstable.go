package pg

import (
	"context"
	"errors"
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

// genericPlanSQL runs in the lookup's own transaction, so the setting ends with it: a failed
// lookup aborts the transaction, and the pool drops a connection not left idle, so no session
// ever keeps it.
const genericPlanSQL = "SET LOCAL plan_cache_mode = force_generic_plan"

// Lookups returns the generated queries on pool, with the statements listed in PlanStable run
// with a cached generic plan. Use it for reads outside a transaction; inside one, db.New(tx).
func Lookups(pool *pgxpool.Pool) *db.Queries { return db.New(lookupDB{pool}) }

// lookupDB is the db.DBTX of Lookups.
type lookupDB struct{ pool *pgxpool.Pool }

func (l lookupDB) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return l.pool.Exec(ctx, sql, args...)
}

func (l lookupDB) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return l.pool.Query(ctx, sql, args...)
}

// QueryRow sends a listed statement as BEGIN READ ONLY, SET LOCAL plan_cache_mode, the statement
// (a named prepared statement of the connection) and COMMIT in one round trip: the planning it
// saves costs more than the three small statements.
func (l lookupDB) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if !PlanStable[QueryName(sql)] {
		return l.pool.QueryRow(ctx, sql, args...)
	}
	conn, err := l.pool.Acquire(ctx)
	if err != nil {
		return errRow{err}
	}
	b := &pgx.Batch{}
	b.Queue("BEGIN READ ONLY")
	b.Queue(genericPlanSQL)
	b.Queue(sql, args...)
	b.Queue("COMMIT")
	br := conn.SendBatch(ctx, b)
	for range 2 {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			conn.Release()
			return errRow{err}
		}
	}
	return &lookupRow{row: br.QueryRow(), br: br, conn: conn}
}

// lookupRow reads the statement's row, then the COMMIT, and gives the connection back.
type lookupRow struct {
	row  pgx.Row
	br   pgx.BatchResults
	conn *pgxpool.Conn
}

func (r *lookupRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	_, commitErr := r.br.Exec()
	closeErr := r.br.Close()
	// A connection left inside the transaction (an error skipped the COMMIT) is not idle, and
	// the pool closes it rather than hand it out again.
	r.conn.Release()
	if err != nil {
		return err
	}
	return errors.Join(commitErr, closeErr)
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// QueryName is the name sqlc gives a generated statement: "-- name: GetOrgPlan :one" at its head.
func QueryName(sql string) string {
	rest, ok := strings.CutPrefix(sql, "-- name: ")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, " ")
	return name
}
