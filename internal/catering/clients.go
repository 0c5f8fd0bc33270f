package catering

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
)

type nameCursor struct {
	Name string    `json:"n"`
	ID   uuid.UUID `json:"i"`
}

func (h *Handlers) ListCateringClients(ctx context.Context, req api.ListCateringClientsRequestObject) (api.ListCateringClientsResponseObject, error) {
	limit := paging.Limit(req.Params.Limit)
	p := db.ListCateringClientsParams{OrgID: req.OrgId, MaxRows: paging.Fetch(limit)}
	if req.Params.Cursor != nil {
		var c nameCursor
		if err := paging.DecodeCursor(*req.Params.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		p.CursorName, p.CursorID = &c.Name, &c.ID
	}
	rows, err := db.New(h.pool).ListCateringClients(ctx, p)
	if err != nil {
		return nil, err
	}
	out := api.ListCateringClients200JSONResponse{Body: make([]api.CateringClient, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.CateringClient) any { return nameCursor{Name: last.Name, ID: last.ID} })
	for _, r := range rows {
		out.Body = append(out.Body, toAPIClient(r))
	}
	return out, nil
}

func (h *Handlers) CreateCateringClient(ctx context.Context, req api.CreateCateringClientRequestObject) (api.CreateCateringClientResponseObject, error) {
	b, err := cleanClient(req.Body)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var row db.CateringClient
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		row, err = q.CreateCateringClient(ctx, db.CreateCateringClientParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, Name: b.Name, Company: b.Company, Email: b.Email,
			Phone: b.Phone, BillingAddress: b.BillingAddress, Now: now,
		})
		if err != nil {
			return err
		}
		return audit.Record(ctx, q, req.OrgId, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateCateringClient201JSONResponse{Body: toAPIClient(row)}, nil
}

func (h *Handlers) UpdateCateringClient(ctx context.Context, req api.UpdateCateringClientRequestObject) (api.UpdateCateringClientResponseObject, error) {
	b, err := cleanClient(req.Body)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var row db.CateringClient
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		row, err = q.UpdateCateringClient(ctx, db.UpdateCateringClientParams{
			ID: req.Id, OrgID: req.OrgId, Name: b.Name, Company: b.Company, Email: b.Email,
			Phone: b.Phone, BillingAddress: b.BillingAddress, Now: now,
		})
		if pg.IsNoRows(err) {
			return errClientNotFound
		}
		if err != nil {
			return err
		}
		return audit.Record(ctx, q, req.OrgId, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateCateringClient200JSONResponse(toAPIClient(row)), nil
}

type clientFields struct {
	Name                                  string
	Company, Email, Phone, BillingAddress *string
}

func cleanClient(b *api.CateringClientRequest) (clientFields, error) {
	out := clientFields{Name: strings.TrimSpace(b.Name), Company: b.Company, Phone: b.Phone, BillingAddress: b.BillingAddress}
	if out.Name == "" {
		return out, apierr.InvalidField("name", "must not be blank")
	}
	if b.Email != nil {
		e := string(*b.Email)
		out.Email = &e
	}
	for _, f := range []**string{&out.Company, &out.Email, &out.Phone, &out.BillingAddress} {
		*f = trimmed(*f)
	}
	return out, nil
}

// trimmed is s without surrounding spaces, nil when nothing is left.
func trimmed(s *string) *string {
	if s == nil {
		return nil
	}
	if t := strings.TrimSpace(*s); t != "" {
		return &t
	}
	return nil
}

func toAPIClient(r db.CateringClient) api.CateringClient {
	return api.CateringClient{
		Id: r.ID, Name: r.Name, Company: r.Company, Email: r.Email, Phone: r.Phone, BillingAddress: r.BillingAddress,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}

// --- events

type timeCursor struct {
	At time.Time `json:"a"`
	ID uuid.UUID `json:"i"`
}

func (h *Handlers) ListCateringEvents(ctx context.Context, req api.ListCateringEventsRequestObject) (api.ListCateringEventsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	limit := paging.Limit(req.Params.Limit)
	p := db.ListCateringEventsParams{OrgID: req.OrgId, Scope: a.SiteScope(), MaxRows: paging.Fetch(limit)}
	if req.Params.Cursor != nil {
		var c timeCursor
		if err := paging.DecodeCursor(*req.Params.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		p.CursorAt, p.CursorID = &c.At, &c.ID
	}
	rows, err := db.New(h.pool).ListCateringEvents(ctx, p)
	if err != nil {
		return nil, err
	}
	out := api.ListCateringEvents200JSONResponse{Body: make([]api.CateringEvent, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.CateringEvent) any { return timeCursor{At: last.StartsAt, ID: last.ID} })
	for _, r := range rows {
		out.Body = append(out.Body, toAPIEvent(r))
	}
	return out, nil
}

func (h *Handlers) GetCateringEvent(ctx context.Context, req api.GetCateringEventRequestObject) (api.GetCateringEventResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	e, err := eventFor(ctx, db.New(h.pool), a, req.OrgId, req.Id, false)
	if err != nil {
		return nil, err
	}
	return api.GetCateringEvent200JSONResponse(toAPIEvent(e)), nil
}

func (h *Handlers) CreateCateringEvent(ctx context.Context, req api.CreateCateringEventRequestObject) (api.CreateCateringEventResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b, err := cleanEvent(req.Body)
	if err != nil {
		return nil, err
	}
	status := "inquiry"
	if b.Status != nil {
		status = string(*b.Status)
		if status == "contracted" {
			return nil, apierr.InvalidField("status", "contracted is set by accepting a quote")
		}
	}
	if err := a.CheckSite(b.SiteId); err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var row db.CateringEvent
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		if err := checkClientAndSite(ctx, q, req.OrgId, b.ClientId, b.SiteId); err != nil {
			return err
		}
		row, err = q.CreateCateringEvent(ctx, db.CreateCateringEventParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, ClientID: b.ClientId, SiteID: b.SiteId, Name: b.Name,
			StartsAt: b.StartsAt, EndsAt: b.EndsAt, GuestCount: int32(b.GuestCount), Venue: b.Venue, Status: status, Now: now,
		})
		if err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, row.SiteID, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateCateringEvent201JSONResponse{Body: toAPIEvent(row)}, nil
}

func (h *Handlers) UpdateCateringEvent(ctx context.Context, req api.UpdateCateringEventRequestObject) (api.UpdateCateringEventResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b, err := cleanEvent(req.Body)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var row db.CateringEvent
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		cur, err := eventFor(ctx, q, a, req.OrgId, req.Id, true)
		if err != nil {
			return err
		}
		if err := a.CheckSite(b.SiteId); err != nil {
			return err
		}
		status := cur.Status
		if b.Status != nil {
			status = string(*b.Status)
		}
		switch {
		case status == "contracted" && cur.Status != "contracted":
			return apierr.InvalidField("status", "contracted is set by accepting a quote")
		case cur.Status == "contracted" && status != "contracted" && status != "completed" && status != "cancelled":
			return apierr.Conflict("A contracted event can only become completed or cancelled").WithCode(apierr.CodeContractImmutable)
		case cur.Status == "contracted" && (b.ClientId != cur.ClientID || b.SiteId != cur.SiteID):
			return apierr.Conflict("A contracted event keeps its client and site").WithCode(apierr.CodeContractImmutable)
		}
		if err := checkClientAndSite(ctx, q, req.OrgId, b.ClientId, b.SiteId); err != nil {
			return err
		}
		row, err = q.UpdateCateringEvent(ctx, db.UpdateCateringEventParams{
			ID: req.Id, OrgID: req.OrgId, ClientID: b.ClientId, SiteID: b.SiteId, Name: b.Name,
			StartsAt: b.StartsAt, EndsAt: b.EndsAt, GuestCount: int32(b.GuestCount), Venue: b.Venue, Status: status, Now: now,
		})
		if err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, row.SiteID, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateCateringEvent200JSONResponse(toAPIEvent(row)), nil
}

func checkClientAndSite(ctx context.Context, q *db.Queries, orgID, clientID, siteID uuid.UUID) error {
	if _, err := q.GetCateringClient(ctx, db.GetCateringClientParams{OrgID: orgID, ID: clientID}); err != nil {
		if pg.IsNoRows(err) {
			return errClientNotFound
		}
		return err
	}
	if _, err := q.GetSite(ctx, db.GetSiteParams{OrgID: orgID, ID: siteID}); err != nil {
		if pg.IsNoRows(err) {
			return apierr.NotFound("Site")
		}
		return err
	}
	return nil
}

func cleanEvent(b *api.CateringEventRequest) (api.CateringEventRequest, error) {
	out := *b
	out.Name = strings.TrimSpace(out.Name)
	if out.Name == "" {
		return out, apierr.InvalidField("name", "must not be blank")
	}
	if out.EndsAt.Before(out.StartsAt) {
		return out, apierr.InvalidField("endsAt", "must not be before startsAt")
	}
	out.StartsAt, out.EndsAt = out.StartsAt.UTC(), out.EndsAt.UTC()
	if out.Venue != nil {
		if v := strings.TrimSpace(*out.Venue); v == "" {
			out.Venue = nil
		} else {
			out.Venue = &v
		}
	}
	return out, nil
}

func toAPIEvent(r db.CateringEvent) api.CateringEvent {
	return api.CateringEvent{
		Id: r.ID, ClientId: r.ClientID, SiteId: r.SiteID, Name: r.Name, StartsAt: r.StartsAt, EndsAt: r.EndsAt,
		GuestCount: int(r.GuestCount), Venue: r.Venue, Status: api.CateringEventStatus(r.Status),
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}
