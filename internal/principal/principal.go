// Package principal names the authenticated caller of a request: a user, an API key or a device.
package principal

import (
	"context"

	"github.com/google/uuid"
)

// Kind says which credential authenticated a request.
type Kind int

const (
	User Kind = iota + 1
	APIKey
	Device
)

// Principal is the authenticated caller. For a user, OrgID is empty: the organization comes from
// the path and the membership is checked per request. API keys and devices belong to one org.
type Principal struct {
	Kind     Kind
	UserID   uuid.UUID // User
	OrgID    uuid.UUID // APIKey, Device
	APIKeyID uuid.UUID // APIKey
	DeviceID uuid.UUID // Device
	// Loaded is what the authenticator read about the caller on the way, so that the handler of
	// the same request need not read it again (a device's state). Only the package that set it
	// knows its type; it never outlives the request.
	Loaded any
}

// ContextKey is the context key of the request's Principal. The HTTP layer's own context type
// answers it from the principal it holds once authenticated (see With for everyone else).
type ContextKey struct{}

// WithPrincipal stores the authenticated caller in ctx.
func With(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, ContextKey{}, p)
}

// PrincipalFrom returns the authenticated caller, if any.
func From(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(ContextKey{}).(Principal)
	return p, ok
}
