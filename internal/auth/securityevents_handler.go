package auth

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/paging"
)

type eventCursor struct {
	At time.Time `json:"at"`
	ID uuid.UUID `json:"id"`
}

// ListSecurityEvents pages the signed-in user's security log, newest first.
func (h *Handlers) ListSecurityEvents(ctx context.Context, req api.ListSecurityEventsRequestObject) (api.ListSecurityEventsResponseObject, error) {
	p, err := userPrincipal(ctx)
	if err != nil {
		return nil, err
	}
	limit := paging.Limit(req.Params.Limit)
	params := db.ListSecurityEventsParams{UserID: p.UserID, MaxRows: paging.Fetch(limit)}
	if req.Params.Cursor != nil {
		var c eventCursor
		if err := paging.DecodeCursor(*req.Params.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		params.CursorAt, params.CursorID = &c.At, &c.ID
	}
	rows, err := db.New(h.svc.pool).ListSecurityEvents(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListSecurityEvents200JSONResponse{Body: make([]api.SecurityEvent, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.ListSecurityEventsRow) any { return eventCursor{At: last.At, ID: last.ID} })
	for _, r := range rows {
		out.Body = append(out.Body, api.SecurityEvent{
			Id: r.ID, At: r.At, Kind: api.SecurityEventKind(r.Kind), Ip: r.Ip, UserAgent: r.UserAgent,
		})
	}
	return out, nil
}
