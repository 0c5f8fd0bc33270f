// Package orgs owns organizations, their sites and day parts, members and invitations.
package orgs

import (
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/internal/clock"
)

// Handlers implements the organization, site, member and invitation operations.
type Handlers struct {
	pool  *pgxpool.Pool
	clock clock.Clock
}

func NewHandlers(pool *pgxpool.Pool, c clock.Clock) *Handlers {
	return &Handlers{pool: pool, clock: c}
}
