package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// CORS lets browser apps on the origins of SOUS_CORS_ORIGINS call the API. Credentials travel
// in headers (a bearer token, an API key), never in cookies, so the credentials mode stays off:
// a page on another origin can only act with a token it was given.
var (
	corsAllowMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}
	// The request headers a client sets: credentials, the JSON body's type, idempotent writes,
	// and conditional polling (If-None-Match with a device's ETag).
	corsAllowHeaders = []string{"authorization", "content-type", "idempotency-key", "x-api-key", "x-device-token", "if-none-match"}
	// The response headers a script must read: paging, back-off, caching, tracing, where a
	// created resource lives, replays, the rate-limit quota, and a download's file name.
	corsExposeHeaders = []string{"Link", "Retry-After", "ETag", "X-Request-Id", "Location", "Idempotent-Replayed", "RateLimit", "RateLimit-Policy", "Content-Disposition"}
)

// corsMaxAge lets a browser reuse a preflight for 10 minutes (Chromium caps it at 2 hours).
const corsMaxAge = 600

// cors answers preflights for the allowed origins and marks every response to them readable.
// With no origins configured it does nothing, so no other origin can read a response.
func cors(origins []string) echo.MiddlewareFunc {
	if len(origins) == 0 {
		return func(next echo.HandlerFunc) echo.HandlerFunc { return next }
	}
	return middleware.CORSWithConfig(middleware.CORSConfig{
		// Exact matches only: Echo would read "*" in a configured origin as a wildcard.
		AllowOriginFunc: func(origin string) (bool, error) {
			return slices.Contains(origins, strings.ToLower(origin)), nil
		},
		AllowMethods:     corsAllowMethods,
		AllowHeaders:     corsAllowHeaders,
		ExposeHeaders:    corsExposeHeaders,
		AllowCredentials: false,
		MaxAge:           corsMaxAge,
	})
}
