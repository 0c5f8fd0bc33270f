package pg

import (
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// SQLSTATE codes we classify; see
// https://www.postgresql.org/docs/current/errcodes-appendix.html.
const codeUniqueViolation = "23505"

// IsUniqueViolation reports whether err (or anything it wraps) is a PostgreSQL
// unique_violation, and if so which constraint or unique index was violated,
// so callers can map e.g. "users_email_key" to a precise API error.
func IsUniqueViolation(err error) (constraint string, ok bool) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == codeUniqueViolation {
		return pgErr.ConstraintName, true
	}
	return "", false
}

// IsNoRows reports whether err means a query that expected a row found none.
// It accepts database/sql's sentinel too, because code reached through
// pgx/v5/stdlib (e.g. goose) reports that one.
func IsNoRows(err error) bool {
	return errors.Is(err, pgx.ErrNoRows) || errors.Is(err, sql.ErrNoRows)
}
