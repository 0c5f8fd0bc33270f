package records

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
)

// DefaultFindingDays is how long a finding's corrective task has unless its item says otherwise.
const DefaultFindingDays = 7

var errInspectionNotFound = apierr.NotFound("Inspection")

func sectionsOf(raw []byte) ([]api.InspectionSection, error) {
	var s []api.InspectionSection
	err := json.Unmarshal(raw, &s)
	return s, err
}

func answersOf(raw []byte) (map[string]api.InspectionAnswer, error) {
	m := map[string]api.InspectionAnswer{}
	if len(raw) == 0 {
		return m, nil
	}
	err := json.Unmarshal(raw, &m)
	return m, err
}

func decString(d *decimal.Decimal) *string {
	if d == nil {
		return nil
	}
	s := d.String()
	return &s
}

// inspectionToAPI writes an inspection with its findings (and their tasks' statuses).
func inspectionToAPI(in db.Inspection, findings []db.InspectionFinding, statuses map[uuid.UUID]string) (api.Inspection, error) {
	secs, err := sectionsOf(in.Sections)
	if err != nil {
		return api.Inspection{}, err
	}
	answers, err := answersOf(in.Responses)
	if err != nil {
		return api.Inspection{}, err
	}
	out := api.Inspection{
		Id: in.ID, SiteId: in.SiteID, TemplateId: in.TemplateID, TemplateName: in.TemplateName, EngagementId: in.EngagementID,
		InspectorUserId: in.InspectorUserID, ScheduledFor: in.ScheduledFor, Status: api.InspectionStatus(in.Status), Sections: secs,
		Answers: []api.InspectionAnswer{}, Notes: in.Notes, Score: decString(in.Score), MaxScore: decString(in.MaxScore),
		Percent: decString(in.Percent), Frozen: in.Frozen, CompletedAt: in.CompletedAt, CompletedBy: in.CompletedBy,
		Findings: []api.Finding{}, CreatedAt: in.CreatedAt, UpdatedAt: in.UpdatedAt,
	}
	if in.Result != nil {
		r := api.InspectionResult(*in.Result)
		out.Result = &r
	}
	for _, sec := range secs {
		for _, it := range sec.Items {
			if a, ok := answers[it.Key]; ok {
				out.Answers = append(out.Answers, a)
			}
		}
	}
	for _, f := range findings {
		if f.InspectionID != in.ID {
			continue
		}
		af := api.Finding{Id: f.ID, InspectionId: f.InspectionID, Section: f.Section, ItemKey: f.ItemKey, Prompt: f.Prompt,
			Critical: f.Critical, Note: f.Note, TaskId: f.TaskID, CreatedAt: f.CreatedAt}
		if f.TaskID != nil {
			if s, ok := statuses[*f.TaskID]; ok {
				af.TaskStatus = &s
			}
		}
		out.Findings = append(out.Findings, af)
	}
	return out, nil
}

// views writes inspections with their findings, reading findings and task statuses once.
func views(ctx context.Context, q *db.Queries, org uuid.UUID, ins []db.Inspection) ([]api.Inspection, error) {
	ids := make([]uuid.UUID, 0, len(ins))
	for _, in := range ins {
		ids = append(ids, in.ID)
	}
	findings, err := q.ListFindings(ctx, db.ListFindingsParams{OrgID: org, InspectionIds: ids})
	if err != nil {
		return nil, err
	}
	taskIDs := []uuid.UUID{}
	for _, f := range findings {
		if f.TaskID != nil {
			taskIDs = append(taskIDs, *f.TaskID)
		}
	}
	statuses, err := taskStatuses(ctx, q, org, taskIDs)
	if err != nil {
		return nil, err
	}
	out := make([]api.Inspection, 0, len(ins))
	for _, in := range ins {
		v, err := inspectionToAPI(in, findings, statuses)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func view(ctx context.Context, q *db.Queries, in db.Inspection) (api.Inspection, error) {
	vs, err := views(ctx, q, in.OrgID, []db.Inspection{in})
	if err != nil {
		return api.Inspection{}, err
	}
	return vs[0], nil
}

// inspection loads an inspection the member can see, locked for a write when forUpdate.
func inspection(ctx context.Context, q *db.Queries, a authz.Access, id uuid.UUID, forUpdate bool) (db.Inspection, error) {
	var in db.Inspection
	var err error
	if forUpdate {
		in, err = q.GetInspectionForUpdate(ctx, db.GetInspectionForUpdateParams{OrgID: a.OrgID, ID: id})
	} else {
		in, err = q.GetInspection(ctx, db.GetInspectionParams{OrgID: a.OrgID, ID: id})
	}
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(in.SiteID)) {
		return in, errInspectionNotFound
	}
	return in, err
}

func (h *Handlers) ListInspections(ctx context.Context, req api.ListInspectionsRequestObject) (api.ListInspectionsResponseObject, error) {
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
	params := db.ListInspectionsParams{OrgID: a.OrgID, Scope: a.SiteScope(), SiteID: p.SiteId, EngagementID: p.EngagementId,
		CursorAt: at, CursorID: id, MaxRows: paging.Fetch(limit)}
	if p.Status != nil {
		s := string(*p.Status)
		params.Status = &s
	}
	q := db.New(h.pool)
	rows, err := q.ListInspections(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListInspections200JSONResponse{}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.Inspection) any { return cursor{At: last.ScheduledFor, ID: last.ID} })
	if out.Body, err = views(ctx, q, a.OrgID, rows); err != nil {
		return nil, err
	}
	return out, nil
}

func (h *Handlers) CreateInspection(ctx context.Context, req api.CreateInspectionRequestObject) (api.CreateInspectionResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	now := h.clock.Now()
	var out api.Inspection
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		st, err := site(ctx, q, a, b.SiteId)
		if err != nil {
			return err
		}
		t, err := q.GetInspectionTemplate(ctx, db.GetInspectionTemplateParams{OrgID: a.OrgID, ID: b.TemplateId})
		if pg.IsNoRows(err) {
			return apierr.InvalidField("templateId", "is not an inspection template of the organization")
		}
		if err != nil {
			return err
		}
		if b.InspectorUserId != nil {
			m, err := q.RecordsMember(ctx, db.RecordsMemberParams{OrgID: a.OrgID, UserID: *b.InspectorUserId})
			if pg.IsNoRows(err) {
				return apierr.InvalidField("inspectorUserId", "is not a member of the organization")
			}
			if err != nil {
				return err
			}
			if r, _ := authz.ParseRole(m.Role); !r.AtLeast(authz.Inspector) {
				return apierr.InvalidField("inspectorUserId", "needs the inspector role or higher")
			}
			if len(m.SiteIds) > 0 && !slices.Contains(m.SiteIds, b.SiteId) {
				return apierr.InvalidField("inspectorUserId", "is a member without access to the inspection's site")
			}
		}
		if b.EngagementId != nil {
			e, err := q.GetEngagementForUpdate(ctx, db.GetEngagementForUpdateParams{OrgID: a.OrgID, ID: *b.EngagementId})
			if pg.IsNoRows(err) || (err == nil && !withinScope(a, e.SiteIds)) {
				return apierr.InvalidField("engagementId", "is not an engagement of the organization")
			}
			if err != nil {
				return err
			}
			if e.Status != "open" {
				return apierr.Conflict("The engagement is finalized; it takes no more inspections").WithCode(apierr.CodeConflict)
			}
			if !slices.Contains(e.SiteIds, b.SiteId) {
				return apierr.InvalidField("engagementId", "does not cover the inspection's site")
			}
			if d := localDate(b.ScheduledFor, st.Timezone); d.Before(e.PeriodFrom.Time) || d.After(e.PeriodTo.Time) {
				return apierr.InvalidField("scheduledFor", "falls outside the engagement's period (in the site's time zone)")
			}
		}
		in, err := q.InsertInspection(ctx, db.InsertInspectionParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, SiteID: b.SiteId, TemplateID: t.ID, TemplateName: t.Name, PassPercent: t.PassPercent,
			Sections: t.Sections, EngagementID: b.EngagementId, InspectorUserID: b.InspectorUserId, ScheduledFor: b.ScheduledFor.UTC(), Now: now,
		})
		if err != nil {
			return err
		}
		if err := audit.RecordSite(ctx, q, a.OrgID, in.SiteID, in.ID, now); err != nil {
			return err
		}
		out, err = view(ctx, q, in)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.CreateInspection201JSONResponse{Body: out}, nil
}

func (h *Handlers) GetInspection(ctx context.Context, req api.GetInspectionRequestObject) (api.GetInspectionResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	in, err := inspection(ctx, q, a, req.Id, false)
	if err != nil {
		return nil, err
	}
	out, err := view(ctx, q, in)
	if err != nil {
		return nil, err
	}
	return api.GetInspection200JSONResponse(out), nil
}

// writable refuses changes to a completed or frozen inspection.
func writable(in db.Inspection) error {
	if in.Frozen {
		return apierr.Conflict("The inspection belongs to a finalized engagement and no longer changes")
	}
	if in.Status == "completed" {
		return apierr.Conflict("The inspection is already completed")
	}
	return nil
}

func (h *Handlers) SetInspectionResponses(ctx context.Context, req api.SetInspectionResponsesRequestObject) (api.SetInspectionResponsesResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out api.Inspection
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		in, err := inspection(ctx, q, a, req.Id, true)
		if err != nil {
			return err
		}
		if err := writable(in); err != nil {
			return err
		}
		secs, err := sectionsOf(in.Sections)
		if err != nil {
			return err
		}
		items := map[string]api.InspectionItem{}
		for _, s := range secs {
			for _, it := range s.Items {
				items[it.Key] = it
			}
		}
		answers, err := answersOf(in.Responses)
		if err != nil {
			return err
		}
		// Images already on the inspection stay, whoever attached them; the others must be
		// images the member may see.
		kept := []uuid.UUID{}
		for _, ans := range answers {
			if ans.PhotoMediaIds != nil {
				kept = append(kept, *ans.PhotoMediaIds...)
			}
		}
		media := []uuid.UUID{}
		for i, ans := range req.Body.Answers {
			field := fmt.Sprintf("answers[%d]", i)
			it, ok := items[ans.Key]
			if !ok {
				return apierr.InvalidField(field+".key", "is not an item of the inspection")
			}
			if err := checkAnswer(field, it, ans); err != nil {
				return err
			}
			if ans.PhotoMediaIds != nil {
				for _, m := range *ans.PhotoMediaIds {
					if !slices.Contains(media, m) && !slices.Contains(kept, m) {
						media = append(media, m)
					}
				}
			}
			answers[ans.Key] = ans
		}
		if len(media) > 0 {
			n, err := q.CountRecordsMedia(ctx, db.CountRecordsMediaParams{OrgID: a.OrgID, Ids: media, Scope: a.SiteScope()})
			if err != nil {
				return err
			}
			if int(n) != len(media) {
				return apierr.InvalidField("answers", "photoMediaIds name images of the organization (POST /media)")
			}
		}
		raw, err := json.Marshal(answers)
		if err != nil {
			return err
		}
		notes := in.Notes
		if req.Body.Notes != nil {
			notes = req.Body.Notes
		}
		if in, err = q.SetInspectionResponses(ctx, db.SetInspectionResponsesParams{OrgID: a.OrgID, ID: in.ID, Responses: raw, Notes: notes, Now: now}); err != nil {
			return err
		}
		if err := audit.RecordSite(ctx, q, a.OrgID, in.SiteID, in.ID, now); err != nil {
			return err
		}
		out, err = view(ctx, q, in)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.SetInspectionResponses200JSONResponse(out), nil
}

// checkAnswer checks that an answer fits its item's kind.
func checkAnswer(field string, it api.InspectionItem, a api.InspectionAnswer) error {
	has := map[string]bool{"passed": a.Passed != nil, "score": a.Score != nil, "temperatureF": a.TemperatureF != nil, "text": a.Text != nil}
	want := map[api.InspectionItemKind]string{"pass_fail": "passed", "score": "score", "temperature": "temperatureF", "text": "text"}[it.Kind]
	for k, v := range has {
		if v && k != want {
			return apierr.InvalidField(field+"."+k, fmt.Sprintf("does not answer a %s item (answer with %s)", it.Kind, want))
		}
	}
	if !has[want] {
		return apierr.InvalidField(field+"."+want, fmt.Sprintf("is required to answer a %s item", it.Kind))
	}
	if it.Kind == "score" && it.MaxScore != nil && *a.Score > *it.MaxScore {
		return apierr.InvalidField(field+".score", fmt.Sprintf("must not exceed the item's maxScore %d", *it.MaxScore))
	}
	return nil
}

func (h *Handlers) CompleteInspection(ctx context.Context, req api.CompleteInspectionRequestObject) (api.CompleteInspectionResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	tasks, err := tasksOf()
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out api.Inspection
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		in, err := inspection(ctx, q, a, req.Id, true)
		if err != nil {
			return err
		}
		if err := writable(in); err != nil {
			return err
		}
		secs, err := sectionsOf(in.Sections)
		if err != nil {
			return err
		}
		answers, err := answersOf(in.Responses)
		if err != nil {
			return err
		}
		s := evaluate(secs, answers, int(in.PassPercent), true)
		if in, err = q.CompleteInspection(ctx, db.CompleteInspectionParams{OrgID: a.OrgID, ID: in.ID, Score: &s.Score, MaxScore: &s.Max,
			Percent: s.Percent, Result: &s.Result, Now: now, CompletedBy: userPtr(a)}); err != nil {
			return err
		}
		for _, r := range s.Items {
			if r.Outcome != outcomeFail {
				continue
			}
			var note *string
			if r.Answer != nil && r.Answer.Note != nil && strings.TrimSpace(*r.Answer.Note) != "" {
				note = r.Answer.Note
			}
			f, err := q.InsertFinding(ctx, db.InsertFindingParams{ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, InspectionID: in.ID, SiteID: in.SiteID,
				Section: r.Section, ItemKey: r.Item.Key, Prompt: r.Item.Prompt, Critical: deref(r.Item.Critical, false), Note: note, Now: now})
			if err != nil {
				return err
			}
			desc := fmt.Sprintf("Inspection finding (%s, %s): %s", in.TemplateName, r.Section, r.Item.Prompt)
			if note != nil {
				desc += "\n\n" + *note
			}
			priority := "medium"
			if f.Critical {
				priority = "high"
			}
			days := deref(r.Item.DueDays, DefaultFindingDays)
			taskID, err := tasks.OpenFindingTask(ctx, tx, now, FindingTask{OrgID: a.OrgID, SiteID: in.SiteID, FindingID: f.ID,
				Title: "Correct: " + r.Item.Prompt, Description: desc, Priority: priority, Due: now.Add(time.Duration(days) * 24 * time.Hour)})
			if err != nil {
				return err
			}
			if err := q.SetFindingTask(ctx, db.SetFindingTaskParams{OrgID: a.OrgID, ID: f.ID, TaskID: &taskID}); err != nil {
				return err
			}
		}
		if err := audit.RecordSite(ctx, q, a.OrgID, in.SiteID, in.ID, now); err != nil {
			return err
		}
		out, err = view(ctx, q, in)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.CompleteInspection200JSONResponse(out), nil
}
