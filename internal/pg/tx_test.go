package pg_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/pg/pgtest"
)

func newCounterDB(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool := pgtest.New(t)
	if _, err := pool.Exec(t.Context(), "CREATE TABLE counter (n int NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	return pool
}

func rowCount(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM counter").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func insert(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, "INSERT INTO counter VALUES (1)")
	return err
}

func TestInTxCommits(t *testing.T) {
	t.Parallel()
	pool := newCounterDB(t)
	err := pg.InTx(t.Context(), pool, func(tx pgx.Tx) error { return insert(t.Context(), tx) })
	if err != nil {
		t.Fatalf("InTx: %v", err)
	}
	if n := rowCount(t, pool); n != 1 {
		t.Fatalf("rows after commit = %d, want 1", n)
	}
}

func TestInTxRollsBackOnError(t *testing.T) {
	t.Parallel()
	pool := newCounterDB(t)
	errBoom := errors.New("boom")
	err := pg.InTx(t.Context(), pool, func(tx pgx.Tx) error {
		if err := insert(t.Context(), tx); err != nil {
			return err
		}
		return errBoom
	})
	if !errors.Is(err, errBoom) {
		t.Fatalf("InTx error = %v, want the callback's error", err)
	}
	if n := rowCount(t, pool); n != 0 {
		t.Fatalf("rows after rollback = %d, want 0", n)
	}
}

func TestInTxRollsBackOnPanicAndRepanics(t *testing.T) {
	t.Parallel()
	pool := newCounterDB(t)
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v, want the callback's panic value", r)
			}
		}()
		_ = pg.InTx(t.Context(), pool, func(tx pgx.Tx) error {
			if err := insert(t.Context(), tx); err != nil {
				t.Error(err)
			}
			panic("boom")
		})
		t.Fatal("InTx returned instead of re-panicking")
	}()
	if n := rowCount(t, pool); n != 0 {
		t.Fatalf("rows after panic = %d, want 0", n)
	}
	if acquired := pool.Stat().AcquiredConns(); acquired != 0 {
		t.Fatalf("%d connections still acquired after panic", acquired)
	}
}

func TestInTxReportsFailedCommit(t *testing.T) {
	t.Parallel()
	pool := newCounterDB(t)
	// A statement error that the callback swallows leaves the transaction
	// aborted; COMMIT then rolls back, which must not look like success.
	err := pg.InTx(t.Context(), pool, func(tx pgx.Tx) error {
		_, _ = tx.Exec(t.Context(), "INSERT INTO counter VALUES (NULL)")
		return nil
	})
	if err == nil {
		t.Fatal("InTx succeeded although the transaction was aborted")
	}
}
