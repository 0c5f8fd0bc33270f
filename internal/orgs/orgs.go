package orgs

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/auth"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/plans"
	"github.com/sous-app/sous/internal/principal"
	"github.com/sous-app/sous/internal/realtime"
)

func (h *Handlers) CreateOrg(ctx context.Context, req api.CreateOrgRequestObject) (api.CreateOrgResponseObject, error) {
	p, ok := principal.From(ctx)
	if !ok || p.Kind != principal.User {
		return nil, apierr.Unauthenticated("Authentication required")
	}
	name := strings.TrimSpace(req.Body.Name)
	if name == "" {
		return nil, apierr.InvalidField("name", "must not be blank")
	}
	now := h.clock.Now()
	var org db.Org
	err := pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		var err error
		if org, err = auth.CreateOwnedOrg(ctx, q, p.UserID, name, now); err != nil {
			return err
		}
		return audit.Record(ctx, q, org.ID, org.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateOrg201JSONResponse{Body: h.toAPIOrg(org)}, nil
}

func (h *Handlers) GetOrg(ctx context.Context, req api.GetOrgRequestObject) (api.GetOrgResponseObject, error) {
	org, err := db.New(h.pool).GetOrg(ctx, req.OrgId)
	if err != nil {
		return nil, notFound(err, "Organization")
	}
	return api.GetOrg200JSONResponse(h.toAPIOrg(org)), nil
}

func (h *Handlers) UpdateOrg(ctx context.Context, req api.UpdateOrgRequestObject) (api.UpdateOrgResponseObject, error) {
	now := h.clock.Now()
	var org db.Org
	err := pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		cur, err := q.GetOrg(ctx, req.OrgId)
		if err != nil {
			return notFound(err, "Organization")
		}
		params := db.UpdateOrgParams{ID: cur.ID, Name: cur.Name, BrandPrimary: cur.BrandPrimary, BrandAccent: cur.BrandAccent, Now: now}
		if req.Body.Name != nil {
			if params.Name = strings.TrimSpace(*req.Body.Name); params.Name == "" {
				return apierr.InvalidField("name", "must not be blank")
			}
		}
		if b := req.Body.Brand; b != nil {
			if b.Primary != nil {
				params.BrandPrimary = strings.ToUpper(*b.Primary)
			}
			if b.Accent != nil {
				params.BrandAccent = strings.ToUpper(*b.Accent)
			}
		}
		if org, err = q.UpdateOrg(ctx, params); err != nil {
			return err
		}
		// Devices show the organization's name and brand: tell them to refetch.
		if err := realtime.NotifyOrg(ctx, tx, org.ID); err != nil {
			return err
		}
		return audit.Record(ctx, q, org.ID, org.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateOrg200JSONResponse(h.toAPIOrg(org)), nil
}

func (h *Handlers) toAPIOrg(o db.Org) api.Org {
	plan := plans.Effective(o.PlanTier, o.TrialEndsAt, h.clock.Now())
	out := api.Org{
		Id:        o.ID,
		Name:      o.Name,
		Brand:     api.Brand{Primary: o.BrandPrimary, Accent: o.BrandAccent},
		CreatedAt: o.CreatedAt,
	}
	out.Plan.Tier = api.PlanTier(plan.Tier)
	out.Plan.Trialing = plan.Trialing
	out.Plan.TrialEndsAt = plan.TrialEndsAt
	out.Plan.Features = []api.PlanFeature{}
	for _, f := range plan.Features() {
		out.Plan.Features = append(out.Plan.Features, api.PlanFeature(f))
	}
	if n := plan.DeviceLimit(); n != plans.Unlimited {
		out.Plan.Limits.Devices = &n
	}
	return out
}

// notFound maps "no row" to the resource's 404 and passes other errors through.
func notFound(err error, thing string) error {
	if pg.IsNoRows(err) {
		return apierr.NotFound(thing)
	}
	return err
}

// access is the request's authorization, established by the policy middleware.
func access(ctx context.Context) (authz.Access, error) { return authz.MustFromContext(ctx) }
