package auth

import (
	"context"

	"github.com/google/uuid"
)

// PrincipalKind says which credential authenticated a request.
type PrincipalKind int

const (
	PrincipalUser PrincipalKind = iota + 1
	PrincipalAPIKey
	PrincipalDevice
)

// Principal is the authenticated caller. For a user, OrgID is empty: the organization comes from
// the path and the membership is checked per request. API keys and devices belong to one org.
type Principal struct {
	Kind     PrincipalKind
	UserID   uuid.UUID // PrincipalUser
	OrgID    uuid.UUID // PrincipalAPIKey, PrincipalDevice
	APIKeyID uuid.UUID // PrincipalAPIKey
	DeviceID uuid.UUID // PrincipalDevice
}

type principalKey struct{}

// WithPrincipal stores the authenticated caller in ctx.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the authenticated caller, if any.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
