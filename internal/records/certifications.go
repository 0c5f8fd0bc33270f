package records

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/periodic"
	"github.com/sous-app/sous/internal/pg"
)

// KindCertificationLapse is the alert of a certification about to lapse or lapsed.
const KindCertificationLapse = "certification_lapse"

// warningDays is how long before expiry the first alert opens.
const warningDays = 30

var errCertificationNotFound = apierr.NotFound("Certification")

// certStatus is a certification's status on the local date today.
func certStatus(expires, today time.Time) string {
	switch {
	case !today.Before(expires):
		return "lapsed"
	case !today.Before(expires.AddDate(0, 0, -warningDays)):
		return "expiring"
	}
	return "valid"
}

func (h *Handlers) certView(ctx context.Context, q *db.Queries, org, id uuid.UUID) (api.Certification, error) {
	c, err := q.GetCertificationView(ctx, db.GetCertificationViewParams{OrgID: org, ID: id})
	if err != nil {
		return api.Certification{}, err
	}
	return certToAPI(db.ListCertificationsRow(c), h.clock.Now()), nil
}

func certToAPI(c db.ListCertificationsRow, now time.Time) api.Certification {
	return api.Certification{Id: c.ID, UserId: c.UserID, UserName: c.UserName, SiteId: c.SiteID, Kind: api.CertificationKind(c.Kind), Number: c.Number,
		IssuedOn: openapi_types.Date{Time: c.IssuedOn.Time}, ExpiresOn: openapi_types.Date{Time: c.ExpiresOn.Time},
		Status: api.CertificationStatus(certStatus(c.ExpiresOn.Time, localDate(now, c.Timezone))), CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

// checkCert checks the holder (a member with access to the site) and the dates.
func checkCert(ctx context.Context, q *db.Queries, a authz.Access, b api.CertificationRequest) error {
	if _, err := site(ctx, q, a, b.SiteId); err != nil {
		return err
	}
	if b.IssuedOn.After(b.ExpiresOn.Time) {
		return apierr.InvalidField("expiresOn", "must not be before issuedOn")
	}
	m, err := q.RecordsMember(ctx, db.RecordsMemberParams{OrgID: a.OrgID, UserID: b.UserId})
	if pg.IsNoRows(err) {
		return apierr.InvalidField("userId", "is not a member of the organization")
	}
	if err != nil {
		return err
	}
	if len(m.SiteIds) > 0 && !slices.Contains(m.SiteIds, b.SiteId) {
		return apierr.InvalidField("userId", "is a member without access to the site")
	}
	return nil
}

func (h *Handlers) ListCertifications(ctx context.Context, req api.ListCertificationsRequestObject) (api.ListCertificationsResponseObject, error) {
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
	params := db.ListCertificationsParams{OrgID: a.OrgID, Scope: a.SiteScope(), SiteID: p.SiteId, UserID: p.UserId}
	if p.Kind != nil {
		k := string(*p.Kind)
		params.Kind = &k
	}
	rows, err := db.New(h.pool).ListCertifications(ctx, params)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	out := make(api.ListCertifications200JSONResponse, 0, len(rows))
	for _, c := range rows {
		out = append(out, certToAPI(c, now))
	}
	return out, nil
}

func (h *Handlers) CreateCertification(ctx context.Context, req api.CreateCertificationRequestObject) (api.CreateCertificationResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := *req.Body
	now := h.clock.Now()
	var out api.Certification
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		if err := checkCert(ctx, q, a, b); err != nil {
			return err
		}
		id, err := q.InsertCertification(ctx, db.InsertCertificationParams{ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, SiteID: b.SiteId, UserID: b.UserId,
			Kind: string(b.Kind), Number: trimmed(b.Number), IssuedOn: date(b.IssuedOn.Time), ExpiresOn: date(b.ExpiresOn.Time), Now: now})
		if err != nil {
			return err
		}
		if err := audit.RecordSite(ctx, q, a.OrgID, b.SiteId, id, now); err != nil {
			return err
		}
		out, err = h.certView(ctx, q, a.OrgID, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.CreateCertification201JSONResponse{Body: out}, nil
}

func (h *Handlers) GetCertification(ctx context.Context, req api.GetCertificationRequestObject) (api.GetCertificationResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	out, err := h.certView(ctx, db.New(h.pool), a.OrgID, req.Id)
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(out.SiteId)) {
		return nil, errCertificationNotFound
	}
	if err != nil {
		return nil, err
	}
	return api.GetCertification200JSONResponse(out), nil
}

func (h *Handlers) UpdateCertification(ctx context.Context, req api.UpdateCertificationRequestObject) (api.UpdateCertificationResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := *req.Body
	now := h.clock.Now()
	var out api.Certification
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		cur, err := q.GetCertificationForUpdate(ctx, db.GetCertificationForUpdateParams{OrgID: a.OrgID, ID: req.Id})
		if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(cur.SiteID)) {
			return errCertificationNotFound
		}
		if err != nil {
			return err
		}
		if err := checkCert(ctx, q, a, b); err != nil {
			return err
		}
		if err := q.UpdateCertification(ctx, db.UpdateCertificationParams{OrgID: a.OrgID, ID: cur.ID, SiteID: b.SiteId, UserID: b.UserId,
			Kind: string(b.Kind), Number: trimmed(b.Number), IssuedOn: date(b.IssuedOn.Time), ExpiresOn: date(b.ExpiresOn.Time), Now: now}); err != nil {
			return err
		}
		// A new expiry date (a renewal): the old date's open lapse alert no longer holds.
		if !cur.ExpiresOn.Time.Equal(b.ExpiresOn.Time) {
			if err := alerts.Close(ctx, tx, now, a.OrgID, KindCertificationLapse, cur.ID); err != nil {
				return err
			}
		}
		if err := audit.RecordSite(ctx, q, a.OrgID, b.SiteId, cur.ID, now); err != nil {
			return err
		}
		out, err = h.certView(ctx, q, a.OrgID, cur.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateCertification200JSONResponse(out), nil
}

// certBatch bounds the certifications one sweep transaction handles; the sweep repeats.
const certBatch = 200

// LapseTask opens, every hour, the certification_lapse alerts that are due: 30 days before a
// certification's expiry (info) and on its expiry date (warning; critical when it was its site's
// only valid food manager certification), each once per certification and expiry date, in the
// site's time zone. Rows are claimed with SKIP LOCKED and marked by a conditional update, so any
// number of replicas may sweep.
func LapseTask(pool *pgxpool.Pool, c clock.Clock) periodic.Task {
	return periodic.Task{Name: "records: certification lapses", Every: time.Hour, Run: func(ctx context.Context) error {
		return SweepCertifications(ctx, pool, c.Now())
	}}
}

// SweepCertifications opens the lapse alerts due at now.
func SweepCertifications(ctx context.Context, pool *pgxpool.Pool, now time.Time) error {
	horizon := now.UTC().AddDate(0, 0, warningDays+1)
	after := db.DueCertificationsParams{Horizon: pgtype.Date{Time: horizon, Valid: true}, MaxRows: certBatch,
		AfterDate: pgtype.Date{Time: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), Valid: true}}
	for {
		var n int
		err := pg.InTx(ctx, pool, func(tx pgx.Tx) error {
			rows, err := db.New(tx).DueCertifications(ctx, after)
			if err != nil {
				return err
			}
			n = len(rows)
			for _, r := range rows {
				if err := lapse(ctx, tx, now, r); err != nil {
					return err
				}
				after.AfterDate, after.AfterID = r.ExpiresOn, r.ID
			}
			return nil
		})
		if err != nil || n < certBatch {
			return err
		}
	}
}

// lapse opens the alert due for one certification, if any.
func lapse(ctx context.Context, tx pgx.Tx, now time.Time, r db.DueCertificationsRow) error {
	q := db.New(tx)
	today := localDate(now, r.Timezone)
	expires := r.ExpiresOn.Time
	label := map[string]string{"food_handler": "food handler", "food_manager": "food manager", "allergen": "allergen", "haccp": "HACCP", "other": ""}[r.Kind]
	what := fmt.Sprintf("%s's %s certification", r.UserName, label)
	if label == "" {
		what = fmt.Sprintf("%s's certification", r.UserName)
	}
	switch {
	case !today.Before(expires):
		n, err := q.MarkCertificationLapsed(ctx, r.ID)
		if err != nil || n == 0 {
			return err
		}
		severity, msg := alerts.Warning, fmt.Sprintf("%s lapsed on %s", what, expires.Format("2006-01-02"))
		if r.Kind == "food_manager" {
			others, err := q.OtherValidFoodManagers(ctx, db.OtherValidFoodManagersParams{OrgID: r.OrgID, SiteID: r.SiteID, ID: r.ID, Today: pgtype.Date{Time: today, Valid: true}})
			if err != nil {
				return err
			}
			if others == 0 {
				severity, msg = alerts.Critical, msg+"; the site has no other certified food manager"
			}
		}
		// The 30-day alert, still open, gives way to the lapse.
		if err := alerts.Close(ctx, tx, now, r.OrgID, KindCertificationLapse, r.ID); err != nil {
			return err
		}
		_, err = alerts.Open(ctx, tx, now, alerts.Alert{OrgID: r.OrgID, SiteID: r.SiteID, Kind: KindCertificationLapse, Severity: severity, Message: msg,
			SubjectType: "certification", SubjectID: r.ID, Occurrence: expires})
		return err
	case !today.Before(expires.AddDate(0, 0, -warningDays)) && !(r.WarnedFor.Valid && r.WarnedFor.Time.Equal(expires)):
		n, err := q.MarkCertificationWarned(ctx, r.ID)
		if err != nil || n == 0 {
			return err
		}
		_, err = alerts.Open(ctx, tx, now, alerts.Alert{OrgID: r.OrgID, SiteID: r.SiteID, Kind: KindCertificationLapse, Severity: alerts.Info,
			Message: fmt.Sprintf("%s expires on %s", what, expires.Format("2006-01-02")), SubjectType: "certification", SubjectID: r.ID,
			Occurrence: expires.AddDate(0, 0, -warningDays)})
		return err
	}
	return nil
}
