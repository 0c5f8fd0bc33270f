package httpapi

import (
	"context"
	"errors"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	echomw "github.com/oapi-codegen/echo-middleware"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/principal"
)

// Authenticators check each credential kind of the spec's security schemes. A nil one means the
// capability has not been wired, and its credential is refused.
type Authenticators struct {
	Bearer func(ctx context.Context, token string) (principal.Principal, error)
	APIKey func(ctx context.Context, key string, orgID uuid.UUID) (principal.Principal, error)
	Device func(ctx context.Context, token string) (principal.Principal, error)
}

// errNoCredential means the scheme's credential was not presented at all. It is not an
// *apierr.Error, so when every alternative fails this way the answer is "Authentication required".
var errNoCredential = errors.New("credential not presented")

// authenticate is the validator's AuthenticationFunc: kin-openapi calls it for each scheme of
// the operation's security requirements, in order, until one is satisfied.
func (a Authenticators) authenticate(ctx context.Context, in *openapi3filter.AuthenticationInput) error {
	c := echomw.GetEchoContext(ctx)
	if c == nil {
		return apierr.Internal(errors.New("authenticate: no request to authenticate"))
	}
	var security openapi3.SecurityRequirements
	if route := in.RequestValidationInput.Route; route != nil && route.Operation != nil && route.Operation.Security != nil {
		security = *route.Operation.Security
	}
	return a.scheme(c, in.SecuritySchemeName, security, in.RequestValidationInput.PathParams["orgId"])
}

// scheme checks the credential of one security scheme of the request in c and, when it holds,
// leaves its principal in the request's scope, where the policy and the handler find it.
// security is the operation's requirements; orgID its orgId path parameter (unescaped), if any.
//
// The credential is checked in the request's context, under its deadline: the validator calls
// with a context of its own, made from context.Background.
func (a Authenticators) scheme(c echo.Context, name string, security openapi3.SecurityRequirements, orgID string) error {
	req := c.Request()
	ctx := req.Context()
	var (
		p   principal.Principal
		err error
	)
	switch name {
	case "bearerAuth":
		if req.Header.Get("x-api-key") != "" && lists(security, "apiKeyAuth") {
			// The alternatives are tried in order, so the key was presented and refused: a session
			// must not rescue a wrong or revoked key.
			return apierr.Unauthenticated("Invalid API key").WithCode(apierr.CodeInvalidAPIKey)
		}
		h := req.Header.Get("Authorization")
		if h == "" {
			return errNoCredential
		}
		scheme, token, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
			return apierr.Unauthenticated("Authorization header must be: Bearer <access token>").WithCode(apierr.CodeInvalidToken)
		}
		if a.Bearer == nil {
			return apierr.Unauthenticated("Invalid or expired access token").WithCode(apierr.CodeInvalidToken)
		}
		p, err = a.Bearer(ctx, strings.TrimSpace(token))
	case "apiKeyAuth":
		key := req.Header.Get("x-api-key")
		if key == "" {
			return errNoCredential
		}
		id, perr := uuid.Parse(orgID)
		if a.APIKey == nil || perr != nil {
			return apierr.Unauthenticated("Invalid API key").WithCode(apierr.CodeInvalidAPIKey)
		}
		p, err = a.APIKey(ctx, key, id)
	case "deviceTokenAuth", "deviceTokenQuery":
		// The header everywhere; the query only on the WebSocket, where browsers cannot set one.
		token := req.Header.Get("x-device-token")
		if name == "deviceTokenQuery" {
			token = req.URL.Query().Get("token")
		}
		if token == "" {
			return errNoCredential
		}
		if a.Device == nil {
			return apierr.Unauthenticated("Invalid device token").WithCode(apierr.CodeInvalidDeviceToken)
		}
		p, err = a.Device(ctx, token)
	default:
		return errNoCredential
	}
	if err != nil {
		return err
	}
	s := scopeOf(ctx)
	if s == nil {
		return apierr.Internal(errors.New("authenticate: the request has no scope (requestScope must come first)"))
	}
	s.principal = p
	return nil
}

// lists reports whether the operation's security requirements name the scheme.
func lists(security openapi3.SecurityRequirements, scheme string) bool {
	for _, req := range security {
		if _, ok := req[scheme]; ok {
			return true
		}
	}
	return false
}
