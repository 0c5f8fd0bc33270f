package webhooks

import (
	"context"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/webhooks/delivery"
)

// ListEvents is the event feed: the organization's events of the last Retention, oldest first,
// each the very body a webhook delivery of it carries (delivery.Envelope.Body), so a receiver
// that missed deliveries reconciles from here with the code that handles deliveries.
//
// The feed keeps Retention (30 days) whatever the outbox's pruning does: Maintain deletes an
// event only once it was dispatched more than Retention ago, which is after its `at`, and the
// feed lists nothing older than Retention, so what it shows does not depend on when maintenance
// last ran.
func (h *Handlers) ListEvents(ctx context.Context, req api.ListEventsRequestObject) (api.ListEventsResponseObject, error) {
	p := req.Params
	limit := paging.Limit(p.Limit)
	since := h.clock.Now().Add(-Retention)
	// Without after, the position is the start of the window: every event kept is after it.
	params := db.ListOrgEventsParams{OrgID: req.OrgId, Since: since, AfterAt: since, AfterID: uuid.Nil, MaxRows: paging.Fetch(limit)}
	if p.Types != nil {
		for _, t := range *p.Types {
			params.Types = append(params.Types, string(t))
		}
	}
	q := db.New(h.pool)
	if p.After != nil {
		at, err := q.EventPosition(ctx, db.EventPositionParams{OrgID: req.OrgId, ID: *p.After, Since: since})
		if pg.IsNoRows(err) {
			return nil, apierr.InvalidField("after", "is not an event of this organization within the last 30 days")
		}
		if err != nil {
			return nil, err
		}
		params.AfterAt, params.AfterID = at, *p.After
	}
	rows, err := q.ListOrgEvents(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListEvents200JSONResponse{Body: make([]api.Event, 0, min(len(rows), limit))}
	rows, out.Headers.Link = paging.PageAt(ctx, rows, limit, "after", func(last db.ListOrgEventsRow) string { return last.ID.String() })
	for _, r := range rows {
		body, err := delivery.Envelope{ID: r.ID, Event: r.Name, OrgID: req.OrgId, At: r.At, Data: r.Data}.Body()
		if err != nil {
			return nil, err
		}
		var e api.Event
		if err := e.UnmarshalJSON(body); err != nil {
			return nil, err
		}
		out.Body = append(out.Body, e)
	}
	return out, nil
}
