package clinical

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/paging"
)

type messageCursor struct {
	At time.Time `json:"a"`
	ID uuid.UUID `json:"i"`
}

// ListHl7Messages pages through the message trail, newest first.
func (h *Handlers) ListHl7Messages(ctx context.Context, req api.ListHl7MessagesRequestObject) (api.ListHl7MessagesResponseObject, error) {
	a, err := access(ctx)
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
	params := db.ListHl7MessagesParams{OrgID: req.OrgId, Scope: a.SiteScope(), SiteID: p.SiteId, ControlID: p.ControlId, MaxRows: paging.Fetch(limit)}
	if p.Outcome != nil {
		o := string(*p.Outcome)
		params.Outcome = &o
	}
	if p.Cursor != nil {
		var c messageCursor
		if err := paging.DecodeCursor(*p.Cursor, &c); err != nil {
			return nil, err
		}
		params.CursorAt, params.CursorID = c.At, &c.ID
	}
	rows, err := db.New(h.pool).ListHl7Messages(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListHl7Messages200JSONResponse{Body: make([]api.Hl7MessageRecord, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.Hl7Message) any { return messageCursor{At: last.ReceivedAt, ID: last.ID} })
	for _, r := range rows {
		m := api.Hl7MessageRecord{
			Id: r.ID, SiteId: r.SiteID, ReceivedAt: r.ReceivedAt, Index: int(r.BatchIndex), ControlId: r.ControlID,
			SendingApplication: r.SendingApplication, SendingFacility: r.SendingFacility,
			Type: r.MessageType, Outcome: api.Hl7Outcome(r.Outcome), Reason: r.Reason, Mrn: r.Mrn, PatientId: r.PatientID,
			RequestId: r.RequestID, Raw: r.Raw,
		}
		if r.Action != nil {
			act := api.Hl7Action(*r.Action)
			m.Action = &act
		}
		out.Body = append(out.Body, m)
	}
	return out, nil
}
