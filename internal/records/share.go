package records

import (
	"context"
	"regexp"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/capability"
	"github.com/sous-app/sous/internal/pg"
)

var (
	emailPattern = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}`)
	uuidPattern  = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
)

// clean removes what a public page must not show from free text people typed: email
// addresses and ids.
func clean(s string) string {
	s = emailPattern.ReplaceAllString(s, "[email removed]")
	return uuidPattern.ReplaceAllString(s, "[id removed]")
}

func cleanPtr(s *string) *string {
	if s == nil {
		return nil
	}
	c := clean(*s)
	return &c
}

// SharePath is where a shared inspection report is read, under SOUS_WEB_URL (the web page,
// which reads GET /v1/share/insp/{token}), as catering's shared quotes and invoices are.
const SharePath = "/share/insp/"

func (h *Handlers) ShareInspection(ctx context.Context, req api.ShareInspectionRequestObject) (api.ShareInspectionResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var token string
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		in, err := inspection(ctx, q, a, req.Id, true) // the lock makes concurrent reissues rotate one after the other
		if err != nil {
			return err
		}
		if token, err = capability.Issue(ctx, q, a.OrgID, capability.Inspection, in.ID, now, capability.Options{CreatedBy: userPtr(a)}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, in.SiteID, in.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.ShareInspection200JSONResponse{Token: token, Url: h.webURL + SharePath + token}, nil
}

// GetSharedInspection answers the public link: display data only. Every token that opens
// nothing (unknown, rotated, revoked, another kind) is the same 404.
func (h *Handlers) GetSharedInspection(ctx context.Context, req api.GetSharedInspectionRequestObject) (api.GetSharedInspectionResponseObject, error) {
	t, err := h.resolver.Resolve(ctx, capability.Inspection, req.Token)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	in, err := q.GetInspection(ctx, db.GetInspectionParams{OrgID: t.OrgID, ID: t.ID})
	if pg.IsNoRows(err) {
		return nil, capability.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	s, err := q.RecordsSite(ctx, db.RecordsSiteParams{OrgID: t.OrgID, ID: in.SiteID})
	if err != nil {
		return nil, err
	}
	org, err := q.RecordsSharedBrand(ctx, t.OrgID)
	if err != nil {
		return nil, err
	}
	secs, err := sectionsOf(in.Sections)
	if err != nil {
		return nil, err
	}
	answers, err := answersOf(in.Responses)
	if err != nil {
		return nil, err
	}
	ev := evaluate(secs, answers, int(in.PassPercent), in.Status == "completed")
	when := in.ScheduledFor
	if in.CompletedAt != nil {
		when = *in.CompletedAt
	}
	out := api.GetSharedInspection200JSONResponse{
		Brand:    &api.PublicBrand{Name: clean(org.Name), Primary: org.BrandPrimary, Accent: org.BrandAccent},
		SiteName: clean(s.Name), TemplateName: clean(in.TemplateName), Date: openapi_types.Date{Time: localDate(when, s.Timezone)},
		Status: api.InspectionStatus(in.Status), Score: decString(in.Score), MaxScore: decString(in.MaxScore), Percent: decString(in.Percent),
	}
	if in.Result != nil {
		r := api.InspectionResult(*in.Result)
		out.Result = &r
	}
	type item = struct {
		Critical bool                                     `json:"critical"`
		Kind     api.InspectionItemKind                   `json:"kind"`
		Note     *string                                  `json:"note"`
		Outcome  api.SharedInspectionSectionsItemsOutcome `json:"outcome"`
		Prompt   string                                   `json:"prompt"`
	}
	out.Sections = []struct {
		Items []item `json:"items"`
		Title string `json:"title"`
	}{}
	for _, r := range ev.Items {
		n := len(out.Sections)
		if n == 0 || out.Sections[n-1].Title != r.Section {
			out.Sections = append(out.Sections, struct {
				Items []item `json:"items"`
				Title string `json:"title"`
			}{Items: []item{}, Title: clean(r.Section)})
			n++
		}
		var note *string
		if r.Answer != nil && r.Answer.Note != nil {
			note = r.Answer.Note
		}
		if r.Item.Kind == "text" && r.Answer != nil && r.Answer.Text != nil {
			note = r.Answer.Text
		}
		out.Sections[n-1].Items = append(out.Sections[n-1].Items, item{Critical: deref(r.Item.Critical, false), Kind: r.Item.Kind, Note: cleanPtr(note),
			Outcome: api.SharedInspectionSectionsItemsOutcome(r.Outcome), Prompt: clean(r.Item.Prompt)})
	}
	findings, err := q.ListFindings(ctx, db.ListFindingsParams{OrgID: t.OrgID, InspectionIds: []uuid.UUID{in.ID}})
	if err != nil {
		return nil, err
	}
	taskIDs := []uuid.UUID{}
	for _, f := range findings {
		if f.TaskID != nil {
			taskIDs = append(taskIDs, *f.TaskID)
		}
	}
	statuses, err := taskStatuses(ctx, q, t.OrgID, taskIDs)
	if err != nil {
		return nil, err
	}
	out.Findings = make([]struct {
		CorrectiveAction string  `json:"correctiveAction"`
		Critical         bool    `json:"critical"`
		Note             *string `json:"note"`
		Prompt           string  `json:"prompt"`
		Section          string  `json:"section"`
	}, 0, len(findings))
	for _, f := range findings {
		action := "none"
		if f.TaskID != nil {
			if s, ok := statuses[*f.TaskID]; ok {
				action = s
			}
		}
		out.Findings = append(out.Findings, struct {
			CorrectiveAction string  `json:"correctiveAction"`
			Critical         bool    `json:"critical"`
			Note             *string `json:"note"`
			Prompt           string  `json:"prompt"`
			Section          string  `json:"section"`
		}{CorrectiveAction: action, Critical: f.Critical, Note: cleanPtr(f.Note), Prompt: clean(f.Prompt), Section: clean(f.Section)})
	}
	return out, nil
}
