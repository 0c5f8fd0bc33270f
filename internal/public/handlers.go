// Package public owns the surfaces people reach without an account or through printed links:
// the support inquiry form, printed tags and the scan resolution behind their QR codes.
// Capability links (surveys, shared quotes, invoices and inspection reports) share the token
// mechanism of internal/capability.
package public

import (
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/ratelimit"
)

// Handlers implements the support inquiry, tag and scan operations.
type Handlers struct {
	pool    *pgxpool.Pool
	clock   clock.Clock
	limiter *ratelimit.Limiter
	webURL  string
}

// NewHandlers serves the operations; webURL is SOUS_WEB_URL, the base of printed scan links.
func NewHandlers(pool *pgxpool.Pool, c clock.Clock, limiter *ratelimit.Limiter, webURL string) *Handlers {
	return &Handlers{pool: pool, clock: c, limiter: limiter, webURL: webURL}
}

// ScanURL is the web deep link printed on a tag: {web_url}/scan/{code}.
func (h *Handlers) ScanURL(code string) string { return h.webURL + "/scan/" + code }
