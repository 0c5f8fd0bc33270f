// Package catering sells events: clients, events, quotes computed in exact cents (shared with
// the client by a capability link, accepted there or recorded by staff), deposit and final
// invoices, payments, and the public quote and invoice pages.
package catering

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/capability"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/pg"
)

// Handlers serve the catering operations and the public quote and invoice links.
type Handlers struct {
	pool     *pgxpool.Pool
	clock    clock.Clock
	resolver *capability.Resolver
	webURL   string
}

// NewHandlers serves the operations; webURL is SOUS_WEB_URL, the base of the public links.
func NewHandlers(pool *pgxpool.Pool, c clock.Clock, resolver *capability.Resolver, webURL string) *Handlers {
	return &Handlers{pool: pool, clock: c, resolver: resolver, webURL: webURL}
}

var (
	errClientNotFound  = apierr.NotFound("Client")
	errEventNotFound   = apierr.NotFound("Event")
	errQuoteNotFound   = apierr.NotFound("Quote")
	errInvoiceNotFound = apierr.NotFound("Invoice")
)

// eventFor loads an event the member can see (another site's answers 404, as another
// organization's does).
func eventFor(ctx context.Context, q *db.Queries, a authz.Access, orgID, id uuid.UUID, lock bool) (db.CateringEvent, error) {
	var (
		e   db.CateringEvent
		err error
	)
	if lock {
		e, err = q.GetCateringEventForUpdate(ctx, db.GetCateringEventForUpdateParams{OrgID: orgID, ID: id})
	} else {
		e, err = q.GetCateringEvent(ctx, db.GetCateringEventParams{OrgID: orgID, ID: id})
	}
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(e.SiteID)) {
		return db.CateringEvent{}, errEventNotFound
	}
	return e, err
}

// localDate converts an API date to a database date and back.
func toPGDate(d openapi_types.Date) pgtype.Date {
	return pgtype.Date{Time: time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC), Valid: true}
}

func fromPGDate(d pgtype.Date) openapi_types.Date { return openapi_types.Date{Time: d.Time} }

// expiresAt is the instant a quote valid until date stops being acceptable: the start of the
// next day in the site's time zone.
func expiresAt(validUntil pgtype.Date, timezone string) time.Time {
	loc, err := time.LoadLocation(timezone)
	if err != nil {
		loc = time.UTC
	}
	d := validUntil.Time
	return time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, loc)
}
