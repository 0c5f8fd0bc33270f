// Package orgs owns organizations, their sites and day parts, members and invitations.
package orgs

import (
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/pg"
)

// Handlers implements the organization, site, member and invitation operations.
type Handlers struct {
	pool *pgxpool.Pool
	// lookups serves the plan-stable reads (the sites list) on cached generic plans.
	lookups *pg.Lookups
	clock   clock.Clock
	// sites keeps each organization's sites list at its version (sites_cache.go).
	sites *sitesCache
}

func NewHandlers(pool *pgxpool.Pool, lookups *pg.Lookups, c clock.Clock) *Handlers {
	return &Handlers{pool: pool, lookups: lookups, clock: c, sites: newSitesCache()}
}
