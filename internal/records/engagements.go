package records

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	openapi_types "github.com/oapi-codegen/runtime/types"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/events"
	"github.com/sous-app/sous/internal/pg"
)

var errEngagementNotFound = apierr.NotFound("Engagement")

func engagementToAPI(e db.Engagement, inspections []uuid.UUID) (api.Engagement, error) {
	out := api.Engagement{Id: e.ID, Name: e.Name, SiteIds: orEmpty(e.SiteIds), Auditor: e.Auditor,
		Period: api.EngagementPeriod{From: openapi_types.Date{Time: e.PeriodFrom.Time}, To: openapi_types.Date{Time: e.PeriodTo.Time}},
		Status: api.EngagementStatus(e.Status), InspectionIds: orEmpty(inspections), FinalizedAt: e.FinalizedAt,
		CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
	if len(e.Report) > 0 {
		var r api.EngagementReport
		if err := json.Unmarshal(e.Report, &r); err != nil {
			return out, err
		}
		out.Report = &r
	}
	return out, nil
}

// engagement loads an engagement wholly within the member's sites: 404 otherwise.
func engagement(ctx context.Context, q *db.Queries, a authz.Access, id uuid.UUID, forUpdate bool) (db.Engagement, error) {
	var e db.Engagement
	var err error
	if forUpdate {
		e, err = q.GetEngagementForUpdate(ctx, db.GetEngagementForUpdateParams{OrgID: a.OrgID, ID: id})
	} else {
		e, err = q.GetEngagement(ctx, db.GetEngagementParams{OrgID: a.OrgID, ID: id})
	}
	if pg.IsNoRows(err) || (err == nil && !withinScope(a, e.SiteIds)) {
		return e, errEngagementNotFound
	}
	return e, err
}

func (h *Handlers) engagementView(ctx context.Context, q *db.Queries, e db.Engagement) (api.Engagement, error) {
	ids, err := q.EngagementInspectionIDs(ctx, db.EngagementInspectionIDsParams{OrgID: e.OrgID, EngagementID: &e.ID})
	if err != nil {
		return api.Engagement{}, err
	}
	return engagementToAPI(e, ids)
}

func (h *Handlers) ListEngagements(ctx context.Context, req api.ListEngagementsRequestObject) (api.ListEngagementsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	rows, err := q.ListEngagements(ctx, db.ListEngagementsParams{OrgID: a.OrgID, Scope: a.SiteScope()})
	if err != nil {
		return nil, err
	}
	out := make(api.ListEngagements200JSONResponse, 0, len(rows))
	for _, e := range rows {
		v, err := h.engagementView(ctx, q, e)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (h *Handlers) CreateEngagement(ctx context.Context, req api.CreateEngagementRequestObject) (api.CreateEngagementResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	name, auditor := strings.TrimSpace(b.Name), strings.TrimSpace(b.Auditor)
	if name == "" {
		return nil, apierr.InvalidField("name", "must not be blank")
	}
	if auditor == "" {
		return nil, apierr.InvalidField("auditor", "must not be blank")
	}
	if b.Period.From.After(b.Period.To.Time) {
		return nil, apierr.InvalidField("period", "from must not be after to")
	}
	now := h.clock.Now()
	var e db.Engagement
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		sites, err := sitesList(ctx, q, a, "siteIds", b.SiteIds, false)
		if err != nil {
			return err
		}
		if e, err = q.InsertEngagement(ctx, db.InsertEngagementParams{ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, Name: name, SiteIds: sites,
			Auditor: auditor, PeriodFrom: date(b.Period.From.Time), PeriodTo: date(b.Period.To.Time), Now: now}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, auditSite(sites), e.ID, now)
	})
	if err != nil {
		return nil, err
	}
	out, err := engagementToAPI(e, nil)
	if err != nil {
		return nil, err
	}
	return api.CreateEngagement201JSONResponse{Body: out}, nil
}

func (h *Handlers) GetEngagement(ctx context.Context, req api.GetEngagementRequestObject) (api.GetEngagementResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	e, err := engagement(ctx, q, a, req.Id, false)
	if err != nil {
		return nil, err
	}
	out, err := h.engagementView(ctx, q, e)
	if err != nil {
		return nil, err
	}
	return api.GetEngagement200JSONResponse(out), nil
}

// FinalizeEngagement freezes the engagement and its inspections and writes its report, once.
func (h *Handlers) FinalizeEngagement(ctx context.Context, req api.FinalizeEngagementRequestObject) (api.FinalizeEngagementResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out api.Engagement
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		e, err := engagement(ctx, q, a, req.Id, true)
		if err != nil {
			return err
		}
		if e.Status != "open" {
			return apierr.Conflict("The engagement is already finalized and no longer changes")
		}
		ins, err := q.EngagementInspectionsForUpdate(ctx, db.EngagementInspectionsForUpdateParams{OrgID: a.OrgID, EngagementID: &e.ID})
		if err != nil {
			return err
		}
		for _, in := range ins {
			if in.Status != "completed" {
				return apierr.Conflict("Every inspection of the engagement must be completed before it is finalized; " + in.ID.String() + " is " + in.Status)
			}
		}
		vs, err := views(ctx, q, a.OrgID, ins)
		if err != nil {
			return err
		}
		report := engagementReport(vs)
		raw, err := json.Marshal(report)
		if err != nil {
			return err
		}
		if err := q.FreezeEngagementInspections(ctx, db.FreezeEngagementInspectionsParams{OrgID: a.OrgID, EngagementID: &e.ID, Now: now}); err != nil {
			return err
		}
		if e, err = q.FinalizeEngagement(ctx, db.FinalizeEngagementParams{OrgID: a.OrgID, ID: e.ID, Report: raw, Now: now, FinalizedBy: userPtr(a)}); err != nil {
			return err
		}
		if _, err := events.Publish(ctx, q, a.OrgID, events.EngagementFinalized, now, map[string]any{"engagementId": e.ID}); err != nil {
			return err
		}
		if err := audit.RecordSite(ctx, q, a.OrgID, auditSite(e.SiteIds), e.ID, now); err != nil {
			return err
		}
		out, err = h.engagementView(ctx, q, e)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.FinalizeEngagement200JSONResponse(out), nil
}

// engagementReport sums up the engagement's inspections as they are at finalization.
func engagementReport(ins []api.Inspection) api.EngagementReport {
	r := api.EngagementReport{InspectionCount: len(ins), Inspections: []struct {
		CompletedAt  *time.Time            `json:"completedAt"`
		Findings     int                   `json:"findings"`
		InspectionId uuid.UUID             `json:"inspectionId"`
		Percent      *string               `json:"percent"`
		Result       *api.InspectionResult `json:"result"`
		SiteId       uuid.UUID             `json:"siteId"`
		TemplateName string                `json:"templateName"`
	}{}}
	sum, n := decimal.Zero, 0
	for _, in := range ins {
		if in.Result != nil && *in.Result == "pass" {
			r.Passed++
		} else {
			r.Failed++
		}
		if in.Percent != nil {
			if p, err := decimal.NewFromString(*in.Percent); err == nil {
				sum, n = sum.Add(p), n+1
			}
		}
		for _, f := range in.Findings {
			r.TotalFindings++
			if f.TaskStatus == nil || *f.TaskStatus != "done" {
				r.OpenFindings++
			}
		}
		r.Inspections = append(r.Inspections, struct {
			CompletedAt  *time.Time            `json:"completedAt"`
			Findings     int                   `json:"findings"`
			InspectionId uuid.UUID             `json:"inspectionId"`
			Percent      *string               `json:"percent"`
			Result       *api.InspectionResult `json:"result"`
			SiteId       uuid.UUID             `json:"siteId"`
			TemplateName string                `json:"templateName"`
		}{CompletedAt: in.CompletedAt, Findings: len(in.Findings), InspectionId: in.Id, Percent: in.Percent, Result: in.Result,
			SiteId: in.SiteId, TemplateName: in.TemplateName})
	}
	if n > 0 {
		avg := sum.Div(decimal.NewFromInt(int64(n))).RoundBank(1).String()
		r.AveragePercent = &avg
	}
	return r
}
