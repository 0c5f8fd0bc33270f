package authz

import (
	"context"
	"slices"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/plans"
	"github.com/sous-app/sous/internal/principal"
)

// Access is what the policy established for an organization-scoped request: whose request it
// is, in which organization, with which membership and plan.
type Access struct {
	OrgID     uuid.UUID
	Principal principal.Principal
	// Role, SiteIDs and Credentials are the membership's; API keys and devices have none.
	Role        Role
	SiteIDs     []uuid.UUID
	Credentials []string
	Plan        plans.Plan
	// SitesVersion is orgs.sites_version as the authorizing read saw it: a list of the
	// organization's sites kept in memory at this version is current for this request.
	SitesVersion int64
}

// AccessKey is the context key of the request's Access. The HTTP layer's own context type answers
// it from the access it holds once authorized (the policy middleware).
type AccessKey struct{}

// FromContext returns the request's Access. Handlers of organization-scoped operations can rely
// on it: the policy middleware refuses the request before the handler otherwise.
func FromContext(ctx context.Context) (Access, bool) {
	a, ok := ctx.Value(AccessKey{}).(Access)
	return a, ok
}

// MustFromContext returns the Access or an internal error when the wiring is wrong.
func MustFromContext(ctx context.Context) (Access, error) {
	a, ok := FromContext(ctx)
	if !ok {
		return Access{}, apierr.Internal(errNoAccess)
	}
	return a, nil
}

// Scoped reports whether the membership is limited to some sites.
func (a Access) Scoped() bool { return len(a.SiteIDs) > 0 }

// SiteScope is the list a query filters on: nil means every site.
func (a Access) SiteScope() []uuid.UUID {
	if !a.Scoped() {
		return []uuid.UUID{}
	}
	return a.SiteIDs
}

// CanSeeSite reports whether a site is within the membership's scope.
func (a Access) CanSeeSite(siteID uuid.UUID) bool {
	return !a.Scoped() || slices.Contains(a.SiteIDs, siteID)
}

// CheckSite answers 404 for a site outside the membership's scope, exactly as for a site that
// does not exist, so a scoped member learns nothing about other sites.
func (a Access) CheckSite(siteID uuid.UUID) error {
	if !a.CanSeeSite(siteID) {
		return apierr.NotFound("Site")
	}
	return nil
}

// HasCredential reports whether the membership holds a professional credential such as "rd".
func (a Access) HasCredential(c string) bool { return slices.Contains(a.Credentials, c) }

// UserID is the acting user, or uuid.Nil for API keys and devices.
func (a Access) UserID() uuid.UUID {
	if a.Principal.Kind == principal.User {
		return a.Principal.UserID
	}
	return uuid.Nil
}

// Actor is the acting member for a nullable "by" column: nil for an API key or a device.
func (a Access) Actor() *uuid.UUID {
	if id := a.UserID(); id != uuid.Nil {
		return &id
	}
	return nil
}
