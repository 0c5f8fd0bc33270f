package nutrition

import (
	"fmt"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/quantity"
)

// Scale is how many decimal places a division keeps (rounded half even): grams per unit of a
// measure, a sub-recipe's share, per portion and per 100 g. Sums and products are exact.
const Scale = 9

var hundred = decimal.NewFromInt(100)

// ConversionError says an ingredient's quantity cannot be turned into grams: its unit is not a
// mass unit, the item declares no grams for it, and no household measure of its food matches.
// A recipe write may refuse it (400, naming the ingredient at Index and the unit); an analysis
// reads it as an unknown contribution with reason no_conversion.
type ConversionError struct {
	Index      int // the line's index in its recipe, or -1 when not known
	Ingredient string
	Unit       string
	// Measures are the units the ingredient does convert from beyond the mass units (declared
	// and household), to tell the writer what would work.
	Measures []string
}

func (e *ConversionError) Error() string {
	msg := fmt.Sprintf("cannot weigh %q in %s: not a mass unit, no grams declared for it and no household measure of its food matches", e.Ingredient, e.Unit)
	if len(e.Measures) > 0 {
		msg += "; it converts from g, kg, oz, lb, " + strings.Join(e.Measures, ", ")
	}
	return msg
}

// unitAliases are the spellings household measures use for the standard units.
var unitAliases = map[string]string{
	"teaspoon": "tsp", "tablespoon": "tbsp", "tbs": "tbsp", "fl oz": "fl_oz", "fluid ounce": "fl_oz",
	"pint": "pt", "quart": "qt", "gallon": "gal", "liter": "l", "litre": "l", "milliliter": "ml",
	"millilitre": "ml", "ounce": "oz", "pound": "lb", "gram": "g", "kilogram": "kg",
}

// measureUnit is the unit a household measure is in, by this rule: the description up to its
// first comma or parenthesis, lower case; "fl oz" is one word (fl_oz); then its first word,
// singular (a trailing "s" dropped, "ies" read as "y", "es" after s, x, ch or sh dropped), and
// the standard unit a long spelling names ("tablespoon" is tbsp). `medium (3" dia)` is
// "medium", "cup, chopped" is "cup", "slices" is "slice".
func measureUnit(desc string) string {
	d := strings.ToLower(strings.TrimSpace(desc))
	if i := strings.IndexAny(d, ",("); i >= 0 {
		d = strings.TrimSpace(d[:i])
	}
	d = strings.Join(strings.Fields(d), " ")
	for long, short := range unitAliases {
		if strings.Contains(long, " ") && (d == long || strings.HasPrefix(d, long+" ")) {
			return short
		}
	}
	if f := strings.Fields(d); len(f) > 0 {
		d = f[0]
	}
	return normalUnit(d)
}

// normalUnit is a unit name as measures are matched: lower case, singular, aliases resolved.
func normalUnit(u string) string {
	u = strings.ToLower(strings.TrimSpace(u))
	if quantity.IsStandard(u) {
		return u
	}
	u = singular(u)
	if s, ok := unitAliases[u]; ok {
		return s
	}
	return u
}

func singular(w string) string {
	switch {
	case len(w) > 3 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && (strings.HasSuffix(w, "ses") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes")):
		return w[:len(w)-2]
	case len(w) > 2 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

// gramsPerUnit returns how many grams one unit of a line weighs, trying in order:
//  1. a mass unit (g, kg, oz, lb), by definition;
//  2. grams the item declares for the unit (GramsPer, "each" = 150 g);
//  3. the item's units (quantity.Units) linking the unit to a mass unit (a case of 6 lb);
//  4. a household measure of the food whose unit (see measureUnit) is the line's unit, the
//     first in the food's order: grams / amount ("0.5 cup" = 100 g is 200 g per cup);
//  5. for a volume unit, the first household measure in any volume unit, through the fixed
//     volume factors (a tbsp of a food whose cup is 227 g weighs 227/16 g).
//
// Nothing else converts, not even "each" to a medium apple: that is a choice the kitchen
// declares (GramsPer), never a guess.
//
// The weight of one unit comes back as num ÷ den, so a line divides once, at the end: 3 tsp of
// a food whose cup is 227 g weigh exactly 14.1875 g.
func (l *Line) gramsPerUnit() (num, den decimal.Decimal, ok bool) {
	one := decimal.NewFromInt(1)
	unit := l.Unit
	if f, err := quantity.Factor(unit, "g"); err == nil {
		return f, one, true
	}
	if g, ok := l.GramsPer[unit]; ok && g.IsPositive() {
		return g, one, true
	}
	if l.Units != nil {
		if g, err := l.Units.Convert(one, unit, "g"); err == nil && g.IsPositive() {
			return g, one, true
		}
	}
	if l.Food == nil {
		return num, den, false
	}
	want := normalUnit(unit)
	for _, m := range l.Food.Measures {
		if m.Amount.IsPositive() && m.Grams.IsPositive() && measureUnit(m.Description) == want {
			return m.Grams, m.Amount, true
		}
	}
	if fam, ok := quantity.FamilyOf(want); ok && fam == quantity.Volume {
		for _, m := range l.Food.Measures {
			mu := measureUnit(m.Description)
			if f, ok := quantity.FamilyOf(mu); ok && f == quantity.Volume && m.Amount.IsPositive() && m.Grams.IsPositive() {
				wantMl, _ := quantity.Factor(want, "ml")
				measureMl, _ := quantity.Factor(mu, "ml")
				return m.Grams.Mul(wantMl), m.Amount.Mul(measureMl), true
			}
		}
	}
	return num, den, false
}

// Grams returns the weight of the line's quantity as it is written, before any edible-portion
// adjustment, or a *ConversionError (Index -1) when no rule of gramsPerUnit applies. Lines of
// sub-recipes weigh through the sub-recipe (see Recipe).
func (l *Line) Grams() (decimal.Decimal, error) {
	num, den, ok := l.gramsPerUnit()
	if !ok {
		return decimal.Decimal{}, l.conversionError(-1)
	}
	return l.Quantity.Mul(num).DivRound(den, Scale), nil
}

func (l *Line) conversionError(index int) *ConversionError {
	e := &ConversionError{Index: index, Ingredient: l.Name, Unit: l.Unit}
	seen := map[string]bool{"g": true, "kg": true, "oz": true, "lb": true, l.Unit: true}
	add := func(u string) {
		if !seen[u] {
			seen[u] = true
			e.Measures = append(e.Measures, u)
		}
	}
	declared := make([]string, 0, len(l.GramsPer))
	for u := range l.GramsPer {
		declared = append(declared, u)
	}
	sort.Strings(declared)
	for _, u := range declared {
		add(u)
	}
	if l.Food != nil {
		for _, m := range l.Food.Measures {
			add(measureUnit(m.Description))
		}
	}
	return e
}
