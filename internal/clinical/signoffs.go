package clinical

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/events"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
)

// CredentialRD is the membership credential of a registered dietitian, which deciding a diet
// sign-off requires whatever the role.
const CredentialRD = "rd"

// signoffView is a sign-off row with its patient's MRN, as the read queries return it.
type signoffView struct {
	db.Signoff
	Mrn string
}

// toAPISignoff fails when the sign-off's copy of the diet order cannot be read: a review shown
// without the order it is about is no review.
func toAPISignoff(s signoffView) (api.Signoff, error) {
	var order dietOrderDoc
	if err := json.Unmarshal(s.DietOrder, &order); err != nil {
		return api.Signoff{}, fmt.Errorf("sign-off %s: %w: diet order: %v", s.ID, errUnreadable, err)
	}
	return api.Signoff{
		Id: s.ID, SiteId: s.SiteID, PatientId: s.PatientID, Mrn: s.Mrn, DietOrderId: s.DietOrderID,
		DietOrder: toAPIDietOrder(order), Status: api.SignoffStatus(s.Status), Note: s.Note,
		SubmittedBy: s.SubmittedBy, SubmittedAt: s.SubmittedAt, DecidedBy: s.DecidedBy, DecidedAt: s.DecidedAt,
		DecisionNote: s.DecisionNote,
	}, nil
}

func (h *Handlers) CreateSignoff(ctx context.Context, req api.CreateSignoffRequestObject) (api.CreateSignoffResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	note := ""
	if req.Body.Note != nil {
		note = strings.TrimSpace(*req.Body.Note)
	}
	now := h.clock.Now()
	var out signoffView
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		p, err := q.GetPatientForUpdate(ctx, db.GetPatientForUpdateParams{OrgID: req.OrgId, ID: req.Body.PatientId})
		if err != nil {
			return notFound(err, "Patient")
		}
		if !a.CanSeeSite(p.SiteID) {
			return apierr.NotFound("Patient")
		}
		orders, err := decodeDietOrders(p.DietOrders)
		if err != nil {
			return fmt.Errorf("patient %s: %w", p.ID, err)
		}
		var order *dietOrderDoc
		for _, o := range orders {
			if o.ID == req.Body.DietOrderId {
				order = &o
				break
			}
		}
		if order == nil {
			return apierr.NotFound("Diet order")
		}
		raw, _ := json.Marshal(order)
		s, err := q.CreateSignoff(ctx, db.CreateSignoffParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, SiteID: p.SiteID, PatientID: p.ID, DietOrderID: order.ID,
			DietOrder: raw, Note: note, SubmittedBy: a.UserID(), Now: now,
		})
		if _, dup := pg.IsUniqueViolation(err); dup {
			return apierr.Conflict("This diet order already has a sign-off pending").WithCode(apierr.CodeSignoffPending)
		}
		if err != nil {
			return err
		}
		out = signoffView{Signoff: s, Mrn: p.Mrn}
		return audit.RecordSite(ctx, q, req.OrgId, s.SiteID, s.ID, now)
	})
	if err != nil {
		return nil, err
	}
	view, err := toAPISignoff(out)
	if err != nil {
		return nil, err
	}
	return api.CreateSignoff201JSONResponse{Body: view}, nil
}

func (h *Handlers) GetSignoff(ctx context.Context, req api.GetSignoffRequestObject) (api.GetSignoffResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	s, err := db.New(h.pool).GetSignoff(ctx, db.GetSignoffParams{OrgID: req.OrgId, ID: req.Id})
	if err != nil {
		return nil, notFound(err, "Sign-off")
	}
	if !a.CanSeeSite(s.SiteID) {
		return nil, apierr.NotFound("Sign-off")
	}
	view, err := toAPISignoff(signoffView{Signoff: db.Signoff{
		ID: s.ID, OrgID: s.OrgID, SiteID: s.SiteID, PatientID: s.PatientID, DietOrderID: s.DietOrderID, DietOrder: s.DietOrder,
		Status: s.Status, Note: s.Note, SubmittedBy: s.SubmittedBy, SubmittedAt: s.SubmittedAt, DecidedBy: s.DecidedBy,
		DecidedAt: s.DecidedAt, DecisionNote: s.DecisionNote,
	}, Mrn: s.Mrn})
	if err != nil {
		return nil, err
	}
	return api.GetSignoff200JSONResponse(view), nil
}

type signoffCursor struct {
	At time.Time `json:"a"`
	ID uuid.UUID `json:"i"`
}

func (h *Handlers) ListSignoffs(ctx context.Context, req api.ListSignoffsRequestObject) (api.ListSignoffsResponseObject, error) {
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
	params := db.ListSignoffsParams{OrgID: req.OrgId, Scope: a.SiteScope(), SiteID: p.SiteId, PatientID: p.PatientId, MaxRows: paging.Fetch(limit)}
	if p.Status != nil {
		st := string(*p.Status)
		params.Status = &st
	}
	if p.Cursor != nil {
		var c signoffCursor
		if err := paging.DecodeCursor(*p.Cursor, &c); err != nil {
			return nil, err
		}
		params.CursorAt, params.CursorID = c.At, &c.ID
	}
	rows, err := db.New(h.pool).ListSignoffs(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListSignoffs200JSONResponse{Body: make([]api.Signoff, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.ListSignoffsRow) any { return signoffCursor{At: last.SubmittedAt, ID: last.ID} })
	for _, s := range rows {
		view, err := toAPISignoff(signoffView{Signoff: db.Signoff{
			ID: s.ID, OrgID: s.OrgID, SiteID: s.SiteID, PatientID: s.PatientID, DietOrderID: s.DietOrderID, DietOrder: s.DietOrder,
			Status: s.Status, Note: s.Note, SubmittedBy: s.SubmittedBy, SubmittedAt: s.SubmittedAt, DecidedBy: s.DecidedBy,
			DecidedAt: s.DecidedAt, DecisionNote: s.DecisionNote,
		}, Mrn: s.Mrn})
		if err != nil {
			return nil, err
		}
		out.Body = append(out.Body, view)
	}
	return out, nil
}

// DecideSignoff approves or rejects a pending review. The review is found first (404 for one
// that does not exist or lies outside the member's sites), then the rd credential is checked
// (403, whatever the role), then the state (409 once decided).
func (h *Handlers) DecideSignoff(ctx context.Context, req api.DecideSignoffRequestObject) (api.DecideSignoffResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	var note *string
	if req.Body.Note != nil {
		if n := strings.TrimSpace(*req.Body.Note); n != "" {
			note = &n
		}
	}
	decision := string(req.Body.Decision)
	now := h.clock.Now()
	var out signoffView
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		cur, err := q.GetSignoffForUpdate(ctx, db.GetSignoffForUpdateParams{OrgID: req.OrgId, ID: req.Id})
		if err != nil {
			return notFound(err, "Sign-off")
		}
		if !a.CanSeeSite(cur.SiteID) {
			return apierr.NotFound("Sign-off")
		}
		if !a.HasCredential(CredentialRD) {
			return apierr.Forbidden("Deciding a diet sign-off needs the rd (registered dietitian) credential").WithCode(apierr.CodeCredentialRequired)
		}
		if cur.Status != "pending" {
			return apierr.Conflict(fmt.Sprintf("This sign-off was already %s", cur.Status)).WithCode(apierr.CodeSignoffDecided)
		}
		s, err := q.DecideSignoff(ctx, db.DecideSignoffParams{
			Status: decision, DecidedBy: a.UserID(), Now: now, DecisionNote: note, OrgID: req.OrgId, ID: req.Id,
		})
		if err != nil {
			return err
		}
		p, err := q.GetPatient(ctx, db.GetPatientParams{OrgID: req.OrgId, ID: s.PatientID})
		if err != nil {
			return err
		}
		out = signoffView{Signoff: s, Mrn: p.Mrn}
		if _, err := events.Publish(ctx, q, req.OrgId, events.SignoffDecided, now, map[string]any{
			"signoffId": s.ID, "patientId": s.PatientID, "dietOrderId": s.DietOrderID, "siteId": s.SiteID, "decision": decision,
		}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, s.SiteID, s.ID, now)
	})
	if err != nil {
		return nil, err
	}
	view, err := toAPISignoff(out)
	if err != nil {
		return nil, err
	}
	return api.DecideSignoff200JSONResponse(view), nil
}
