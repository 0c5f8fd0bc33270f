// Package reqinfo carries facts about the HTTP request (client IP, request id) into domain code,
// which sees only a context.Context.
package reqinfo

import (
	"context"
	"net/url"
)

// Facts are what the HTTP layer learns of a request before any handler runs. The server stores
// them once per request (WithFacts), one context value instead of one per fact: every layer
// that adds a value lengthens the chain each later lookup walks.
type Facts struct {
	// ClientIP is the client's address as the HTTP layer determined it.
	ClientIP string
	// RequestID is the X-Request-Id the response carries.
	RequestID string
	// Origin is the server's public base URL ("https://api.example.com", from SOUS_PUBLIC_URL),
	// the origin of the absolute links it returns (pagination). It is configured, never read
	// from the request's Host header, which the client chooses.
	Origin string
	// Accept is the request's Accept header, for the operations that answer in more than one
	// media type (the HL7 ingest's ACKs).
	Accept string
	// UserAgent is the request's User-Agent header as sent (see UserAgent for its stored form).
	UserAgent string
	// URL is the request's URL (path and query as the client sent them), from which the next
	// page's link of a list is built.
	URL *url.URL
	// Operation is the operationId of the spec operation the request was routed to ("" for a
	// path outside the spec), which audit rows record.
	Operation string
}

// FactsKey is the context key of the request's *Facts. The HTTP layer's own context type answers
// it from facts it holds in place (see WithFacts for everyone else).
type FactsKey struct{}

// WithFacts records the request's facts; f must not change afterwards.
func WithFacts(ctx context.Context, f *Facts) context.Context {
	return context.WithValue(ctx, FactsKey{}, f)
}

func facts(ctx context.Context) *Facts {
	f, _ := ctx.Value(FactsKey{}).(*Facts)
	if f == nil {
		return &Facts{}
	}
	return f
}

// with records ctx's facts with one changed, for callers outside a request (tests, jobs).
func with(ctx context.Context, set func(*Facts)) context.Context {
	f := *facts(ctx)
	set(&f)
	return WithFacts(ctx, &f)
}

// WithClientIP records the client's address as the HTTP layer determined it.
func WithClientIP(ctx context.Context, ip string) context.Context {
	return with(ctx, func(f *Facts) { f.ClientIP = ip })
}

// ClientIP is the client's address, or "" outside a request.
func ClientIP(ctx context.Context) string { return facts(ctx).ClientIP }

func WithRequestID(ctx context.Context, id string) context.Context {
	return with(ctx, func(f *Facts) { f.RequestID = id })
}

func RequestID(ctx context.Context) string { return facts(ctx).RequestID }

// Operation is the operationId of the request's spec operation ("" outside the spec).
func Operation(ctx context.Context) string { return facts(ctx).Operation }

// WithOrigin records the server's public base URL (see Facts.Origin).
func WithOrigin(ctx context.Context, origin string) context.Context {
	return with(ctx, func(f *Facts) { f.Origin = origin })
}

// Origin is the public base URL, or "" outside a request.
func Origin(ctx context.Context) string { return facts(ctx).Origin }

// WithAccept records the request's Accept header.
func WithAccept(ctx context.Context, accept string) context.Context {
	return with(ctx, func(f *Facts) { f.Accept = accept })
}

// Accept is the request's Accept header, or "" outside a request or when none was sent.
func Accept(ctx context.Context) string { return facts(ctx).Accept }

// WithURL records the request's URL.
func WithURL(ctx context.Context, u *url.URL) context.Context {
	return with(ctx, func(f *Facts) { f.URL = u })
}

// URL is the request's URL, or an empty one outside a request.
func URL(ctx context.Context) *url.URL {
	if u := facts(ctx).URL; u != nil {
		return u
	}
	return &url.URL{}
}

type bodyKey struct{}

// WithBody records a JSON request body as the client sent it, once validated, for handlers that
// read it with their own decoder rather than through the generated types (the FHIR ingest).
func WithBody(ctx context.Context, body []byte) context.Context {
	return context.WithValue(ctx, bodyKey{}, body)
}

// Body is the request body WithBody recorded, or nil.
func Body(ctx context.Context) []byte {
	b, _ := ctx.Value(bodyKey{}).([]byte)
	return b
}
