package records

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/events"
	"github.com/sous-app/sous/internal/pg"
)

var (
	errWalkthroughNotFound = apierr.NotFound("Walkthrough")
	errRunNotFound         = apierr.NotFound("Walkthrough run")
)

func walkthroughToAPI(w db.Walkthrough) (api.Walkthrough, error) {
	out := api.Walkthrough{Id: w.ID, Name: w.Name, Kind: api.WalkthroughKind(w.Kind), SiteIds: orEmpty(w.SiteIds), CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
	err := json.Unmarshal(w.Steps, &out.Steps)
	return out, err
}

func (h *Handlers) ListWalkthroughs(ctx context.Context, req api.ListWalkthroughsRequestObject) (api.ListWalkthroughsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := db.New(h.pool).ListWalkthroughs(ctx, db.ListWalkthroughsParams{OrgID: a.OrgID, Scope: a.SiteScope()})
	if err != nil {
		return nil, err
	}
	out := make(api.ListWalkthroughs200JSONResponse, 0, len(rows))
	for _, r := range rows {
		w, err := walkthroughToAPI(r)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

func (h *Handlers) CreateWalkthrough(ctx context.Context, req api.CreateWalkthroughRequestObject) (api.CreateWalkthroughResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	name := strings.TrimSpace(b.Name)
	if name == "" {
		return nil, apierr.InvalidField("name", "must not be blank")
	}
	keys := map[string]bool{}
	for i := range b.Steps {
		s := &b.Steps[i]
		if keys[s.Key] {
			return nil, apierr.InvalidField(fmt.Sprintf("steps[%d].key", i), "repeats an earlier step's key")
		}
		keys[s.Key] = true
		if strings.TrimSpace(s.Prompt) == "" {
			return nil, apierr.InvalidField(fmt.Sprintf("steps[%d].prompt", i), "must not be blank")
		}
		if s.Required == nil {
			t := true
			s.Required = &t
		}
	}
	steps, err := json.Marshal(b.Steps)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var w db.Walkthrough
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		var ids []uuid.UUID
		if b.SiteIds != nil {
			ids = *b.SiteIds
		}
		sites, err := sitesList(ctx, q, a, "siteIds", ids, true)
		if err != nil {
			return err
		}
		if err := checkGuides(ctx, q, a.OrgID, b.Steps, sites); err != nil {
			return err
		}
		if w, err = q.InsertWalkthrough(ctx, db.InsertWalkthroughParams{ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, Name: name, Kind: string(b.Kind),
			Steps: steps, SiteIds: sites, Now: now}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, auditSite(sites), w.ID, now)
	})
	if err != nil {
		return nil, err
	}
	out, err := walkthroughToAPI(w)
	if err != nil {
		return nil, err
	}
	return api.CreateWalkthrough201JSONResponse{Body: out}, nil
}

func (h *Handlers) GetWalkthrough(ctx context.Context, req api.GetWalkthroughRequestObject) (api.GetWalkthroughResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	w, err := db.New(h.pool).GetWalkthrough(ctx, db.GetWalkthroughParams{OrgID: a.OrgID, ID: req.Id})
	if pg.IsNoRows(err) || (err == nil && !visibleSites(a, w.SiteIds)) {
		return nil, errWalkthroughNotFound
	}
	if err != nil {
		return nil, err
	}
	out, err := walkthroughToAPI(w)
	if err != nil {
		return nil, err
	}
	return api.GetWalkthrough200JSONResponse(out), nil
}

func runToAPI(r db.WalkthroughRun, name string) (api.WalkthroughRun, error) {
	out := api.WalkthroughRun{Id: r.ID, WalkthroughId: r.WalkthroughID, WalkthroughName: name, SiteId: r.SiteID, Status: api.WalkthroughRunStatus(r.Status),
		StartedBy: r.StartedBy, StartedAt: r.StartedAt, SubmittedBy: r.SubmittedBy, SubmittedAt: r.SubmittedAt, Answers: []api.WalkthroughAnswer{}}
	if err := json.Unmarshal(r.Steps, &out.Steps); err != nil {
		return out, err
	}
	answers := map[string]api.WalkthroughAnswer{}
	if len(r.Responses) > 0 {
		if err := json.Unmarshal(r.Responses, &answers); err != nil {
			return out, err
		}
	}
	for _, s := range out.Steps {
		if a, ok := answers[s.Key]; ok {
			out.Answers = append(out.Answers, a)
		}
	}
	return out, nil
}

func (h *Handlers) runView(ctx context.Context, q *db.Queries, org, id uuid.UUID) (api.WalkthroughRun, error) {
	r, err := q.GetWalkthroughRun(ctx, db.GetWalkthroughRunParams{OrgID: org, ID: id})
	if err != nil {
		return api.WalkthroughRun{}, err
	}
	return runToAPI(db.WalkthroughRun{ID: r.ID, OrgID: r.OrgID, WalkthroughID: r.WalkthroughID, SiteID: r.SiteID, Steps: r.Steps, Responses: r.Responses,
		Status: r.Status, StartedBy: r.StartedBy, StartedAt: r.StartedAt, SubmittedBy: r.SubmittedBy, SubmittedAt: r.SubmittedAt}, r.WalkthroughName)
}

func (h *Handlers) StartWalkthroughRun(ctx context.Context, req api.StartWalkthroughRunRequestObject) (api.StartWalkthroughRunResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out api.WalkthroughRun
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		w, err := q.GetWalkthrough(ctx, db.GetWalkthroughParams{OrgID: a.OrgID, ID: req.Id})
		if pg.IsNoRows(err) || (err == nil && !visibleSites(a, w.SiteIds)) {
			return errWalkthroughNotFound
		}
		if err != nil {
			return err
		}
		if _, err := site(ctx, q, a, req.Body.SiteId); err != nil {
			return err
		}
		if len(w.SiteIds) > 0 && !slices.Contains(w.SiteIds, req.Body.SiteId) {
			return apierr.InvalidField("siteId", "is not a site this walkthrough is for")
		}
		r, err := q.InsertWalkthroughRun(ctx, db.InsertWalkthroughRunParams{ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, WalkthroughID: w.ID,
			SiteID: req.Body.SiteId, Steps: w.Steps, StartedBy: userPtr(a), Now: now})
		if err != nil {
			return err
		}
		if err := audit.RecordSite(ctx, q, a.OrgID, r.SiteID, r.ID, now); err != nil {
			return err
		}
		out, err = runToAPI(r, w.Name)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.StartWalkthroughRun201JSONResponse{Body: out}, nil
}

func (h *Handlers) GetWalkthroughRun(ctx context.Context, req api.GetWalkthroughRunRequestObject) (api.GetWalkthroughRunResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	out, err := h.runView(ctx, db.New(h.pool), a.OrgID, req.Id)
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(out.SiteId)) {
		return nil, errRunNotFound
	}
	if err != nil {
		return nil, err
	}
	return api.GetWalkthroughRun200JSONResponse(out), nil
}

// lockRun locks a run the member can see, still in progress.
func lockRun(ctx context.Context, q *db.Queries, a authz.Access, id uuid.UUID) (db.WalkthroughRun, error) {
	r, err := q.LockWalkthroughRun(ctx, db.LockWalkthroughRunParams{OrgID: a.OrgID, ID: id})
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(r.SiteID)) {
		return r, errRunNotFound
	}
	if err != nil {
		return r, err
	}
	if r.Status != "in_progress" {
		return r, apierr.Conflict("The walkthrough run is already submitted")
	}
	return r, nil
}

func stepAnswerFits(field string, s api.WalkthroughStep, a api.WalkthroughAnswer) error {
	has := map[string]bool{"checked": a.Checked != nil, "yes": a.Yes != nil, "text": a.Text != nil, "value": a.Value != nil, "mediaId": a.MediaId != nil}
	want := map[api.WalkthroughAnswerKind]string{"check": "checked", "yes_no": "yes", "text": "text", "number": "value", "temperature": "value", "photo": "mediaId"}[s.AnswerKind]
	for k, v := range has {
		if v && k != want {
			return apierr.InvalidField(field+"."+k, fmt.Sprintf("does not answer a %s step (answer with %s)", s.AnswerKind, want))
		}
	}
	if !has[want] {
		return apierr.InvalidField(field+"."+want, fmt.Sprintf("is required to answer a %s step", s.AnswerKind))
	}
	if s.AnswerKind == "check" && !*a.Checked {
		return apierr.InvalidField(field+".checked", "a check step is answered by checking it (true)")
	}
	if s.AnswerKind == "text" && strings.TrimSpace(*a.Text) == "" {
		return apierr.InvalidField(field+".text", "must not be blank")
	}
	return nil
}

func (h *Handlers) SetWalkthroughResponses(ctx context.Context, req api.SetWalkthroughResponsesRequestObject) (api.SetWalkthroughResponsesResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out api.WalkthroughRun
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		r, err := lockRun(ctx, q, a, req.Id)
		if err != nil {
			return err
		}
		var steps []api.WalkthroughStep
		if err := json.Unmarshal(r.Steps, &steps); err != nil {
			return err
		}
		answers := map[string]api.WalkthroughAnswer{}
		if len(r.Responses) > 0 {
			if err := json.Unmarshal(r.Responses, &answers); err != nil {
				return err
			}
		}
		// Images already on the run stay, whoever attached them; the others must be images the
		// member may see.
		kept := []uuid.UUID{}
		for _, ans := range answers {
			if ans.MediaId != nil {
				kept = append(kept, *ans.MediaId)
			}
		}
		media := []uuid.UUID{}
		for i, ans := range req.Body.Answers {
			field := fmt.Sprintf("answers[%d]", i)
			idx := slices.IndexFunc(steps, func(s api.WalkthroughStep) bool { return s.Key == ans.StepKey })
			if idx < 0 {
				return apierr.InvalidField(field+".stepKey", "is not a step of the walkthrough")
			}
			if err := stepAnswerFits(field, steps[idx], ans); err != nil {
				return err
			}
			if ans.MediaId != nil && !slices.Contains(kept, *ans.MediaId) {
				media = append(media, *ans.MediaId)
			}
			answers[ans.StepKey] = ans
		}
		if len(media) > 0 {
			slices.SortFunc(media, func(x, y uuid.UUID) int { return strings.Compare(x.String(), y.String()) })
			media = slices.Compact(media)
			n, err := q.CountRecordsMedia(ctx, db.CountRecordsMediaParams{OrgID: a.OrgID, Ids: media, Scope: a.SiteScope()})
			if err != nil {
				return err
			}
			if int(n) != len(media) {
				return apierr.InvalidField("answers", "mediaId names images of the organization (POST /media)")
			}
		}
		raw, err := json.Marshal(answers)
		if err != nil {
			return err
		}
		if err := q.SetWalkthroughResponses(ctx, db.SetWalkthroughResponsesParams{OrgID: a.OrgID, ID: r.ID, Responses: raw}); err != nil {
			return err
		}
		if err := audit.RecordSite(ctx, q, a.OrgID, r.SiteID, r.ID, now); err != nil {
			return err
		}
		out, err = h.runView(ctx, q, a.OrgID, r.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.SetWalkthroughResponses200JSONResponse(out), nil
}

func (h *Handlers) SubmitWalkthroughRun(ctx context.Context, req api.SubmitWalkthroughRunRequestObject) (api.SubmitWalkthroughRunResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out api.WalkthroughRun
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		r, err := lockRun(ctx, q, a, req.Id)
		if err != nil {
			return err
		}
		var steps []api.WalkthroughStep
		if err := json.Unmarshal(r.Steps, &steps); err != nil {
			return err
		}
		answers := map[string]json.RawMessage{}
		if len(r.Responses) > 0 {
			if err := json.Unmarshal(r.Responses, &answers); err != nil {
				return err
			}
		}
		var missing []apierr.FieldError
		for _, s := range steps {
			if _, ok := answers[s.Key]; !ok && (s.Required == nil || *s.Required) {
				missing = append(missing, apierr.FieldError{Field: "steps." + s.Key, Message: "is required and not answered: " + s.Prompt})
			}
		}
		if len(missing) > 0 {
			keys := make([]string, 0, len(missing))
			for _, m := range missing {
				keys = append(keys, strings.TrimPrefix(m.Field, "steps."))
			}
			return apierr.Invalid("Required steps not answered: "+strings.Join(keys, ", "), missing...)
		}
		if _, err := q.SubmitWalkthroughRun(ctx, db.SubmitWalkthroughRunParams{OrgID: a.OrgID, ID: r.ID, Now: now, SubmittedBy: userPtr(a)}); err != nil {
			return err
		}
		if _, err := events.Publish(ctx, q, a.OrgID, events.WalkthroughSubmitted, now, map[string]any{
			"runId": r.ID, "walkthroughId": r.WalkthroughID, "siteId": r.SiteID,
		}); err != nil {
			return err
		}
		if err := audit.RecordSite(ctx, q, a.OrgID, r.SiteID, r.ID, now); err != nil {
			return err
		}
		out, err = h.runView(ctx, q, a.OrgID, r.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.SubmitWalkthroughRun200JSONResponse(out), nil
}

// checkGuides checks that each step's guide is a guide of the organization for every site the
// walkthrough is for (a guide for every site always is).
func checkGuides(ctx context.Context, q *db.Queries, org uuid.UUID, steps []api.WalkthroughStep, sites []uuid.UUID) error {
	ids := []uuid.UUID{}
	for _, s := range steps {
		if s.GuideId != nil && !slices.Contains(ids, *s.GuideId) {
			ids = append(ids, *s.GuideId)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	f, err := tasksOf()
	if err != nil {
		return err
	}
	guides, err := f.GuideSites(ctx, q, org, ids)
	if err != nil {
		return err
	}
	for i, s := range steps {
		if s.GuideId == nil {
			continue
		}
		gs, ok := guides[*s.GuideId]
		covers := ok && (len(gs) == 0 || (len(sites) > 0 && !slices.ContainsFunc(sites, func(x uuid.UUID) bool { return !slices.Contains(gs, x) })))
		if !covers {
			return apierr.InvalidField(fmt.Sprintf("steps[%d].guideId", i), "is not a guide (GET /guides) for every site of the walkthrough")
		}
	}
	return nil
}
