package pg

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// LookupConn acquires a connection of the lookup pool (tests ask its session how it planned).
func LookupConn(ctx context.Context, l *Lookups) (*pgxpool.Conn, error) {
	return l.generic.Acquire(ctx)
}

// LookupSlotsTaken is how many of the lookup pool's slots are held (tests: none once done).
func LookupSlotsTaken(l *Lookups) int { return len(l.slots) }
