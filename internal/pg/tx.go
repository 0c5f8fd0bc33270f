package pg

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// InTx runs fn inside a transaction on pool. The transaction commits if fn
// returns nil and rolls back otherwise; if fn panics (or calls runtime.Goexit,
// as t.FailNow does) it rolls back and the panic continues unchanged.
//
// fn must not keep tx beyond its return.
func InTx(ctx context.Context, pool *pgxpool.Pool, fn func(tx pgx.Tx) error) error {
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
		return fmt.Errorf("pg: commit transaction: %w", err)
	}
	return nil
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
