package authz

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/plans"
	"github.com/sous-app/sous/internal/principal"
)

var errNoAccess = errors.New("authz: no access in context (operation missing x-permission?)")

// Authorizer implements the policy for organization-scoped operations: membership (404 when
// absent, so ids never leak across tenants), then role (403), then plan feature (402).
type Authorizer struct {
	lookups *pg.Lookups
	clock   clock.Clock
	members *memberCache
}

func NewAuthorizer(lookups *pg.Lookups, c clock.Clock) *Authorizer {
	return &Authorizer{lookups: lookups, clock: c, members: newMemberCache(memberCacheSize)}
}

// Authorize checks the principal against the operation's permission and plan feature, and
// returns what it learnt, which the policy middleware leaves in the request's context for the
// handler (FromContext).
func (z *Authorizer) Authorize(ctx context.Context, p principal.Principal, orgID uuid.UUID, permission, planFeature string) (Access, error) {
	min, ok := MinRole(Permission(permission))
	if !ok {
		return Access{}, apierr.Internal(fmt.Errorf("authz: permission %q is not in the table", permission))
	}
	a := Access{OrgID: orgID, Principal: p}
	switch p.Kind {
	case principal.User:
	case principal.APIKey, principal.Device:
		// The authenticator already bound the credential to this organization; what it may call
		// is fixed by the operations whose security lists its scheme.
		if p.OrgID != orgID {
			return Access{}, apierr.NotFound("Organization")
		}
	default:
		return Access{}, apierr.Unauthenticated("Authentication required")
	}
	// Lookups: primary-key reads, planned once per connection. The organization's row is read on
	// every request; a member's row only when it is not known at the row's members_version.
	q := z.lookups.Queries()
	o, err := q.GetOrgPlan(ctx, orgID)
	if pg.IsNoRows(err) {
		return Access{}, apierr.NotFound("Organization")
	}
	if err != nil {
		return Access{}, err
	}
	a.Plan = plans.Effective(o.PlanTier, o.TrialEndsAt, z.clock.Now())
	a.SitesVersion = o.SitesVersion
	if p.Kind == principal.User {
		m, err := z.member(ctx, q, orgID, p.UserID, o.MembersVersion)
		if err != nil {
			return Access{}, err
		}
		if !m.found {
			return Access{}, apierr.NotFound("Organization")
		}
		a.Role, a.SiteIDs, a.Credentials = m.role, m.siteIDs, m.credentials
		if !a.Role.AtLeast(min) {
			return Access{}, apierr.Forbidden(fmt.Sprintf("This action needs the %s role or higher", min))
		}
	}
	if planFeature != "" && !a.Plan.Has(plans.Feature(planFeature)) {
		return Access{}, PlanRequired(plans.Feature(planFeature), a.Plan)
	}
	return a, nil
}

// member is the user's membership of the organization at its members_version: from memory, or
// read (after the version, so never older than it) and kept.
func (z *Authorizer) member(ctx context.Context, q *db.Queries, orgID, userID uuid.UUID, version int64) (cachedMember, error) {
	if m, ok := z.members.get(orgID, userID, version); ok {
		return m, nil
	}
	row, err := q.GetMembershipAccess(ctx, db.GetMembershipAccessParams{OrgID: orgID, UserID: userID})
	m := cachedMember{version: version}
	switch {
	case pg.IsNoRows(err):
	case err != nil:
		return cachedMember{}, err
	default:
		m.found, m.role, m.siteIDs, m.credentials = true, Role(row.Role), row.SiteIds, row.Credentials
	}
	z.members.put(orgID, userID, m)
	return m, nil
}

// PlanRequired is the 402 for a feature or limit the plan lacks.
func PlanRequired(f plans.Feature, p plans.Plan) error {
	msg := fmt.Sprintf("The %s plan does not include %s; upgrade to Pro or Enterprise", p.Tier, featureName(f))
	if f == plans.DeviceLimit {
		msg = fmt.Sprintf("The %s plan's device limit (%d) is reached", p.Tier, p.DeviceLimit())
	}
	e := apierr.PlanRequired(string(f), string(p.Tier), msg)
	if f == plans.DeviceLimit {
		e = e.WithCode(apierr.CodeDeviceLimitReached)
	}
	return e
}

func featureName(f plans.Feature) string {
	switch f {
	case plans.APIKeys:
		return "API keys"
	case plans.Webhooks:
		return "webhooks"
	case plans.Clinical:
		return "the clinical feature"
	case plans.OrderLists:
		return "order lists"
	}
	return string(f)
}
