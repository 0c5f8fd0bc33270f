// Package surveys runs surveys of guests and patients: questions, links (the shared multi-use
// link and invitations, single-use or not), submissions validated server-side, and results.
// Respondents answer from a public capability link with no account.
package surveys

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/capability"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
)

// Handlers serve the survey operations and the public survey links.
type Handlers struct {
	pool     *pgxpool.Pool
	clock    clock.Clock
	resolver *capability.Resolver
	webURL   string
}

// NewHandlers serves the operations; webURL is SOUS_WEB_URL, the base of the public links.
func NewHandlers(pool *pgxpool.Pool, c clock.Clock, resolver *capability.Resolver, webURL string) *Handlers {
	return &Handlers{pool: pool, clock: c, resolver: resolver, webURL: webURL}
}

var (
	errNotFound       = apierr.NotFound("Survey")
	errScopedSiteless = apierr.Forbidden("Members limited to some sites can only manage surveys of one of their sites").WithCode(apierr.CodeSiteScopeExceeded)
)

func (h *Handlers) surveyURL(token string) string { return h.webURL + "/survey/" + token }

// surveyFor loads a survey the member can see: one of their sites, or organization-wide.
func surveyFor(ctx context.Context, q *db.Queries, a authz.Access, orgID, id uuid.UUID, lock bool) (db.Survey, error) {
	var (
		s   db.Survey
		err error
	)
	if lock {
		s, err = q.GetSurveyForUpdate(ctx, db.GetSurveyForUpdateParams{OrgID: orgID, ID: id})
	} else {
		s, err = q.GetSurvey(ctx, db.GetSurveyParams{OrgID: orgID, ID: id})
	}
	if pg.IsNoRows(err) || (err == nil && s.SiteID != nil && !a.CanSeeSite(*s.SiteID)) {
		return db.Survey{}, errNotFound
	}
	return s, err
}

// forWrite loads a survey the member may change: siteless ones only with every site.
func forWrite(ctx context.Context, q *db.Queries, a authz.Access, orgID, id uuid.UUID) (db.Survey, error) {
	s, err := surveyFor(ctx, q, a, orgID, id, true)
	if err == nil && s.SiteID == nil && a.Scoped() {
		return db.Survey{}, errScopedSiteless
	}
	return s, err
}

func site(s db.Survey) uuid.UUID {
	if s.SiteID == nil {
		return uuid.Nil
	}
	return *s.SiteID
}

func questionsOf(s db.Survey) ([]api.Question, error) {
	var qs []api.Question
	err := json.Unmarshal(s.Questions, &qs)
	return qs, err
}

func toAPI(s db.Survey, responses int) (api.Survey, error) {
	qs, err := questionsOf(s)
	if err != nil {
		return api.Survey{}, err
	}
	return api.Survey{
		Id: s.ID, Name: s.Name, SiteId: s.SiteID, Questions: qs, Status: api.SurveyStatus(s.Status), ClosesAt: s.ClosesAt,
		ThankYouMessage: s.ThankYouMessage, ResponseCount: responses, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt,
	}, nil
}

func (h *Handlers) withCount(ctx context.Context, q *db.Queries, s db.Survey) (api.Survey, error) {
	n, err := q.CountSurveyResponses(ctx, db.CountSurveyResponsesParams{OrgID: s.OrgID, SurveyID: s.ID})
	if err != nil {
		return api.Survey{}, err
	}
	return toAPI(s, int(n))
}

type idCursor struct {
	ID uuid.UUID `json:"i"`
}

func (h *Handlers) ListSurveys(ctx context.Context, req api.ListSurveysRequestObject) (api.ListSurveysResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	limit := paging.Limit(req.Params.Limit)
	p := db.ListSurveysParams{OrgID: req.OrgId, Scope: a.SiteScope(), MaxRows: paging.Fetch(limit)}
	if req.Params.Cursor != nil {
		var c idCursor
		if err := paging.DecodeCursor(*req.Params.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		p.CursorID = &c.ID
	}
	rows, err := db.New(h.pool).ListSurveys(ctx, p)
	if err != nil {
		return nil, err
	}
	out := api.ListSurveys200JSONResponse{Body: make([]api.Survey, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.ListSurveysRow) any { return idCursor{ID: last.Survey.ID} })
	for _, r := range rows {
		s, err := toAPI(r.Survey, int(r.ResponseCount))
		if err != nil {
			return nil, err
		}
		out.Body = append(out.Body, s)
	}
	return out, nil
}

func (h *Handlers) GetSurvey(ctx context.Context, req api.GetSurveyRequestObject) (api.GetSurveyResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	s, err := surveyFor(ctx, q, a, req.OrgId, req.Id, false)
	if err != nil {
		return nil, err
	}
	out, err := h.withCount(ctx, q, s)
	if err != nil {
		return nil, err
	}
	return api.GetSurvey200JSONResponse(out), nil
}

type surveyFields struct {
	name, thanks string
	questions    []byte
	parsed       []api.Question
}

func cleanSurvey(b *api.SurveyRequest) (surveyFields, error) {
	f := surveyFields{name: strings.TrimSpace(b.Name), thanks: strings.TrimSpace(b.ThankYouMessage)}
	if f.name == "" {
		return f, apierr.InvalidField("name", "must not be blank")
	}
	qs, err := cleanQuestions(b.Questions)
	if err != nil {
		return f, err
	}
	f.parsed = qs
	f.questions, _ = json.Marshal(qs)
	return f, nil
}

func (h *Handlers) CreateSurvey(ctx context.Context, req api.CreateSurveyRequestObject) (api.CreateSurveyResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	f, err := cleanSurvey(req.Body)
	if err != nil {
		return nil, err
	}
	b := req.Body
	if b.SiteId == nil && a.Scoped() {
		return nil, errScopedSiteless
	}
	if b.SiteId != nil {
		if err := a.CheckSite(*b.SiteId); err != nil {
			return nil, err
		}
	}
	now := h.clock.Now()
	var row db.Survey
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		if b.SiteId != nil {
			if _, err := q.GetSite(ctx, db.GetSiteParams{OrgID: req.OrgId, ID: *b.SiteId}); err != nil {
				if pg.IsNoRows(err) {
					return apierr.NotFound("Site")
				}
				return err
			}
		}
		row, err = q.CreateSurvey(ctx, db.CreateSurveyParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, SiteID: b.SiteId, Name: f.name, Questions: f.questions,
			Status: string(b.Status), ClosesAt: b.ClosesAt, ThankYouMessage: f.thanks, Now: now,
		})
		if err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, site(row), row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	out, err := toAPI(row, 0)
	if err != nil {
		return nil, err
	}
	return api.CreateSurvey201JSONResponse{Body: out}, nil
}

// UpdateSurvey replaces a survey; its questions are fixed once a response exists. The survey row
// is locked, and submissions hold it shared, so a change of questions and a submission cannot
// cross.
func (h *Handlers) UpdateSurvey(ctx context.Context, req api.UpdateSurveyRequestObject) (api.UpdateSurveyResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	f, err := cleanSurvey(req.Body)
	if err != nil {
		return nil, err
	}
	b := req.Body
	now := h.clock.Now()
	var out api.Survey
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		cur, err := forWrite(ctx, q, a, req.OrgId, req.Id)
		if err != nil {
			return err
		}
		if (b.SiteId == nil) != (cur.SiteID == nil) || (b.SiteId != nil && *b.SiteId != *cur.SiteID) {
			return apierr.InvalidField("siteId", "cannot change")
		}
		old, err := questionsOf(cur)
		if err != nil {
			return err
		}
		n, err := q.CountSurveyResponses(ctx, db.CountSurveyResponsesParams{OrgID: req.OrgId, SurveyID: cur.ID})
		if err != nil {
			return err
		}
		if n > 0 && !reflect.DeepEqual(old, f.parsed) {
			return apierr.Conflict("The survey has responses, so its questions cannot change: copy it instead").WithCode(apierr.CodeSurveyHasResponses)
		}
		row, err := q.UpdateSurvey(ctx, db.UpdateSurveyParams{
			ID: cur.ID, OrgID: req.OrgId, Name: f.name, Questions: f.questions, Status: string(b.Status),
			ClosesAt: b.ClosesAt, ThankYouMessage: f.thanks, Now: now,
		})
		if err != nil {
			return err
		}
		if out, err = toAPI(row, int(n)); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, site(row), row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateSurvey200JSONResponse(out), nil
}

// ShareSurvey mints (or rotates) the survey's one shared multi-use link.
func (h *Handlers) ShareSurvey(ctx context.Context, req api.ShareSurveyRequestObject) (api.ShareSurveyResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var token string
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		s, err := forWrite(ctx, q, a, req.OrgId, req.Id)
		if err != nil {
			return err
		}
		inv, err := q.GetSharedSurveyInvitation(ctx, db.GetSharedSurveyInvitationParams{OrgID: req.OrgId, SurveyID: s.ID})
		if pg.IsNoRows(err) {
			inv, err = q.CreateSurveyInvitation(ctx, db.CreateSurveyInvitationParams{
				ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, SurveyID: s.ID, Shared: true, SingleUse: false, Now: now,
			})
		}
		if err != nil {
			return err
		}
		if token, err = capability.Issue(ctx, q, req.OrgId, capability.Survey, inv.ID, now, capability.Options{CreatedBy: a.Actor()}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, site(s), s.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.ShareSurvey200JSONResponse{Url: h.surveyURL(token), Token: token}, nil
}

func (h *Handlers) CreateSurveyInvitations(ctx context.Context, req api.CreateSurveyInvitationsRequestObject) (api.CreateSurveyInvitationsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	now := h.clock.Now()
	var recipients []api.Recipient
	switch {
	case (b.Count == nil) == (b.Recipients == nil):
		return nil, apierr.InvalidField("count", "send exactly one of count and recipients")
	case b.Count != nil:
		recipients = make([]api.Recipient, *b.Count)
	default:
		recipients = *b.Recipients
	}
	if b.ExpiresAt != nil && !b.ExpiresAt.After(now) {
		return nil, apierr.InvalidField("expiresAt", "must be in the future")
	}
	out := make([]api.SurveyInvitation, 0, len(recipients))
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		out = out[:0]
		s, err := forWrite(ctx, q, a, req.OrgId, req.Id)
		if err != nil {
			return err
		}
		for _, r := range recipients {
			var email *string
			if r.Email != nil {
				e := string(*r.Email)
				email = &e
			}
			inv, err := q.CreateSurveyInvitation(ctx, db.CreateSurveyInvitationParams{
				ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, SurveyID: s.ID, SingleUse: b.SingleUse,
				Name: r.Name, Email: email, Reference: r.Reference, ExpiresAt: b.ExpiresAt, Now: now,
			})
			if err != nil {
				return err
			}
			token, err := capability.Issue(ctx, q, req.OrgId, capability.Survey, inv.ID, now, capability.Options{CreatedBy: a.Actor(), ExpiresAt: b.ExpiresAt})
			if err != nil {
				return err
			}
			out = append(out, api.SurveyInvitation{
				Id: inv.ID, Token: token, Url: h.surveyURL(token), SingleUse: inv.SingleUse, Name: inv.Name, Email: inv.Email,
				Reference: inv.Reference, ExpiresAt: inv.ExpiresAt,
			})
		}
		return audit.RecordSite(ctx, q, req.OrgId, site(s), s.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateSurveyInvitations201JSONResponse{Body: out}, nil
}

// --- public

// closed reports whether the survey takes no more answers at now.
func closed(s db.Survey, now time.Time) bool {
	return s.Status == "closed" || (s.ClosesAt != nil && !now.Before(*s.ClosesAt))
}

var errClosed = apierr.Gone("This survey is closed").WithCode(apierr.CodeSurveyClosed)

func (h *Handlers) GetPublicSurvey(ctx context.Context, req api.GetPublicSurveyRequestObject) (api.GetPublicSurveyResponseObject, error) {
	out, _, err := h.PublicSurvey(ctx, req.Token)
	if err != nil {
		return nil, err
	}
	return api.GetPublicSurvey200JSONResponse{Body: out}, nil
}

// PublicSurvey is the survey a public link opens, and whether the link is a single-use
// invitation already answered (the hosted page says so before the guest fills it in; the
// submission would answer 409).
func (h *Handlers) PublicSurvey(ctx context.Context, token string) (api.PublicSurvey, bool, error) {
	t, err := h.resolver.Resolve(ctx, capability.Survey, token)
	if err != nil {
		return api.PublicSurvey{}, false, err
	}
	row, err := db.New(h.pool).GetPublicSurvey(ctx, db.GetPublicSurveyParams{OrgID: t.OrgID, ID: t.ID})
	if pg.IsNoRows(err) || (err == nil && row.Survey.Status == "draft") {
		return api.PublicSurvey{}, false, capability.ErrNotFound
	}
	if err != nil {
		return api.PublicSurvey{}, false, err
	}
	s := row.Survey
	if closed(s, h.clock.Now()) {
		return api.PublicSurvey{}, false, errClosed
	}
	qs, err := questionsOf(s)
	if err != nil {
		return api.PublicSurvey{}, false, err
	}
	out := api.PublicSurvey{
		Brand: api.PublicBrand{Name: row.OrgName, Primary: row.BrandPrimary, Accent: row.BrandAccent},
		Title: s.Name, SiteName: row.SiteName, ThankYouMessage: s.ThankYouMessage, ClosesAt: s.ClosesAt,
		Questions: make([]api.PublicQuestion, len(qs)),
	}
	for i, q := range qs {
		out.Questions[i] = api.PublicQuestion(q)
	}
	return out, row.SingleUse && row.UsedAt != nil, nil
}

// SubmitPublicSurvey records one submission. A single-use invitation is locked, so of N
// simultaneous submissions through it one is recorded and the others answer 409.
func (h *Handlers) SubmitPublicSurvey(ctx context.Context, req api.SubmitPublicSurveyRequestObject) (api.SubmitPublicSurveyResponseObject, error) {
	t, err := h.resolver.ResolveWrite(ctx, capability.Survey, req.Token)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var thanks string
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		row, err := q.GetPublicSurveyForSubmit(ctx, db.GetPublicSurveyForSubmitParams{OrgID: t.OrgID, ID: t.ID})
		if pg.IsNoRows(err) || (err == nil && row.Survey.Status == "draft") {
			return capability.ErrNotFound
		}
		if err != nil {
			return err
		}
		s := row.Survey
		if closed(s, now) {
			return errClosed
		}
		qs, err := questionsOf(s)
		if err != nil {
			return err
		}
		answers, err := validateAnswers(qs, req.Body.Answers)
		if err != nil {
			return err
		}
		if row.SingleUse {
			inv, err := q.LockSurveyInvitation(ctx, db.LockSurveyInvitationParams{OrgID: t.OrgID, ID: t.ID})
			if err != nil {
				return err
			}
			if inv.UsedAt != nil {
				return apierr.Conflict("This survey link has already been used").WithCode(apierr.CodeSurveyAlreadyAnswered)
			}
			if err := q.UseSurveyInvitation(ctx, db.UseSurveyInvitationParams{OrgID: t.OrgID, ID: t.ID, Now: now}); err != nil {
				return err
			}
		}
		raw, _ := json.Marshal(answers)
		thanks = s.ThankYouMessage
		return q.InsertSurveyResponse(ctx, db.InsertSurveyResponseParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: t.OrgID, SurveyID: s.ID, InvitationID: t.ID, Answers: raw, Now: now,
		})
	})
	if err != nil {
		return nil, err
	}
	return api.SubmitPublicSurvey200JSONResponse{Body: api.SurveyReceipt{ThankYouMessage: thanks, SubmittedAt: now}}, nil
}
