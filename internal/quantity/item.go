package quantity

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// NamedUnit is a unit an item declares: Factor is how many of the item's base unit one of it
// holds (a case of 6 each of 0.25 lb, base lb: factor 1.5).
type NamedUnit struct {
	Name   string
	Factor decimal.Decimal
}

// Units are the units of one item: the base unit its stock is kept in and the units it declares.
// A quantity converts to the base unit
//   - from the base unit itself, or from a standard unit of the base unit's family, by the fixed
//     family factors;
//   - from a declared unit, by its factor;
//   - from a standard unit of the same family as a declared standard unit (dozen, through a
//     declared each), by the family factor and then the declared one.
//
// Anything else is a *ConversionError naming the item and both units: never 1:1.
type Units struct {
	Item     string // the item's name, for error messages
	Base     string
	Declared []NamedUnit
}

// UnitError is a declaration an item's units cannot have.
type UnitError struct {
	Index   int    // into Declared; -1 for the base unit
	Field   string // "name" or "factor" of the declared unit; "" for the base unit
	Message string
}

func (e *UnitError) Error() string { return e.Message }

// Validate checks the declaration: a standard base unit; declared names unique, distinct from
// the base unit and its family (those convert by fixed factors), positive factors of at most
// MaxPlaces places, and at most one declared standard unit per other family (two would make the
// conversion depend on which one is used).
func (u Units) Validate() error {
	baseFamily, ok := FamilyOf(u.Base)
	if !ok {
		return &UnitError{Index: -1, Message: fmt.Sprintf("%q is not a standard unit (one of %s)", u.Base, strings.Join(StandardUnits, ", "))}
	}
	seen := map[string]bool{}
	families := map[Family]string{}
	for i, d := range u.Declared {
		name := d.Name
		switch {
		case strings.TrimSpace(name) == "" || name != strings.TrimSpace(name):
			return &UnitError{Index: i, Field: "name", Message: "must not be blank or have surrounding spaces"}
		case seen[strings.ToLower(name)]:
			return &UnitError{Index: i, Field: "name", Message: fmt.Sprintf("%q is declared twice", name)}
		case !d.Factor.IsPositive():
			return &UnitError{Index: i, Field: "factor", Message: "must be positive"}
		case !d.Factor.Equal(d.Factor.Truncate(MaxPlaces)):
			return &UnitError{Index: i, Field: "factor", Message: fmt.Sprintf("has more than %d decimal places", MaxPlaces)}
		}
		if f, std := FamilyOf(name); std {
			if f == baseFamily {
				return &UnitError{Index: i, Field: "name", Message: fmt.Sprintf("%q converts to %s by its fixed factor; it cannot be declared", name, u.Base)}
			}
			if other, dup := families[f]; dup {
				return &UnitError{Index: i, Field: "name", Message: fmt.Sprintf("%q and %q are both %s units; declare one and the other converts through it", other, name, f)}
			}
			families[f] = name
		}
		seen[strings.ToLower(name)] = true
	}
	return nil
}

// Known reports whether a quantity in unit converts to the base unit.
func (u Units) Known(unit string) bool {
	_, err := u.factor(unit)
	return err == nil
}

// factor returns how many base units one unit holds.
func (u Units) factor(unit string) (decimal.Decimal, error) {
	if unit == u.Base {
		return decimal.NewFromInt(1), nil
	}
	if f, err := Factor(unit, u.Base); err == nil {
		return f, nil
	}
	for _, d := range u.Declared {
		if d.Name == unit {
			return d.Factor, nil
		}
	}
	if fam, ok := FamilyOf(unit); ok {
		for _, d := range u.Declared {
			if df, ok := FamilyOf(d.Name); ok && df == fam {
				f, _ := Factor(unit, d.Name)
				return f.Mul(d.Factor), nil
			}
		}
	}
	return decimal.Decimal{}, &ConversionError{Item: u.Item, From: unit, To: u.Base}
}

// ToBase converts q in unit to the base unit, keeping Scale places.
func (u Units) ToBase(q decimal.Decimal, unit string) (decimal.Decimal, error) {
	if unit == u.Base {
		return q, nil
	}
	if IsStandard(unit) && IsStandard(u.Base) {
		if c, err := Convert(q, unit, u.Base); err == nil {
			return c, nil
		}
	}
	f, err := u.factor(unit)
	if err != nil {
		return decimal.Decimal{}, err
	}
	return q.Mul(f).Round(Scale), nil
}

// FromBase converts q in the base unit to unit, keeping Scale places.
func (u Units) FromBase(q decimal.Decimal, unit string) (decimal.Decimal, error) {
	if unit == u.Base {
		return q, nil
	}
	f, err := u.factor(unit)
	if err != nil {
		return decimal.Decimal{}, &ConversionError{Item: u.Item, From: u.Base, To: unit}
	}
	return q.DivRound(f, Scale), nil
}

// Convert converts q between any two units of the item, through the base unit.
func (u Units) Convert(q decimal.Decimal, from, to string) (decimal.Decimal, error) {
	if from == to {
		return q, nil
	}
	if IsStandard(from) && IsStandard(to) {
		if c, err := Convert(q, from, to); err == nil {
			return c, nil
		}
	}
	ff, err := u.factor(from)
	if err != nil {
		return decimal.Decimal{}, &ConversionError{Item: u.Item, From: from, To: to}
	}
	tf, err := u.factor(to)
	if err != nil {
		return decimal.Decimal{}, &ConversionError{Item: u.Item, From: from, To: to}
	}
	return q.Mul(ff).DivRound(tf, Scale), nil
}

// PerBase converts a price per one unit into the price per base unit, at scale places: a case
// of 6 lb at 1899 cents is 316.5 cents per lb.
func (u Units) PerBase(pricePerUnit decimal.Decimal, unit string, scale int32) (decimal.Decimal, error) {
	f, err := u.factor(unit)
	if err != nil {
		return decimal.Decimal{}, err
	}
	return pricePerUnit.DivRound(f, scale), nil
}
