// Package inventory owns the supply base: the item catalog with its units, par levels and
// allergens; storage locations; the append-only stock ledger with its materialized balances and
// moving-average costs; lots with expiry; count sheets; waste logs; and the expiring-lot alert.
//
// Other domains read items through GetItem and GetItems and convert quantities with the
// quantity package; they never read these tables.
package inventory

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/quantity"
)

// Handlers serve the supply operations of the spec.
type Handlers struct {
	pool        *pgxpool.Pool
	clock       clock.Clock
	adjustments *adjustQueue
}

func NewHandlers(pool *pgxpool.Pool, c clock.Clock) *Handlers {
	h := &Handlers{pool: pool, clock: c}
	h.adjustments = newAdjustQueue(h.postAdjustments)
	return h
}

// parseQty reads a quantity a client sent in field: a decimal string of at most 6 places.
func parseQty(field, s string) (decimal.Decimal, error) {
	d, err := quantity.Parse(s)
	switch {
	case errors.Is(err, quantity.ErrTooPrecise):
		return d, apierr.InvalidField(field, fmt.Sprintf("has more than %d decimal places", quantity.MaxPlaces))
	case err != nil:
		return d, apierr.InvalidField(field, "must be a decimal number such as \"12.5\"")
	}
	return d, nil
}

// parseNonNegative is parseQty for quantities that cannot be negative.
func parseNonNegative(field, s string) (decimal.Decimal, error) {
	d, err := parseQty(field, s)
	if err == nil && d.IsNegative() {
		return d, apierr.InvalidField(field, "must not be negative")
	}
	return d, err
}

func fmtQty(d decimal.Decimal) string { return quantity.Format(d) }

// mustDec reads a decimal the database wrote as text; a malformed one reads as zero.
func mustDec(s string) decimal.Decimal {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Zero
	}
	return d
}
