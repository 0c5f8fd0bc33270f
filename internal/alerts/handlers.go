package alerts

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
)

// Handlers serve the alerts operations of the spec.
type Handlers struct {
	pool  *pgxpool.Pool
	clock clock.Clock
}

func NewHandlers(pool *pgxpool.Pool, c clock.Clock) *Handlers {
	return &Handlers{pool: pool, clock: c}
}

var errNotFound = apierr.NotFound("Alert")

type cursor struct {
	At time.Time `json:"a"`
	ID uuid.UUID `json:"i"`
}

func (h *Handlers) ListAlerts(ctx context.Context, req api.ListAlertsRequestObject) (api.ListAlertsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	if p.SiteId != nil {
		if err := a.CheckSite(*p.SiteId); err != nil {
			return nil, err
		}
	}
	limit := paging.Limit(p.Limit)
	params := db.ListAlertsParams{
		OrgID: req.OrgId, Scope: a.SiteScope(), SiteID: p.SiteId, Kind: p.Kind,
		Open: p.Status == nil || *p.Status == api.AlertStatusOpen, MaxRows: paging.Fetch(limit),
	}
	if p.Cursor != nil {
		var c cursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		params.CursorAt, params.CursorID = &c.At, &c.ID
	}
	rows, err := db.New(h.pool).ListAlerts(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListAlerts200JSONResponse{Body: make([]api.Alert, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.Alert) any { return cursor{At: last.OpenedAt, ID: last.ID} })
	for _, r := range rows {
		out.Body = append(out.Body, toAPI(r))
	}
	return out, nil
}

// ResolveAlert closes an open alert on a member's word. One outside the member's sites is not
// found, as one of another organization is.
func (h *Handlers) ResolveAlert(ctx context.Context, req api.ResolveAlertRequestObject) (api.ResolveAlertResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var alert db.Alert
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		// Locked, so a resolution racing this one is seen here rather than lost.
		cur, err := q.GetAlertForUpdate(ctx, db.GetAlertForUpdateParams{OrgID: req.OrgId, ID: req.Id})
		if pg.IsNoRows(err) {
			return errNotFound
		}
		if err != nil {
			return err
		}
		if !a.CanSeeSite(cur.SiteID) {
			return errNotFound
		}
		if cur.ResolvedAt != nil {
			alert = cur // already closed: nothing to do
			return nil
		}
		if alert, err = q.ResolveAlert(ctx, db.ResolveAlertParams{OrgID: req.OrgId, ID: req.Id, ResolvedBy: a.UserID(), Now: now}); err != nil {
			return err
		}
		if err := audit.RecordSite(ctx, q, req.OrgId, cur.SiteID, req.Id, now); err != nil {
			return err
		}
		return hintSite(ctx, tx, req.OrgId, alert.SiteID)
	})
	if err != nil {
		return nil, err
	}
	return api.ResolveAlert200JSONResponse(toAPI(alert)), nil
}

func toAPI(r db.Alert) api.Alert {
	out := api.Alert{
		Id: r.ID, SiteId: r.SiteID, Kind: r.Kind, Severity: api.AlertSeverity(r.Severity), Message: r.Message,
		Status: api.AlertStatusOpen, OpenedAt: r.OpenedAt, ResolvedAt: r.ResolvedAt, ResolvedBy: r.ResolvedBy,
	}
	out.Subject.Type, out.Subject.Id = r.SubjectType, r.SubjectID
	if r.ResolvedAt != nil {
		out.Status = api.AlertStatusResolved
	}
	return out
}
