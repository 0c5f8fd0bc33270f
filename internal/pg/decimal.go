package pg

import (
	"context"

	pgxdecimal "github.com/jackc/pgx-shopspring-decimal"
	"github.com/jackc/pgx/v5"
)

// registerDecimal makes pgx read and write PostgreSQL numeric as shopspring decimals, so
// quantities and costs stay exact from the column to the JSON string and back (sqlc maps
// numeric to decimal.Decimal; see db/sqlc.yaml).
func registerDecimal(_ context.Context, conn *pgx.Conn) error {
	pgxdecimal.Register(conn.TypeMap())
	return nil
}
