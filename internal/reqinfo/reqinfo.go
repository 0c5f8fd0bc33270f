// Package reqinfo carries facts about the HTTP request (client IP, request id) into domain code,
// which sees only a context.Context.
package reqinfo

import (
	"context"
	"net/url"
)

type key int

const (
	clientIPKey key = iota
	requestIDKey
)

// WithClientIP records the client's address as the HTTP layer determined it.
func WithClientIP(ctx context.Context, ip string) context.Context {
	return context.WithValue(ctx, clientIPKey, ip)
}

// ClientIP is the client's address, or "" outside a request.
func ClientIP(ctx context.Context) string {
	ip, _ := ctx.Value(clientIPKey).(string)
	return ip
}

func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey, id)
}

func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

type operationKey struct{}

// WithOperation records the spec operation being served; audit rows name it as their action.
func WithOperation(ctx context.Context, operationID string) context.Context {
	return context.WithValue(ctx, operationKey{}, operationID)
}

// Operation is the operationId of the request, or "" outside one.
func Operation(ctx context.Context) string {
	op, _ := ctx.Value(operationKey{}).(string)
	return op
}

type originKey struct{}

// WithOrigin records the server's public base URL ("https://api.example.com", from
// SOUS_PUBLIC_URL), the origin of the absolute links it returns (pagination). It is configured,
// never read from the request's Host header, which the client chooses.
func WithOrigin(ctx context.Context, origin string) context.Context {
	return context.WithValue(ctx, originKey{}, origin)
}

// Origin is the public base URL, or "" outside a request.
func Origin(ctx context.Context) string {
	o, _ := ctx.Value(originKey{}).(string)
	return o
}

type acceptKey struct{}

// WithAccept records the request's Accept header, for the operations that answer in more than
// one media type (the HL7 ingest's ACKs).
func WithAccept(ctx context.Context, accept string) context.Context {
	return context.WithValue(ctx, acceptKey{}, accept)
}

// Accept is the request's Accept header, or "" outside a request or when none was sent.
func Accept(ctx context.Context) string {
	a, _ := ctx.Value(acceptKey{}).(string)
	return a
}

type urlKey struct{}

// WithURL records the request's URL (path and query as the client sent them), from which the
// next page's link of a list is built.
func WithURL(ctx context.Context, u *url.URL) context.Context {
	return context.WithValue(ctx, urlKey{}, u)
}

// URL is the request's URL, or an empty one outside a request.
func URL(ctx context.Context) *url.URL {
	if u, ok := ctx.Value(urlKey{}).(*url.URL); ok {
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
