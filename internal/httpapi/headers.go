package httpapi

import "net/http"

// Default response headers, set before any handler runs so that every answer carries them,
// errors and panics included. A handler that means to allow caching (board images, the docs
// script, the device state with its ETag) sets its own Cache-Control, which replaces the default.
const (
	// Responses carry tokens, patients' diets and allergies, member lists: no cache (browser,
	// proxy or CDN) may keep them unless the handler says otherwise.
	defaultCacheControl = "no-store"
	// JSON is never to be sniffed into HTML or script, and never framed: an API response has
	// no business inside anyone's page. /docs replaces the policy with one for its page.
	defaultCSP = "default-src 'none'; frame-ancestors 'none'"
)

// securityHeaders sets the default headers on every response of next.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", defaultCacheControl)
		h.Set("Content-Security-Policy", defaultCSP)
		next.ServeHTTP(w, r)
	})
}
