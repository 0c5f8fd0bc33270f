package webhooks

import (
	"context"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/paging"
)

func (h *Handlers) ListWebhookDeliveries(ctx context.Context, req api.ListWebhookDeliveriesRequestObject) (api.ListWebhookDeliveriesResponseObject, error) {
	q := db.New(h.pool)
	if _, err := q.GetWebhook(ctx, db.GetWebhookParams{OrgID: req.OrgId, ID: req.Id}); err != nil {
		return nil, notFound(err)
	}
	rows, err := q.ListWebhookDeliveries(ctx, db.ListWebhookDeliveriesParams{
		OrgID: req.OrgId, SubscriptionID: req.Id, MaxRows: int32(paging.Limit(req.Params.Limit)),
	})
	if err != nil {
		return nil, err
	}
	out := make(api.ListWebhookDeliveries200JSONResponse, 0, len(rows))
	for _, r := range rows {
		out = append(out, toAPIAttempt(r))
	}
	return out, nil
}

// TestWebhook sends one webhook.test event synchronously and answers with the attempt, whatever
// its outcome: the caller wants to see what the receiver did.
func (h *Handlers) TestWebhook(ctx context.Context, req api.TestWebhookRequestObject) (api.TestWebhookResponseObject, error) {
	row, err := h.dispatcher.SendTest(ctx, req.OrgId, req.Id, func(q *db.Queries) error {
		return audit.Record(ctx, q, req.OrgId, req.Id, h.clock.Now())
	})
	if err != nil {
		return nil, err
	}
	return api.TestWebhook200JSONResponse(toAPIAttempt(row)), nil
}

func toAPIAttempt(r db.WebhookDelivery) api.WebhookDeliveryAttempt {
	state := "queued"
	switch {
	case r.AttemptedAt == nil:
	case r.FinishedAt == nil:
		state = "sending"
	case r.Delivered != nil && *r.Delivered:
		state = "delivered"
	default:
		state = "failed"
	}
	out := api.WebhookDeliveryAttempt{
		Id: r.ID, EventId: r.EventID, Event: r.Event, State: api.WebhookDeliveryAttemptState(state),
		QueuedAt: r.QueuedAt, AttemptedAt: r.AttemptedAt, Error: r.Error,
	}
	if r.Status != nil {
		v := int(*r.Status)
		out.Status = &v
	}
	if r.DurationMs != nil {
		v := int(*r.DurationMs)
		out.DurationMs = &v
	}
	return out
}
