package pg

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// txAttempts is how many times InTx runs a transaction that fails with a serialization failure
// or a deadlock: such a failure says nothing about the request, and a second run usually
// succeeds. Past that the error reaches the client as a 503.
const txAttempts = 3

// InTx runs fn inside a transaction on pool. The transaction commits if fn
// returns nil and rolls back otherwise; if fn panics (or calls runtime.Goexit,
// as t.FailNow does) it rolls back and the panic continues unchanged.
//
// A transaction that fails with a serialization failure (40001) or a deadlock
// (40P01) is run again, up to three times in all, so fn may run more than once:
// it must not have effects outside tx other than setting its results.
// A commit whose outcome is unknown (the connection failed while COMMIT was in
// flight) returns an error wrapping ErrOutcomeUnknown.
//
// fn must not keep tx beyond its return.
func InTx(ctx context.Context, pool *pgxpool.Pool, fn func(tx pgx.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := inTx(ctx, pool, fn)
		if attempt >= txAttempts || !retryable(err) || ctx.Err() != nil {
			return err
		}
		// A short random pause keeps the transactions that collided from colliding again.
		pause := time.Duration(attempt) * (5*time.Millisecond + rand.N(20*time.Millisecond))
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
	}
}

func retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "40P01")
}

func inTx(ctx context.Context, pool *pgxpool.Pool, fn func(tx pgx.Tx) error) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("pg: begin transaction: %w", err)
	}
	finished := false
	defer func() {
		if !finished {
			// Deferred rather than recovered so that the panic value and stack
			// reach the caller untouched; only the connection is cleaned up.
			rollback(ctx, tx)
		}
	}()

	if err := fn(tx); err != nil {
		finished = true
		rollback(ctx, tx)
		return err
	}
	finished = true
	if err := tx.Commit(ctx); err != nil {
		return commitError(err)
	}
	return nil
}

// commitError tells a commit the server refused (it rolled back: the error is the server's
// answer) or that never left (pgx says it is safe to retry) from one whose answer was lost.
func commitError(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) || pgconn.SafeToRetry(err) ||
		errors.Is(err, pgx.ErrTxCommitRollback) || errors.Is(err, pgx.ErrTxClosed) {
		return fmt.Errorf("pg: commit transaction: %w", err)
	}
	return fmt.Errorf("pg: commit transaction: %w: %w", ErrOutcomeUnknown, err)
}

func rollback(ctx context.Context, tx pgx.Tx) {
	// The caller's context may be the reason we are rolling back (request
	// cancelled); a cancelled rollback would make pgx close the connection
	// instead of returning it to the pool.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	// A failed rollback makes pgx close the connection, which aborts the
	// transaction server-side, so there is nothing more useful to do with err.
	_ = tx.Rollback(ctx)
}
