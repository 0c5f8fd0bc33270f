// Package foods owns the foods nutrition analysis reads: USDA's Standard Reference (SR28),
// global read-only reference data every organization searches, loaded only by the operator
// command `sous foods import` (ImportSR28); and each organization's own foods from its
// suppliers' spec sheets. It serves the foods API (one search over both, a food's nutrients per
// 100 g, organization foods' create, update and delete).
//
// A nutrient value is known or unknown: a USDA food's nutrient without a row in NUT_DATA, or
// an organization food's nutrient left off its sheet, is unknown (null in the API), never 0.
package foods

import (
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/internal/clock"
)

// Handlers serve the foods operations of the spec.
type Handlers struct {
	pool  *pgxpool.Pool
	clock clock.Clock
}

func NewHandlers(pool *pgxpool.Pool, c clock.Clock) *Handlers {
	return &Handlers{pool: pool, clock: c}
}
