package records

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	openapi_types "github.com/oapi-codegen/runtime/types"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/attachment"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/events"
	"github.com/sous-app/sous/internal/inventory"
	"github.com/sous-app/sous/internal/money"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
)

var errReportNotFound = apierr.NotFound("Report")

// maxReportDays bounds a report's period.
const maxReportDays = 366

func reportToAPI(r db.Report) (api.Report, error) {
	out := api.Report{Id: r.ID, Scope: api.ReportScope(r.Scope), SiteId: r.SiteID, Kind: api.ReportKind(r.Kind), CreatedAt: r.CreatedAt,
		Period: api.ReportPeriod{From: openapi_types.Date{Time: r.PeriodFrom.Time}, To: openapi_types.Date{Time: r.PeriodTo.Time}}}
	err := json.Unmarshal(r.Content, &out.Content)
	return out, err
}

// reportVisible: a site report of one of the member's sites, or any report for a member with
// every site.
func reportVisible(a authz.Access, r db.Report) bool {
	if r.SiteID == nil {
		return !a.Scoped()
	}
	return a.CanSeeSite(*r.SiteID)
}

func (h *Handlers) ListReports(ctx context.Context, req api.ListReportsRequestObject) (api.ListReportsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	if req.Params.SiteId != nil {
		if err := a.CheckSite(*req.Params.SiteId); err != nil {
			return nil, err
		}
	}
	limit, at, id, err := page(req.Params.Limit, req.Params.Cursor)
	if err != nil {
		return nil, err
	}
	rows, err := db.New(h.pool).ListReports(ctx, db.ListReportsParams{OrgID: a.OrgID, Scope: a.SiteScope(), SiteID: req.Params.SiteId,
		CursorAt: at, CursorID: id, MaxRows: paging.Fetch(limit)})
	if err != nil {
		return nil, err
	}
	out := api.ListReports200JSONResponse{Body: make([]api.Report, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.Report) any { return cursor{At: last.CreatedAt, ID: last.ID} })
	for _, r := range rows {
		v, err := reportToAPI(r)
		if err != nil {
			return nil, err
		}
		out.Body = append(out.Body, v)
	}
	return out, nil
}

func (h *Handlers) GetReport(ctx context.Context, req api.GetReportRequestObject) (api.GetReportResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	r, err := db.New(h.pool).GetReport(ctx, db.GetReportParams{OrgID: a.OrgID, ID: req.Id})
	if pg.IsNoRows(err) || (err == nil && !reportVisible(a, r)) {
		return nil, errReportNotFound
	}
	if err != nil {
		return nil, err
	}
	out, err := reportToAPI(r)
	if err != nil {
		return nil, err
	}
	return api.GetReport200JSONResponse(out), nil
}

func (h *Handlers) GetReportPdf(ctx context.Context, req api.GetReportPdfRequestObject) (api.GetReportPdfResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	r, err := db.New(h.pool).GetReport(ctx, db.GetReportParams{OrgID: a.OrgID, ID: req.Id})
	if pg.IsNoRows(err) || (err == nil && !reportVisible(a, r)) {
		return nil, errReportNotFound
	}
	if err != nil {
		return nil, err
	}
	rep, err := reportToAPI(r)
	if err != nil {
		return nil, err
	}
	doc, err := renderPDF(rep)
	if err != nil {
		return nil, err
	}
	disposition := attachment.Disposition(string(rep.Kind)+" report", rep.Period.From.Time, rep.Period.To.Time, "pdf")
	return api.GetReportPdf200ApplicationpdfResponse{Body: bytes.NewReader(doc), ContentLength: int64(len(doc)),
		Headers: api.GetReportPdf200ResponseHeaders{ContentDisposition: &disposition}}, nil
}

func (h *Handlers) CreateReport(ctx context.Context, req api.CreateReportRequestObject) (api.CreateReportResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	from, to := b.Period.From.Time, b.Period.To.Time
	if from.After(to) {
		return nil, apierr.InvalidField("period", "from must not be after to")
	}
	if to.Sub(from) > maxReportDays*24*time.Hour {
		return nil, apierr.InvalidField("period", "must not be longer than 366 days")
	}
	switch {
	case b.Scope == "site" && b.SiteId == nil:
		return nil, apierr.InvalidField("siteId", "is required for a site report")
	case b.Scope == "account" && b.SiteId != nil:
		return nil, apierr.InvalidField("siteId", "is not accepted for an account report")
	case b.Scope == "account" && a.Scoped():
		return nil, apierr.Forbidden("An account report needs access to every site").WithCode(apierr.CodeSiteScopeExceeded)
	}
	now := h.clock.Now()
	var r db.Report
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		var sites []db.RecordsSitesRow
		if b.SiteId != nil {
			s, err := site(ctx, q, a, *b.SiteId)
			if err != nil {
				return err
			}
			sites = []db.RecordsSitesRow{{ID: s.ID, Name: s.Name, Timezone: s.Timezone}}
		} else {
			if sites, err = q.RecordsSites(ctx, db.RecordsSitesParams{OrgID: a.OrgID, Scope: a.SiteScope()}); err != nil {
				return err
			}
		}
		content, err := operationsReport(ctx, q, a.OrgID, sites, from, to)
		if err != nil {
			return err
		}
		raw, err := json.Marshal(content)
		if err != nil {
			return err
		}
		if r, err = q.InsertReport(ctx, db.InsertReportParams{ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, Scope: string(b.Scope), SiteID: b.SiteId,
			Kind: string(b.Kind), PeriodFrom: date(from), PeriodTo: date(to), Content: raw, CreatedBy: userPtr(a), Now: now}); err != nil {
			return err
		}
		if _, err := events.Publish(ctx, q, a.OrgID, events.ReportPublished, now, map[string]any{
			"reportId": r.ID, "scope": r.Scope, "siteId": r.SiteID,
		}); err != nil {
			return err
		}
		site := uuid.Nil
		if r.SiteID != nil {
			site = *r.SiteID
		}
		return audit.RecordSite(ctx, q, a.OrgID, site, r.ID, now)
	})
	if err != nil {
		return nil, err
	}
	out, err := reportToAPI(r)
	if err != nil {
		return nil, err
	}
	return api.CreateReport201JSONResponse{Body: out}, nil
}

// operationsReport gathers the report of the sites over the local dates [from, to].
func operationsReport(ctx context.Context, q *db.Queries, org uuid.UUID, sites []db.RecordsSitesRow, from, to time.Time) (api.OperationsReport, error) {
	var out api.OperationsReport
	raw := []byte(`{"sites":[],"inspections":{"items":[]},"openFindings":[],"certificationsExpiring":[]}`)
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, err
	}
	tasks, err := tasksOf()
	if err != nil {
		return out, err
	}
	ids := make([]uuid.UUID, 0, len(sites))
	sum, n := decimal.Zero, 0
	waste := map[api.WasteReason]inventory.WasteTotal{}
	for _, s := range sites {
		ids = append(ids, s.ID)
		out.Sites = append(out.Sites, struct {
			Name   string    `json:"name"`
			SiteId uuid.UUID `json:"siteId"`
		}{Name: s.Name, SiteId: s.ID})
		loc, err := time.LoadLocation(s.Timezone)
		if err != nil {
			loc = time.UTC
		}
		start := time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, loc)
		end := time.Date(to.Year(), to.Month(), to.Day()+1, 0, 0, 0, 0, loc)
		t, err := tasks.TaskOutcomes(ctx, q, org, s.ID, start, end)
		if err != nil {
			return out, err
		}
		out.Tasks.Due += t.Due
		out.Tasks.Done += t.Done
		out.Tasks.Late += t.Late
		out.Tasks.Missed += t.Missed
		out.Tasks.Open += t.Open
		ex, err := alerts.CountOpened(ctx, q, org, s.ID, alerts.KindTemperatureExcursion, start, end)
		if err != nil {
			return out, err
		}
		out.TemperatureExcursions += int(ex)
		w, err := inventory.WasteByReason(ctx, q, org, s.ID, start, end)
		if err != nil {
			return out, err
		}
		for _, r := range w {
			t := waste[r.Reason]
			t.Logs += r.Logs
			if t.ValueCents, err = money.Add(t.ValueCents, r.ValueCents); err != nil {
				return out, err
			}
			waste[r.Reason] = t
		}
		ins, err := q.ReportInspections(ctx, db.ReportInspectionsParams{OrgID: org, SiteID: s.ID, FromAt: &start, ToAt: &end})
		if err != nil {
			return out, err
		}
		vs, err := views(ctx, q, org, ins)
		if err != nil {
			return out, err
		}
		for _, v := range vs {
			out.Inspections.Completed++
			if v.Result != nil && *v.Result == "pass" {
				out.Inspections.Passed++
			} else {
				out.Inspections.Failed++
			}
			if v.Percent != nil {
				if p, err := decimal.NewFromString(*v.Percent); err == nil {
					sum, n = sum.Add(p), n+1
				}
			}
			out.Inspections.Items = append(out.Inspections.Items, struct {
				CompletedAt  time.Time             `json:"completedAt"`
				Findings     int                   `json:"findings"`
				InspectionId uuid.UUID             `json:"inspectionId"`
				Percent      *string               `json:"percent"`
				Result       *api.InspectionResult `json:"result"`
				SiteId       uuid.UUID             `json:"siteId"`
				TemplateName string                `json:"templateName"`
			}{CompletedAt: *v.CompletedAt, Findings: len(v.Findings), InspectionId: v.Id, Percent: v.Percent, Result: v.Result, SiteId: v.SiteId, TemplateName: v.TemplateName})
		}
	}
	if n > 0 {
		avg := sum.Div(decimal.NewFromInt(int64(n))).RoundBank(1).String()
		out.Inspections.AveragePercent = &avg
	}
	out.Waste = wasteSummary(waste)
	findings, err := q.SiteFindings(ctx, db.SiteFindingsParams{OrgID: org, SiteIds: ids})
	if err != nil {
		return out, err
	}
	taskIDs := []uuid.UUID{}
	for _, f := range findings {
		if f.TaskID != nil {
			taskIDs = append(taskIDs, *f.TaskID)
		}
	}
	statuses, err := taskStatuses(ctx, q, org, taskIDs)
	if err != nil {
		return out, err
	}
	for _, f := range findings {
		var st *string
		if f.TaskID != nil {
			if s, ok := statuses[*f.TaskID]; ok {
				st = &s
			}
		}
		if st != nil && (*st == "done" || *st == "cancelled") {
			continue
		}
		out.OpenFindings = append(out.OpenFindings, struct {
			Critical     bool       `json:"critical"`
			FindingId    uuid.UUID  `json:"findingId"`
			InspectionId uuid.UUID  `json:"inspectionId"`
			Prompt       string     `json:"prompt"`
			SiteId       uuid.UUID  `json:"siteId"`
			TaskId       *uuid.UUID `json:"taskId"`
			TaskStatus   *string    `json:"taskStatus"`
		}{Critical: f.Critical, FindingId: f.ID, InspectionId: f.InspectionID, Prompt: f.Prompt, SiteId: f.SiteID, TaskId: f.TaskID, TaskStatus: st})
	}
	certs, err := q.ReportCertifications(ctx, db.ReportCertificationsParams{OrgID: org, SiteIds: ids, Until: date(to.AddDate(0, 0, warningDays))})
	if err != nil {
		return out, err
	}
	for _, c := range certs {
		out.CertificationsExpiring = append(out.CertificationsExpiring, struct {
			CertificationId uuid.UUID             `json:"certificationId"`
			ExpiresOn       openapi_types.Date    `json:"expiresOn"`
			Kind            api.CertificationKind `json:"kind"`
			SiteId          uuid.UUID             `json:"siteId"`
			UserId          uuid.UUID             `json:"userId"`
			UserName        string                `json:"userName"`
		}{CertificationId: c.ID, ExpiresOn: openapi_types.Date{Time: c.ExpiresOn.Time}, Kind: api.CertificationKind(c.Kind), SiteId: c.SiteID, UserId: c.UserID, UserName: c.UserName})
	}
	return out, nil
}

// wasteReason is one reason's line of a report's waste (the generated type's element).
type wasteReason = struct {
	Logs       int             `json:"logs"`
	Reason     api.WasteReason `json:"reason"`
	ValueCents int64           `json:"valueCents"`
}

// wasteSummary totals the sites' waste per reason, reasons in a fixed order.
func wasteSummary(by map[api.WasteReason]inventory.WasteTotal) *struct {
	ByReason   []wasteReason `json:"byReason"`
	Logs       int           `json:"logs"`
	ValueCents int64         `json:"valueCents"`
} {
	out := &struct {
		ByReason   []wasteReason `json:"byReason"`
		Logs       int           `json:"logs"`
		ValueCents int64         `json:"valueCents"`
	}{ByReason: []wasteReason{}}
	for _, r := range slices.Sorted(maps.Keys(by)) {
		t := by[r]
		out.ByReason = append(out.ByReason, wasteReason{Logs: t.Logs, Reason: r, ValueCents: t.ValueCents})
		out.Logs += t.Logs
		out.ValueCents += t.ValueCents
	}
	return out
}
