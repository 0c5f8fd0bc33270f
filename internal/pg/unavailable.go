package pg

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sous-app/sous/internal/apierr"
)

// RetryAfter is what a client is told to wait after a database outage: failovers finish in
// seconds, and a pool reconnects at once.
const RetryAfter = time.Second

// Codes of the 503s a database outage answers.
const (
	CodeUnavailable    = "database_unavailable"
	CodeOutcomeUnknown = "outcome_unknown"
)

// ErrOutcomeUnknown is wrapped by InTx's error when the connection failed while COMMIT was in
// flight: the transaction may or may not have committed.
var ErrOutcomeUnknown = errors.New("pg: the outcome of the commit is unknown")

// SQLSTATEs that mean "this server cannot serve us now", not "this request is wrong".
var unavailableCodes = map[string]bool{
	"57P01": true, // admin_shutdown: fast shutdown, or a failover's demotion
	"57P02": true, // crash_shutdown
	"57P03": true, // cannot_connect_now: starting up, shutting down, recovering
	"57014": true, // query_canceled: statement_timeout
	"25006": true, // read_only_sql_transaction: connected to a standby
	"53300": true, // too_many_connections
	"40001": true, // serialization_failure, once InTx's retries are spent
	"40P01": true, // deadlock_detected, likewise
}

// Unavailable maps an error caused by the database being unreachable, read-only, overloaded or
// too slow for the request's deadline to the 503 the client should see (Retry-After: 1), and
// anything else to nil. It is the one place where database failures become API errors; the
// HTTP error renderer calls it.
//
// A deadline or cancellation anywhere in err counts: the database is the only dependency a
// request waits on, so a request that ran out of time was waiting on it (acquiring a pooled
// connection, connecting, or in a query).
func Unavailable(err error) *apierr.Error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrOutcomeUnknown) {
		return unavailable(CodeOutcomeUnknown,
			"The connection to the database was lost while saving; the change may or may not have been applied. Repeat the request with the same Idempotency-Key",
			RetryAfter, err)
	}
	if !isUnavailable(err) {
		return nil
	}
	return unavailable(CodeUnavailable, "The database is unavailable; retry shortly", RetryAfter, err)
}

func isUnavailable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 08 is connection exceptions.
		return unavailableCodes[pgErr.Code] || (len(pgErr.Code) == 5 && pgErr.Code[:2] == "08")
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.As(err, &connectErr),
		errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, context.Canceled),
		pgconn.Timeout(err),
		errors.As(err, &netErr),
		errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.EPIPE),
		// A connection pgx already closed because the server went away under it.
		errors.Is(err, pgconn.ErrConnClosed):
		return true
	}
	return false
}

func unavailable(code, message string, retryAfter time.Duration, cause error) *apierr.Error {
	e := apierr.Unavailable(code, message, retryAfter)
	e.Err = cause
	return e
}

// ErrReadOnly means the session cannot write: the server is a standby (in recovery) or the
// session defaults to read-only transactions.
var ErrReadOnly = errors.New("pg: the database session is read-only")

// Writable reports, with ErrReadOnly, a session that cannot write. A standby answers reads, so a
// check that only reads would call a replica ready seconds before writes work again after a
// failover.
func Writable(ctx context.Context, pool interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
},
) error {
	var readOnly bool
	err := pool.QueryRow(ctx, `SELECT pg_is_in_recovery() OR current_setting('transaction_read_only')::bool`).Scan(&readOnly)
	if err != nil {
		return err
	}
	if readOnly {
		return ErrReadOnly
	}
	return nil
}
