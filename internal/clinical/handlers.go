// Package clinical owns the patient census fed by HL7 v2: the ingest endpoint for hospital
// interface engines, the census and patients, the review of allergen and diet codes the
// vocabulary does not know, and registered-dietitian sign-off of diet orders.
//
// Parsing and vocabulary mapping are internal/hl7's; this package decides what each message does
// to the census (apply.go) and writes a whole batch in a few statements (write.go). Bodies lock
// the patients and control ids they touch, so that bodies of other patients run concurrently and
// one patient's messages apply in arrival order (locks.go).
package clinical

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/pg"
)

// Handlers implements the clinical operations.
type Handlers struct {
	pool   *pgxpool.Pool
	clock  clock.Clock
	logger *slog.Logger
	locks  censusLocks
	zones  sync.Map // IANA name → *time.Location
}

func NewHandlers(pool *pgxpool.Pool, c clock.Clock, logger *slog.Logger) *Handlers {
	if logger == nil {
		logger = slog.Default()
	}
	return &Handlers{pool: pool, clock: c, logger: logger, locks: newCensusLocks()}
}

func access(ctx context.Context) (authz.Access, error) { return authz.MustFromContext(ctx) }

// notFound turns "no rows" into the resource's 404.
func notFound(err error, thing string) error {
	if pg.IsNoRows(err) {
		return apierr.NotFound(thing)
	}
	return err
}

// location returns a site's time zone, cached (LoadLocation reads the zone database each time).
func (h *Handlers) location(name string) *time.Location {
	if l, ok := h.zones.Load(name); ok {
		return l.(*time.Location)
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		l = time.UTC
	}
	h.zones.Store(name, l)
	return l
}

// site loads a site of the organization within the caller's scope (404 otherwise).
func (h *Handlers) site(ctx context.Context, a authz.Access, orgID, siteID uuid.UUID) (db.Site, error) {
	if err := a.CheckSite(siteID); err != nil {
		return db.Site{}, err
	}
	s, err := db.New(h.pool).GetSite(ctx, db.GetSiteParams{OrgID: orgID, ID: siteID})
	return s, notFound(err, "Site")
}
