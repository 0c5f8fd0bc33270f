// Package webhooks owns webhook subscriptions and their delivery: the owner-only operations that
// manage subscriptions, and the Dispatcher that turns committed events (internal/events) into
// signed, at-most-once deliveries (internal/webhooks/delivery), from any replica.
package webhooks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/events"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/secret"
	"github.com/sous-app/sous/internal/webhooks/delivery"
)

// MaxSubscriptions caps an organization's subscriptions: each one multiplies every event into
// an outbound request.
const MaxSubscriptions = 20

// secretPrefix marks signing secrets, so they are recognisable in a receiver's configuration.
const secretPrefix = "whsec_"

// Handlers implements the webhook operations.
type Handlers struct {
	pool         *pgxpool.Pool
	clock        clock.Clock
	dispatcher   *Dispatcher
	allowPrivate bool
}

// NewHandlers serves the operations; test deliveries go through d.
func NewHandlers(pool *pgxpool.Pool, c clock.Clock, d *Dispatcher, allowPrivate bool) *Handlers {
	return &Handlers{pool: pool, clock: c, dispatcher: d, allowPrivate: allowPrivate}
}

func (h *Handlers) ListWebhooks(ctx context.Context, req api.ListWebhooksRequestObject) (api.ListWebhooksResponseObject, error) {
	rows, err := db.New(h.pool).ListWebhooks(ctx, req.OrgId)
	if err != nil {
		return nil, err
	}
	out := make(api.ListWebhooks200JSONResponse, 0, len(rows))
	for _, s := range rows {
		out = append(out, toAPI(s))
	}
	return out, nil
}

func (h *Handlers) CreateWebhook(ctx context.Context, req api.CreateWebhookRequestObject) (api.CreateWebhookResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	url, err := h.checkURL(ctx, req.Body.Url)
	if err != nil {
		return nil, err
	}
	filter, err := checkEvents(req.Body.Events)
	if err != nil {
		return nil, err
	}
	token, _ := secret.New(secretPrefix) // kept in clear: the server signs with it
	now := h.clock.Now()
	var creator *uuid.UUID
	if id := a.UserID(); id != uuid.Nil {
		creator = &id
	}
	var row db.WebhookSubscription
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		if err := q.LockOrgWebhooks(ctx, req.OrgId.String()); err != nil {
			return err
		}
		n, err := q.CountWebhooks(ctx, req.OrgId)
		if err != nil {
			return err
		}
		if n >= MaxSubscriptions {
			return apierr.Conflict(fmt.Sprintf("An organization can have at most %d webhook subscriptions", MaxSubscriptions)).WithCode(apierr.CodeWebhookLimitReached)
		}
		row, err = q.CreateWebhook(ctx, db.CreateWebhookParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, Url: url, Events: filter, Secret: token,
			CreatedBy: creator, Now: now,
		})
		if err != nil {
			return err
		}
		return audit.Record(ctx, q, req.OrgId, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	s := toAPI(row)
	return api.CreateWebhook201JSONResponse{Body: api.CreatedWebhookSubscription{
		Id: s.Id, Url: s.Url, Events: s.Events, Secret: token, Active: s.Active,
		LastDeliveryAt: s.LastDeliveryAt, LastStatus: s.LastStatus, FailureCount: s.FailureCount, CreatedAt: s.CreatedAt,
	}}, nil
}

func (h *Handlers) UpdateWebhook(ctx context.Context, req api.UpdateWebhookRequestObject) (api.UpdateWebhookResponseObject, error) {
	b := req.Body
	if b.Url == nil && b.Events == nil && b.Active == nil {
		return nil, apierr.InvalidField("body", "must change url, events or active")
	}
	var (
		url    string
		filter []string
		err    error
	)
	if b.Url != nil {
		if url, err = h.checkURL(ctx, *b.Url); err != nil {
			return nil, err
		}
	}
	if b.Events != nil {
		if filter, err = checkEvents(*b.Events); err != nil {
			return nil, err
		}
	}
	now := h.clock.Now()
	var row db.WebhookSubscription
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		cur, err := q.GetWebhook(ctx, db.GetWebhookParams{OrgID: req.OrgId, ID: req.Id})
		if err != nil {
			return notFound(err)
		}
		p := db.UpdateWebhookParams{OrgID: cur.OrgID, ID: cur.ID, Url: cur.Url, Events: cur.Events, Active: cur.Active, Now: now}
		if b.Url != nil {
			p.Url = url
		}
		if b.Events != nil {
			p.Events = filter
		}
		if b.Active != nil {
			p.Active = *b.Active
		}
		if row, err = q.UpdateWebhook(ctx, p); err != nil {
			return err
		}
		if !row.Active {
			if err := q.DropQueuedDeliveries(ctx, db.DropQueuedDeliveriesParams{OrgID: row.OrgID, SubscriptionID: row.ID}); err != nil {
				return err
			}
		}
		return audit.Record(ctx, q, req.OrgId, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateWebhook200JSONResponse(toAPI(row)), nil
}

func (h *Handlers) DeleteWebhook(ctx context.Context, req api.DeleteWebhookRequestObject) (api.DeleteWebhookResponseObject, error) {
	now := h.clock.Now()
	err := pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		n, err := q.DeleteWebhook(ctx, db.DeleteWebhookParams{OrgID: req.OrgId, ID: req.Id})
		if err != nil {
			return err
		}
		if n == 0 {
			return apierr.NotFound("Webhook")
		}
		return audit.Record(ctx, q, req.OrgId, req.Id, now)
	})
	if err != nil {
		return nil, err
	}
	return api.DeleteWebhook204Response{}, nil
}

// checkURL applies delivery.CheckURL, so a URL whose host is not public (in any form the
// resolver reads, or by what its name resolves to) is a 400 now rather than failed deliveries
// later. The delivery client checks the resolved addresses again at every connection.
func (h *Handlers) checkURL(ctx context.Context, raw string) (string, error) {
	url := strings.TrimSpace(raw)
	err := delivery.CheckURL(ctx, url, h.allowPrivate, h.dispatcher.resolver)
	var lookup *delivery.LookupError
	switch {
	case errors.As(err, &lookup):
		e := apierr.Unavailable(apierr.CodeServiceUnavailable, "The webhook URL's host could not be looked up; try again", 5*time.Second)
		e.Err = err
		return "", e
	case err != nil:
		return "", apierr.InvalidField("url", err.Error())
	}
	return url, nil
}

// checkEvents accepts names of the catalogue, or exactly ["*"]. The spec's enum has already
// refused unknown names; this also keeps "*" alone.
func checkEvents(in []api.WebhookEventName) ([]string, error) {
	out := make([]string, 0, len(in))
	for i, e := range in {
		name := string(e)
		switch {
		case name == events.All:
			if len(in) > 1 {
				return nil, apierr.InvalidField(fmt.Sprintf("events.%d", i), `"*" must be the only entry`)
			}
		case !events.Known(name):
			return nil, apierr.InvalidField(fmt.Sprintf("events.%d", i), fmt.Sprintf("%q is not an event of the catalogue", name))
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return nil, apierr.InvalidField("events", "must name at least one event")
	}
	return out, nil
}

func notFound(err error) error {
	if pg.IsNoRows(err) {
		return apierr.NotFound("Webhook")
	}
	return err
}

func toAPI(s db.WebhookSubscription) api.WebhookSubscription {
	evs := make([]api.WebhookEventName, 0, len(s.Events))
	for _, e := range s.Events {
		evs = append(evs, api.WebhookEventName(e))
	}
	var status *int
	if s.LastStatus != nil {
		v := int(*s.LastStatus)
		status = &v
	}
	return api.WebhookSubscription{
		Id: s.ID, Url: s.Url, Events: evs, Active: s.Active, LastDeliveryAt: s.LastDeliveryAt,
		LastStatus: status, FailureCount: int(s.FailureCount), CreatedAt: s.CreatedAt,
	}
}
