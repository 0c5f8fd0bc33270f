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

// The default headers' values, made once: every response shares them, which saves three
// allocations a request. Sharing is safe because header values are only ever replaced (Set) or
// appended to (Add, which copies a full one-element slice), never written in place.
var (
	nosniffValue      = []string{"nosniff"}
	cacheControlValue = []string{defaultCacheControl}
	cspValue          = []string{defaultCSP}
)

// securityHeaders sets the default headers on every response of next. The keys are written in
// canonical form, as Header.Set would.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["X-Content-Type-Options"] = nosniffValue
		h["Cache-Control"] = cacheControlValue
		h["Content-Security-Policy"] = cspValue
		next.ServeHTTP(w, r)
	})
}
