package pg

import (
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// SQLSTATE codes we classify; see
// https://www.postgresql.org/docs/current/errcodes-appendix.html.
const (
	codeUniqueViolation     = "23505"
	codeForeignKeyViolation = "23503"
)

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

// IsForeignKeyViolation reports whether err (or anything it wraps) is a PostgreSQL
// foreign_key_violation of the named constraint: a row referring to one that is not there, or
// a referenced row's key changed while rows still refer to it.
func IsForeignKeyViolation(err error, constraint string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == codeForeignKeyViolation && pgErr.ConstraintName == constraint
}

// IsNoRows reports whether err means a query that expected a row found none.
// It accepts database/sql's sentinel too, because code reached through
// pgx/v5/stdlib (e.g. goose) reports that one.
func IsNoRows(err error) bool {
	return errors.Is(err, pgx.ErrNoRows) || errors.Is(err, sql.ErrNoRows)
}
