package pg_test

import (
	"database/sql"
	"errors"
	"fmt"
	"testing"

	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/pg/pgtest"
)

func TestIsUniqueViolation(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	ctx := t.Context()
	if _, err := pool.Exec(ctx, `
		CREATE TABLE accounts (email text NOT NULL, CONSTRAINT accounts_email_key UNIQUE (email));
		INSERT INTO accounts VALUES ('a@example.com')`); err != nil {
		t.Fatal(err)
	}

	_, err := pool.Exec(ctx, "INSERT INTO accounts VALUES ('a@example.com')")
	constraint, ok := pg.IsUniqueViolation(fmt.Errorf("create account: %w", err))
	if !ok || constraint != "accounts_email_key" {
		t.Fatalf("IsUniqueViolation(%v) = %q, %v; want accounts_email_key, true", err, constraint, ok)
	}

	_, err = pool.Exec(ctx, "INSERT INTO accounts VALUES (NULL)")
	if _, ok := pg.IsUniqueViolation(err); ok || err == nil {
		t.Fatalf("not-null violation %v classified as unique violation", err)
	}
	if _, ok := pg.IsUniqueViolation(nil); ok {
		t.Fatal("nil classified as unique violation")
	}
}

func TestIsForeignKeyViolation(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	ctx := t.Context()
	if _, err := pool.Exec(ctx, `
		CREATE TABLE gateways (site int NOT NULL, id int NOT NULL, PRIMARY KEY (site, id));
		CREATE TABLE probes (site int NOT NULL, gateway int NOT NULL,
			CONSTRAINT probes_gateway_fkey FOREIGN KEY (site, gateway) REFERENCES gateways (site, id));
		INSERT INTO gateways VALUES (1, 1); INSERT INTO probes VALUES (1, 1)`); err != nil {
		t.Fatal(err)
	}
	// Both sides: a row referring to no key, and a referenced key changed under its rows.
	_, err := pool.Exec(ctx, "INSERT INTO probes VALUES (2, 1)")
	if !pg.IsForeignKeyViolation(fmt.Errorf("create probe: %w", err), "probes_gateway_fkey") {
		t.Fatalf("insert: %v not classified", err)
	}
	_, err = pool.Exec(ctx, "UPDATE gateways SET site = 2")
	if !pg.IsForeignKeyViolation(err, "probes_gateway_fkey") || pg.IsForeignKeyViolation(err, "other_fkey") {
		t.Fatalf("update: %v misclassified", err)
	}
	if pg.IsForeignKeyViolation(nil, "probes_gateway_fkey") {
		t.Fatal("nil classified as a foreign key violation")
	}
}

func TestIsNoRows(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	var n int
	err := pool.QueryRow(t.Context(), "SELECT 1 WHERE false").Scan(&n)
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{err, true},
		{fmt.Errorf("get user: %w", err), true},
		{sql.ErrNoRows, true},
		{errors.New("no rows in result set"), false},
		{nil, false},
	} {
		if got := pg.IsNoRows(tc.err); got != tc.want {
			t.Errorf("IsNoRows(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
