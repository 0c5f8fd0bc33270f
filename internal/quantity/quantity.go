// Package quantity holds exact quantities and units: decimal strings parsed without loss, the
// fixed conversions within a unit family (mass, volume, count), and conversions through the
// units an inventory item declares. Every domain that counts (stock, recipes, purchasing,
// catering) converts through it, so "1 case of 6 each of 0.25 lb" means the same everywhere.
//
// Quantities are shopspring decimals; nothing here uses float64. A conversion never assumes
// 1:1 across families: mass and count meet only through a factor the item declares.
package quantity

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// MaxPlaces is how many decimal places a quantity a client sends may carry.
const MaxPlaces = 6

// Scale is how many decimal places a quantity converted between units keeps (rounded half
// even): conversions such as grams to pounds do not terminate, and nine places keep a
// thousandth of a milligram of a pound.
const Scale = 9

// ErrSyntax is wrapped by Parse's errors for text that is not a plain decimal number.
var ErrSyntax = errors.New("not a decimal number")

// ErrTooPrecise is wrapped by Parse's errors for a number with more than MaxPlaces places.
var ErrTooPrecise = fmt.Errorf("more than %d decimal places", MaxPlaces)

// Parse reads a decimal string as clients send it ("12.5", "-0.0625", "3"): an optional sign,
// digits, an optional point followed by at most MaxPlaces digits, at most 15 digits before the
// point. Exponents, spaces, "NaN", ".5" and empty strings are refused.
func Parse(s string) (decimal.Decimal, error) {
	body := strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	intPart, frac, hasPoint := strings.Cut(body, ".")
	if !digits(intPart) || hasPoint && !digits(frac) || len(intPart) > 15 {
		return decimal.Decimal{}, fmt.Errorf("%q: %w", s, ErrSyntax)
	}
	if len(frac) > MaxPlaces {
		return decimal.Decimal{}, fmt.Errorf("%q: %w", s, ErrTooPrecise)
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("%q: %w", s, ErrSyntax)
	}
	return d, nil
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Format writes a quantity as the decimal string clients read: no exponent, no trailing zeros
// after the point ("12.5", "3", "0.0625").
func Format(d decimal.Decimal) string {
	s := d.String()
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		return "0"
	}
	return s
}

// Family is a group of units with fixed conversions between them.
type Family string

const (
	Mass   Family = "mass"
	Volume Family = "volume"
	Count  Family = "count"
)

// standard gives each standard unit its family and its size in the family's reference unit
// (g, ml, each). US customary measures, exact by definition.
var standard = map[string]struct {
	family Family
	size   decimal.Decimal
}{
	"g":     {Mass, decimal.NewFromInt(1)},
	"kg":    {Mass, decimal.NewFromInt(1000)},
	"oz":    {Mass, decimal.RequireFromString("28.349523125")},
	"lb":    {Mass, decimal.RequireFromString("453.59237")},
	"ml":    {Volume, decimal.NewFromInt(1)},
	"l":     {Volume, decimal.NewFromInt(1000)},
	"tsp":   {Volume, decimal.RequireFromString("4.92892159375")},
	"tbsp":  {Volume, decimal.RequireFromString("14.78676478125")},
	"fl_oz": {Volume, decimal.RequireFromString("29.5735295625")},
	"cup":   {Volume, decimal.RequireFromString("236.5882365")},
	"pt":    {Volume, decimal.RequireFromString("473.176473")},
	"qt":    {Volume, decimal.RequireFromString("946.352946")},
	"gal":   {Volume, decimal.RequireFromString("3785.411784")},
	"each":  {Count, decimal.NewFromInt(1)},
	"dozen": {Count, decimal.NewFromInt(12)},
}

// StandardUnits lists the standard units, family by family.
var StandardUnits = []string{"g", "kg", "oz", "lb", "ml", "l", "tsp", "tbsp", "fl_oz", "cup", "pt", "qt", "gal", "each", "dozen"}

// FamilyOf returns a standard unit's family; ok is false for any other name.
func FamilyOf(unit string) (f Family, ok bool) {
	u, ok := standard[unit]
	return u.family, ok
}

// IsStandard reports whether unit is one of the standard units.
func IsStandard(unit string) bool {
	_, ok := standard[unit]
	return ok
}

// ConversionError says a quantity could not be converted: no fixed conversion and no factor
// the item declares links the two units. Item is empty for conversions outside an item.
type ConversionError struct {
	Item     string
	From, To string
}

func (e *ConversionError) Error() string {
	if e.Item == "" {
		return fmt.Sprintf("cannot convert %s to %s", e.From, e.To)
	}
	return fmt.Sprintf("cannot convert %s to %s for %q: the item declares no such unit or conversion", e.From, e.To, e.Item)
}

// Factor returns how many of unit to make one from: q from × Factor = q to, within a family.
func Factor(from, to string) (decimal.Decimal, error) {
	f, okF := standard[from]
	t, okT := standard[to]
	if !okF || !okT || f.family != t.family {
		return decimal.Decimal{}, &ConversionError{From: from, To: to}
	}
	if from == to {
		return decimal.NewFromInt(1), nil
	}
	return f.size.DivRound(t.size, 30), nil
}

// Convert converts q from one standard unit to another of the same family, keeping Scale places.
func Convert(q decimal.Decimal, from, to string) (decimal.Decimal, error) {
	if from == to {
		return q, nil
	}
	f, okF := standard[from]
	t, okT := standard[to]
	if !okF || !okT || f.family != t.family {
		return decimal.Decimal{}, &ConversionError{From: from, To: to}
	}
	return q.Mul(f.size).DivRound(t.size, Scale), nil
}
