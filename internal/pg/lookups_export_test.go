package pg

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// LookupConn acquires a connection of the lookup pool (tests ask its session how it planned).
func LookupConn(ctx context.Context, l *Lookups) (*pgxpool.Conn, error) {
	return l.generic.Acquire(ctx)
}
