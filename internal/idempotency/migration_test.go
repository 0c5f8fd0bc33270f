package idempotency_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	migrations "github.com/sous-app/sous/db/migrations"
	"github.com/sous-app/sous/internal/pg/pgtest"
)

// The migration that made keys per caller: rows kept under an organization alone (no caller)
// are gone, rows already per caller stay, as callers without a membership's rights.
func TestMigrationKeepsOnlyRowsOfACaller(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	sql, err := migrations.FS.ReadFile("0026_idempotency_callers.sql")
	if err != nil {
		t.Fatal(err)
	}
	up, down, ok := strings.Cut(string(sql), "-- +goose Down")
	if !ok {
		t.Fatal("no Down section")
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(t.Context(), q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(down) // the table as the earlier migrations left it
	for _, scope := range []string{"org:" + uuid.NewString(), "user:" + uuid.NewString(), "ip:192.0.2.7"} {
		exec(`INSERT INTO idempotency_keys (scope, key_hash, token, request_hash, reserved_at, expires_at, status, response)
		      VALUES ($1, '\x01', $2, '\x02', now(), now() + interval '1 day', 201, '\x03')`, scope, uuid.New())
	}
	exec(up)

	rows, err := pool.Query(t.Context(), `SELECT split_part(scope, ':', 1), role IS NULL, cardinality(site_ids), cardinality(credentials) FROM idempotency_keys ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var kind string
		var noRole bool
		var sites, creds int
		if err := rows.Scan(&kind, &noRole, &sites, &creds); err != nil {
			t.Fatal(err)
		}
		if !noRole || sites != 0 || creds != 0 {
			t.Errorf("%s row has rights %v %d %d", kind, !noRole, sites, creds)
		}
		got = append(got, kind)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "ip,user" {
		t.Fatalf("rows left %v, want ip and user", got)
	}
}
