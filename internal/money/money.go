// Package money is the arithmetic of amounts in integer cents: every amount the server computes
// (a line total, a purchase order's total, a stock value, a recipe's cost, a quote) goes through
// it, so none can wrap around int64 into a negative or small number.
package money

import (
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/apierr"
)

// MaxCents bounds every amount the server computes or stores: ten billion dollars. Far inside
// int64, so the sum of two bounded amounts never overflows before it is checked.
const MaxCents = 1_000_000_000_000

// MaxUnitCents bounds a price a client sends for one unit or pack (the spec's maximum on every
// unit price): a million dollars.
const MaxUnitCents = 100_000_000

// ErrTooLarge is an amount beyond MaxCents: 422, since the request is well formed but its
// amounts are more than the server keeps. Handlers that know the field answer 400 naming it.
var ErrTooLarge = apierr.Unprocessable("An amount exceeds 10000000000.00, the largest the server computes")

var bound = decimal.NewFromInt(MaxCents)

// Round rounds an exact amount of cents half-even (banker's) to a whole cent, refusing one
// beyond ±MaxCents.
func Round(exact decimal.Decimal) (int64, error) {
	if exact.Abs().GreaterThan(bound) {
		return 0, ErrTooLarge
	}
	return exact.RoundBank(0).IntPart(), nil
}

// Times is qty × cents, rounded half-even to the cent and bounded.
func Times(qty decimal.Decimal, cents int64) (int64, error) {
	return Round(qty.Mul(decimal.NewFromInt(cents)))
}

// Add sums amounts, refusing a sum (or any amount) beyond ±MaxCents.
func Add(amounts ...int64) (int64, error) {
	var sum int64
	for _, a := range amounts {
		if a > MaxCents || a < -MaxCents {
			return 0, ErrTooLarge
		}
		sum += a // |sum| ≤ MaxCents before, |a| ≤ MaxCents: no overflow
		if sum > MaxCents || sum < -MaxCents {
			return 0, ErrTooLarge
		}
	}
	return sum, nil
}
