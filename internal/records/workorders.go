package records

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/events"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
)

var errWorkOrderNotFound = apierr.NotFound("Work order")

// Work order states.
const (
	woOpen       = "open"
	woInProgress = "in_progress"
	woResolved   = "resolved"
	woCancelled  = "cancelled"
)

// woMoves are the allowed moves: to → the states it may be reached from.
var woMoves = map[string][]string{
	woInProgress: {woOpen},
	woResolved:   {woInProgress},
	woCancelled:  {woOpen, woInProgress},
}

func workOrderToAPI(w db.WorkOrder) api.WorkOrder {
	return api.WorkOrder{Id: w.ID, SiteId: w.SiteID, EquipmentId: w.EquipmentID, Title: w.Title, Description: w.Description,
		Priority: api.WorkOrderPriority(w.Priority), Status: api.WorkOrderStatus(w.Status), ResolutionNote: w.ResolutionNote,
		AlertId: w.AlertID, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt, StartedAt: w.StartedAt, ClosedAt: w.ClosedAt}
}

func (h *Handlers) ListWorkOrders(ctx context.Context, req api.ListWorkOrdersRequestObject) (api.ListWorkOrdersResponseObject, error) {
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
	limit, at, id, err := page(p.Limit, p.Cursor)
	if err != nil {
		return nil, err
	}
	params := db.ListWorkOrdersParams{OrgID: a.OrgID, Scope: a.SiteScope(), SiteID: p.SiteId, EquipmentID: p.EquipmentId,
		CursorAt: at, CursorID: id, MaxRows: paging.Fetch(limit)}
	if p.Status != nil {
		s := string(*p.Status)
		params.Status = &s
	}
	rows, err := db.New(h.pool).ListWorkOrders(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListWorkOrders200JSONResponse{Body: make([]api.WorkOrder, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.WorkOrder) any { return cursor{At: last.CreatedAt, ID: last.ID} })
	for _, w := range rows {
		out.Body = append(out.Body, workOrderToAPI(w))
	}
	return out, nil
}

func (h *Handlers) CreateWorkOrder(ctx context.Context, req api.CreateWorkOrderRequestObject) (api.CreateWorkOrderResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	title := strings.TrimSpace(b.Title)
	if title == "" {
		return nil, apierr.InvalidField("title", "must not be blank")
	}
	now := h.clock.Now()
	var w db.WorkOrder
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		e, err := equipmentOf(ctx, q, a, b.EquipmentId, false) // 404 Equipment for none the member can see
		if err != nil {
			return err
		}
		w, err = q.InsertWorkOrder(ctx, db.InsertWorkOrderParams{ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, SiteID: e.SiteID, EquipmentID: e.ID,
			Title: title, Description: deref(b.Description, ""), Priority: string(deref(b.Priority, api.WorkOrderPriority("medium"))),
			CreatedBy: userPtr(a), Now: now})
		if err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, w.SiteID, w.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateWorkOrder201JSONResponse{Body: workOrderToAPI(w)}, nil
}

func (h *Handlers) GetWorkOrder(ctx context.Context, req api.GetWorkOrderRequestObject) (api.GetWorkOrderResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	w, err := q.GetWorkOrder(ctx, db.GetWorkOrderParams{OrgID: a.OrgID, ID: req.Id})
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(w.SiteID)) {
		return nil, errWorkOrderNotFound
	}
	if err != nil {
		return nil, err
	}
	photos, err := workOrderPhotos(ctx, q, a.OrgID, w.ID)
	if err != nil {
		return nil, err
	}
	out := workOrderToAPI(w)
	out.Photos = &photos
	return api.GetWorkOrder200JSONResponse(out), nil
}

// TransitionWorkOrder moves a work order by a conditional update from the state it was read in:
// of parallel moves from one state exactly one wins, the others are 409.
func (h *Handlers) TransitionWorkOrder(ctx context.Context, req api.TransitionWorkOrderRequestObject) (api.TransitionWorkOrderResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	to := string(req.Body.Status)
	note := trimmed(req.Body.ResolutionNote)
	if to == woResolved && note == nil {
		return nil, apierr.InvalidField("resolutionNote", "is required to resolve a work order")
	}
	if to != woResolved && note != nil {
		return nil, apierr.InvalidField("resolutionNote", "is only for resolving")
	}
	now := h.clock.Now()
	var w db.WorkOrder
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		cur, err := q.GetWorkOrder(ctx, db.GetWorkOrderParams{OrgID: a.OrgID, ID: req.Id})
		if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(cur.SiteID)) {
			return errWorkOrderNotFound
		}
		if err != nil {
			return err
		}
		if !contains(woMoves[to], cur.Status) {
			return apierr.Conflict("A work order that is " + cur.Status + " cannot become " + to)
		}
		w, err = q.TransitionWorkOrder(ctx, db.TransitionWorkOrderParams{OrgID: a.OrgID, ID: cur.ID, FromStatus: cur.Status, ToStatus: to,
			Now: now, Actor: userPtr(a), ResolutionNote: note})
		if pg.IsNoRows(err) {
			return apierr.Conflict("The work order changed meanwhile; read it again")
		}
		if err != nil {
			return err
		}
		if to == woResolved {
			if _, err := events.Publish(ctx, q, a.OrgID, events.WorkOrderResolved, now, map[string]any{
				"workOrderId": w.ID, "siteId": w.SiteID, "equipmentId": w.EquipmentID,
			}); err != nil {
				return err
			}
		}
		return audit.RecordSite(ctx, q, a.OrgID, w.SiteID, w.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.TransitionWorkOrder200JSONResponse(workOrderToAPI(w)), nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// CreateAlertWorkOrder opens the work order of a temperature excursion alert, once per alert.
func (h *Handlers) CreateAlertWorkOrder(ctx context.Context, req api.CreateAlertWorkOrderRequestObject) (api.CreateAlertWorkOrderResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	now := h.clock.Now()
	var w db.WorkOrder
	created := false
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		al, err := alerts.Find(ctx, q, a.OrgID, req.Id) // locked: one work order per alert
		if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(al.SiteID)) {
			return apierr.NotFound("Alert")
		}
		if err != nil {
			return err
		}
		if al.Kind != alerts.KindTemperatureExcursion {
			return apierr.Conflict("Only a temperature_excursion alert opens a work order; this one is " + al.Kind)
		}
		if existing, err := q.GetWorkOrderByAlert(ctx, db.GetWorkOrderByAlertParams{OrgID: a.OrgID, AlertID: &al.ID}); err == nil {
			w = existing
			return nil
		} else if !pg.IsNoRows(err) {
			return err
		}
		e, err := equipmentOf(ctx, q, a, b.EquipmentId, false)
		if err == errEquipmentNotFound || (err == nil && e.SiteID != al.SiteID) {
			return apierr.InvalidField("equipmentId", "is not equipment of the alert's site")
		}
		if err != nil {
			return err
		}
		title := "Repair: " + al.Message
		if t := trimmed(b.Title); t != nil {
			title = *t
		}
		if r := []rune(title); len(r) > 200 {
			title = string(r[:200])
		}
		w, err = q.InsertWorkOrder(ctx, db.InsertWorkOrderParams{ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, SiteID: e.SiteID, EquipmentID: e.ID,
			Title: title, Description: al.Message, Priority: string(deref(b.Priority, api.WorkOrderPriority("high"))), AlertID: &al.ID,
			CreatedBy: userPtr(a), Now: now})
		if err != nil {
			return err
		}
		created = true
		return audit.RecordSite(ctx, q, a.OrgID, w.SiteID, w.ID, now)
	})
	if err != nil {
		return nil, err
	}
	if !created {
		return api.CreateAlertWorkOrder200JSONResponse(workOrderToAPI(w)), nil
	}
	return api.CreateAlertWorkOrder201JSONResponse{Body: workOrderToAPI(w)}, nil
}
