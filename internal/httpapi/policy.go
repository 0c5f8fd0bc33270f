package httpapi

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/principal"
)

// OrgAuthorizer decides whether the principal may perform an organization-scoped operation:
// membership (404 when absent, so ids do not leak across tenants), the permission's minimum role
// (403) and the plan feature (402). It returns what it learned (the membership, the plan) for
// the handler.
type OrgAuthorizer interface {
	Authorize(ctx context.Context, p principal.Principal, orgID uuid.UUID, permission, planFeature string) (authz.Access, error)
}

// checkSiteScope refuses a membership limited to some sites an organization-wide operation
// (x-site-scope org) before its handler runs: such a member may change nothing that reaches
// beyond their sites, and reads only what the spec opens to them (x-site-limited-read).
// Site-scoped operations are narrowed by their handlers, which know the resource's site; an
// operation without a scope is refused, so a spec mistake never serves a request.
func checkSiteScope(ctx context.Context, op *operation, method string) error {
	switch op.SiteScope {
	case SiteScopeSite:
		return nil
	case SiteScopeOrg:
		a, ok := authz.FromContext(ctx)
		if !ok || !a.Scoped() {
			return nil
		}
		if op.SiteLimitedRead && (method == http.MethodGet || method == http.MethodHead) {
			return nil
		}
		return apierr.Forbidden("This action needs access to every site of the organization")
	default:
		return apierr.Internal(fmt.Errorf("operation %s has x-site-scope %q under /orgs/{orgId}", op.ID, op.SiteScope))
	}
}

// policy applies the operation's x-permission and x-plan-feature after the validator has
// authenticated the caller, and leaves the principal and the access in the request's scope for
// the handler.
func policy(ops operations, authorizer OrgAuthorizer) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			op := ops.of(c)
			if op == nil {
				return next(c)
			}
			s := scopeOf(c.Request().Context())
			if s == nil {
				return apierr.Internal(fmt.Errorf("operation %s reached policy without a request scope", op.ID))
			}
			p, authenticated := s.principal.(principal.Principal)
			switch {
			case op.Permission == PermissionPublic:
			case !authenticated:
				// The spec marks the operation as needing a credential but the validator let it
				// through: a spec mistake, never a reason to serve the request.
				return apierr.Internal(fmt.Errorf("operation %s reached policy without a principal", op.ID))
			case op.Permission == PermissionDevice:
				// Only the device's own token: its security scheme is the device token alone, and
				// a user session that reached here anyway is refused rather than trusted.
				if p.Kind != principal.Device {
					return apierr.Unauthenticated("Invalid device token").WithCode(apierr.CodeInvalidDeviceToken)
				}
			case op.OrgScoped:
				orgID, err := uuid.Parse(c.Param("orgId"))
				if err != nil {
					return apierr.NotFound("Organization")
				}
				if authorizer == nil {
					return apierr.Internal(fmt.Errorf("operation %s needs an organization authorizer", op.ID))
				}
				a, err := authorizer.Authorize(s, p, orgID, op.Permission, op.PlanFeature)
				if err != nil {
					return err
				}
				s.access = a
				if err := checkSiteScope(s, op, c.Request().Method); err != nil {
					return err
				}
			}
			return next(c)
		}
	}
}
