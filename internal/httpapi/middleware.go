package httpapi

import (
	"encoding/binary"
	"encoding/hex"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// builtOnce composes the middleware, first outermost, around whichever handler the router found
// for the request, once at start-up. Echo v4 composes what Use is given anew for every request:
// a closure per middleware per request, sixteen allocations on every call before any of them
// did its work. The composed chain ends by calling the request's routed handler (c.Handler(),
// which is also what Echo would have passed as next), so routing, 404 and 405 are unchanged.
// Every middleware given here must keep its per-request state inside the handler it returns,
// never in the closure that wraps next, since that one now serves every request.
func builtOnce(middleware ...echo.MiddlewareFunc) echo.MiddlewareFunc {
	chain := func(c echo.Context) error { return c.Handler()(c) }
	for i := len(middleware) - 1; i >= 0; i-- {
		chain = middleware[i](chain)
	}
	return func(echo.HandlerFunc) echo.HandlerFunc { return chain }
}

// requestID tags each request with X-Request-Id (the client's, when it sent a sane one).
func requestID() echo.MiddlewareFunc {
	return middleware.RequestIDWithConfig(middleware.RequestIDConfig{Generator: newRequestID})
}

// newRequestID is 96 random bits in hex. An id names a request in logs and support tickets and
// guards nothing, so it comes from the runtime's per-thread generator (seeded from the system's
// entropy) rather than from crypto/rand, which cost a system call's worth on every request.
func newRequestID() string {
	var b [12]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint32(b[8:], rand.Uint32())
	var out [24]byte
	hex.Encode(out[:], b[:])
	return string(out[:])
}

// recoverPanics turns a panic into a 500 through the error renderer, logging the stack.
func recoverPanics(logger *slog.Logger) echo.MiddlewareFunc {
	return middleware.RecoverWithConfig(middleware.RecoverConfig{
		DisableErrorHandler: true,
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			logger.ErrorContext(c.Request().Context(), "panic", "err", err.Error(), "stack", string(stack))
			return err
		},
	})
}

// ipExtractor believes X-Forwarded-For only from trusted proxies; otherwise the peer address
// is the client, so nobody can dodge a per-IP limit by sending the header.
func ipExtractor(trusted []netip.Prefix) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{
		echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false),
	}
	for _, p := range trusted {
		opts = append(opts, echo.TrustIPRange(netipToIPNet(p)))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

func netipToIPNet(p netip.Prefix) *net.IPNet {
	return &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
}

// secretParams are query parameters that carry credentials (the device token of the WebSocket);
// logs keep that they were there, never their value.
var secretParams = []string{"token"}

// redactQuery returns the raw query with the values of secretParams replaced, leaving the rest
// byte for byte as the client sent it.
func redactQuery(raw string) string {
	if raw == "" {
		return ""
	}
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		name, _, _ := strings.Cut(p, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if slices.Contains(secretParams, name) {
			parts[i] = name + "=REDACTED"
		}
	}
	return strings.Join(parts, "&")
}

// headAsGet answers HEAD wherever GET is served, as HTTP requires of a general-purpose server
// (monitors and caches probe with HEAD). Routing, validation, authentication and the handler see a
// GET on a copy of the request; net/http's writer still holds the HEAD request, so it discards the
// body and keeps the GET's headers. Echo routes on the original request, hence this sits outside it.
func headAsGet(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			get := r.Clone(r.Context())
			get.Method = http.MethodGet
			r = get
		}
		next.ServeHTTP(w, r)
	})
}
