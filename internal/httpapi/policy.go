package httpapi

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/principal"
	"github.com/sous-app/sous/internal/reqinfo"
)

// OrgAuthorizer decides whether the principal may perform an organization-scoped operation:
// membership (404 when absent, so ids do not leak across tenants), the permission's minimum role
// (403) and the plan feature (402). It returns ctx enriched with what it learned (the
// membership, the plan) for the handler.
type OrgAuthorizer interface {
	Authorize(ctx context.Context, p principal.Principal, orgID uuid.UUID, permission, planFeature string) (context.Context, error)
}

// policy applies the operation's x-permission and x-plan-feature after the validator has
// authenticated the caller, and hands the principal to the handler through the context.
func policy(ops operations, authz OrgAuthorizer) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			op := ops[opKey(c.Request().Method, c.Path())]
			if op == nil {
				return next(c)
			}
			ctx := reqinfo.WithOperation(c.Request().Context(), op.ID)
			p, authenticated := c.Get(principalKey).(principal.Principal)
			if authenticated {
				ctx = principal.With(ctx, p)
			}
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
				if authz == nil {
					return apierr.Internal(fmt.Errorf("operation %s needs an organization authorizer", op.ID))
				}
				if ctx, err = authz.Authorize(ctx, p, orgID, op.Permission, op.PlanFeature); err != nil {
					return err
				}
			}
			c.SetRequest(c.Request().WithContext(ctx))
			return next(c)
		}
	}
}
