// Package reqinfo carries facts about the HTTP request (client IP, request id) into domain code,
// which sees only a context.Context.
package reqinfo

import "context"

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
