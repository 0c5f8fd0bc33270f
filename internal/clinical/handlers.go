// Package clinical owns the patient census fed by HL7 v2: the ingest endpoint for hospital
// interface engines, the census and patients, the review of allergen and diet codes the
// vocabulary does not know, and registered-dietitian sign-off of diet orders.
//
// Parsing and vocabulary mapping are internal/hl7's; this package decides what each message does
// to the census (apply.go) and writes a whole batch in a few statements (write.go).
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
	"github.com/sous-app/sous/internal/metrics"
	"github.com/sous-app/sous/internal/pg"
)

// Handlers implements the clinical operations.
type Handlers struct {
	pool   *pgxpool.Pool
	clock  clock.Clock
	logger *slog.Logger
	locks  orgLocks
	zones  sync.Map // IANA name → *time.Location
}

func NewHandlers(pool *pgxpool.Pool, c clock.Clock, logger *slog.Logger) *Handlers {
	if logger == nil {
		logger = slog.Default()
	}
	return &Handlers{pool: pool, clock: c, logger: logger, locks: orgLocks{m: map[uuid.UUID]*orgLock{}}}
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

// orgLocks serializes this replica's census writers per organization before they take a
// database connection; the advisory lock (LockClinicalOrg) does the same across replicas. Waiting
// here rather than on the advisory lock keeps queued requests from holding pooled connections.
type orgLocks struct {
	mu sync.Mutex
	m  map[uuid.UUID]*orgLock
}

type orgLock struct {
	ch   chan struct{} // holds a token while locked
	refs int
}

// maxWaiting bounds the census writers of one organization queued on this replica: beyond it an
// ingest answers 429 at once instead of holding its body in memory until the client gives up.
// Interface engines send one batch at a time per connection, so only a burst of retries or a
// runaway client gets there.
const maxWaiting = 64

func (l *orgLocks) lock(ctx context.Context, id uuid.UUID) (func(), error) {
	l.mu.Lock()
	e := l.m[id]
	if e == nil {
		e = &orgLock{ch: make(chan struct{}, 1)}
		l.m[id] = e
	}
	if e.refs > maxWaiting {
		l.mu.Unlock()
		metrics.RateLimitedBy("census_writers")
		return nil, apierr.RateLimited(time.Second)
	}
	e.refs++
	l.mu.Unlock()
	release := func() {
		l.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(l.m, id)
		}
		l.mu.Unlock()
	}
	select {
	case e.ch <- struct{}{}:
		return func() { <-e.ch; release() }, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}
