package audit

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/paging"
)

// Handlers serves the audit log.
type Handlers struct {
	pool *pgxpool.Pool
}

func NewHandlers(pool *pgxpool.Pool) *Handlers { return &Handlers{pool: pool} }

type cursor struct {
	At time.Time `json:"at"`
	ID uuid.UUID `json:"id"`
}

func (h *Handlers) ListAuditLog(ctx context.Context, req api.ListAuditLogRequestObject) (api.ListAuditLogResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	limit := paging.Limit(p.Limit)
	// A site-limited member reads their sites' entries only (x-site-scope site).
	params := db.ListAuditParams{OrgID: req.OrgId, Scope: a.SiteScope(), ActorID: p.ActorId, Action: p.Action, FromAt: p.From, ToAt: p.To, MaxRows: paging.Fetch(limit)}
	if p.Cursor != nil {
		var c cursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		params.CursorAt, params.CursorID = &c.At, &c.ID
	}
	rows, err := db.New(h.pool).ListAudit(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListAuditLog200JSONResponse{Body: make([]api.AuditEntry, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.ListAuditRow) any { return cursor{At: last.At, ID: last.ID} })
	for _, r := range rows {
		e := api.AuditEntry{Id: r.ID, At: r.At, Action: r.Action, TargetId: r.TargetID, SiteId: r.SiteID, Ip: r.Ip, RequestId: r.RequestID}
		e.Actor.Kind = api.AuditEntryActorKind(r.ActorKind)
		e.Actor.Id = r.ActorID
		if r.ActorName != "" {
			name := r.ActorName
			e.Actor.Name = &name
		}
		out.Body = append(out.Body, e)
	}
	return out, nil
}
