package catering

import (
	"errors"

	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/money"
)

// The money of a quote, in exact decimals: every amount is integer cents, and every rounding is
// half-even (banker's) to the cent, done once per part. The total is the sum of the rounded
// parts, so what the client reads adds up to the cent.

// Line is one priced line of a quote.
type Line struct {
	Discount       bool            // its total counts negative
	Quantity       decimal.Decimal // > 0
	UnitPriceCents int64           // ≥ 0
	Taxable        bool
}

// Rates are a quote's percentages.
type Rates struct {
	ServiceChargeBps int // of the subtotal
	TaxRateBps       int // of the taxable lines plus the service charge
	DepositPercent   int // of the total
}

// Totals are a quote's computed amounts, in cents.
type Totals struct {
	Lines         []int64
	Subtotal      int64
	ServiceCharge int64
	Tax           int64
	Total         int64
	Deposit       int64
}

// maxCents bounds every amount: the server's one bound on money (money.MaxCents).
const maxCents = money.MaxCents

var (
	errNegativeSubtotal = errors.New("discounts take the subtotal below 0")
	errTooLarge         = errors.New("an amount exceeds the largest a quote can hold")
)

var (
	bpsScale     = decimal.New(1, -4) // 1 basis point
	percentScale = decimal.New(1, -2)
)

// roundCents rounds an exact amount of cents half-even to a whole cent.
func roundCents(d decimal.Decimal) int64 { return d.RoundBank(0).IntPart() }

// Compute prices the lines at the rates.
func Compute(lines []Line, r Rates) (Totals, error) {
	t := Totals{Lines: make([]int64, len(lines))}
	var taxable int64
	for i, l := range lines {
		c, err := money.Times(l.Quantity, l.UnitPriceCents)
		if err != nil {
			return Totals{}, errTooLarge
		}
		if l.Discount {
			c = -c
		}
		t.Lines[i] = c
		var err1, err2 error
		t.Subtotal, err1 = money.Add(t.Subtotal, c)
		if l.Taxable {
			taxable, err2 = money.Add(taxable, c)
		}
		if err1 != nil || err2 != nil {
			return Totals{}, errTooLarge
		}
	}
	if t.Subtotal < 0 {
		return Totals{}, errNegativeSubtotal
	}
	if t.Subtotal > maxCents {
		return Totals{}, errTooLarge
	}
	t.ServiceCharge = roundCents(decimal.NewFromInt(t.Subtotal).Mul(decimal.NewFromInt(int64(r.ServiceChargeBps)).Mul(bpsScale)))
	// Taxable discounts reduce the taxable base, never below nothing.
	base := max(taxable, 0) + t.ServiceCharge
	t.Tax = roundCents(decimal.NewFromInt(base).Mul(decimal.NewFromInt(int64(r.TaxRateBps)).Mul(bpsScale)))
	t.Total = t.Subtotal + t.ServiceCharge + t.Tax
	t.Deposit = roundCents(decimal.NewFromInt(t.Total).Mul(decimal.NewFromInt(int64(r.DepositPercent)).Mul(percentScale)))
	return t, nil
}
