// Package purchasing owns buying: vendors and how they sell inventory items (vendor items, order
// guides imported from CSV), purchase orders and their receipts. Receipts post to the stock
// ledger through the inventory package (inventory.Receive); this package never writes ledger
// rows itself.
package purchasing

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/money"
	"github.com/sous-app/sous/internal/quantity"
)

// Handlers serve the purchasing operations of the spec.
type Handlers struct {
	pool  *pgxpool.Pool
	clock clock.Clock
}

func NewHandlers(pool *pgxpool.Pool, c clock.Clock) *Handlers {
	return &Handlers{pool: pool, clock: c}
}

var (
	errVendorNotFound = apierr.NotFound("Vendor")
	errPONotFound     = apierr.NotFound("Purchase order")
	errVendorName     = apierr.Conflict("A vendor with this name already exists")
	errVendorSKU      = apierr.Conflict("The vendor already has an item with this SKU")
)

// parsePacks reads a positive number of packs a client sent in field.
func parsePacks(field, s string) (decimal.Decimal, error) {
	d, err := quantity.Parse(s)
	switch {
	case errors.Is(err, quantity.ErrTooPrecise):
		return d, apierr.InvalidField(field, fmt.Sprintf("has more than %d decimal places", quantity.MaxPlaces))
	case err != nil:
		return d, apierr.InvalidField(field, "must be a decimal number such as \"2\"")
	case !d.IsPositive():
		return d, apierr.InvalidField(field, "must be greater than zero")
	}
	return d, nil
}

func fmtQty(d decimal.Decimal) string { return quantity.Format(d) }

func nonBlank(s *string) *string {
	if s == nil {
		return nil
	}
	t := strings.TrimSpace(*s)
	if t == "" {
		return nil
	}
	return &t
}

// lineTotal is packs × price per pack in cents, half-even; beyond money.MaxCents it is
// money.ErrTooLarge.
func lineTotal(packs decimal.Decimal, priceCents int64) (int64, error) {
	return money.Times(packs, priceCents)
}

// errOrderTooLarge refuses an order whose lines or total pass the server's bound on money.
var errOrderTooLarge = apierr.InvalidField("lines", "the order's total would exceed 10000000000.00, the largest the server keeps")

// orderTotal is the total of an order's lines, each packs × price, or errOrderTooLarge.
func orderTotal(lines []poLine) (int64, error) {
	var total int64
	for _, l := range lines {
		t, err := lineTotal(l.packs, l.price)
		if err == nil {
			total, err = money.Add(total, t)
		}
		if err != nil {
			return 0, errOrderTooLarge
		}
	}
	return total, nil
}
