package nutrition

import (
	"errors"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/quantity"
)

// Edible says what a line's quantity weighs: the edible portion (the default) or the food as
// purchased, of which only the edible share counts.
type Edible string

const (
	EdiblePortion Edible = "edible_portion"
	AsPurchased   Edible = "as_purchased"
)

// MaxDepth is how deep sub-recipes may nest below the recipe analysed (a recipe using a sauce
// using a stock is depth 2). Deeper, or a recipe that contains itself, is a *DepthError.
const MaxDepth = 10

// Line is one ingredient of a recipe: a food (through the caller's item) or a sub-recipe.
type Line struct {
	// ID is the caller's id of the item or sub-recipe, carried into Missing entries.
	ID   string
	Name string
	// Quantity in Unit: a mass unit, a unit the item declares, or a food's household measure
	// (see Line.Grams); for a sub-recipe, a mass unit or a unit of its yield's family.
	Quantity decimal.Decimal
	Unit     string
	// Food is the item's food; nil when the item is linked to none (its nutrients are unknown,
	// reason no_food). Exactly one of Food and Recipe is set, or neither.
	Food   *Food
	Recipe *Recipe
	// GramsPer are grams the item declares per one of its units ("each" = 150).
	GramsPer map[string]decimal.Decimal
	// Units are the item's inventory units; a unit they link to a mass unit weighs through them.
	Units *quantity.Units
	// Edible is what Quantity weighs; empty reads as EdiblePortion. As purchased, the edible
	// grams are grams × TrimYieldPercent / 100 when the line states a trim yield (the kitchen's
	// own measure wins over USDA's average), else grams × (100 − Food.RefusePercent) / 100.
	// As edible portion neither applies: the recipe's trim yield then only costs the purchase.
	Edible           Edible
	TrimYieldPercent *decimal.Decimal
	// AddedSugar flags an item that is itself an added sugar (sugar, syrup, honey): its sugars
	// count as added sugars. Otherwise a food's added sugars are what it states, or unknown.
	AddedSugar bool
}

// Recipe is a recipe as the caller loads it, sub-recipes included at any depth.
type Recipe struct {
	Name  string
	Lines []Line
	// Portions is how many portions one yield makes (yield ÷ portion); positive.
	Portions decimal.Decimal
	// Yield is one yield's amount, for lines of other recipes that use this one by quantity
	// in its family ("500 ml" of a stock yielding "4 l" is an eighth of it). Optional.
	Yield *Amount
	// YieldGrams is the cooked weight of one yield, when weighed; per 100 g divides by it,
	// else by the sum of the lines' edible grams.
	YieldGrams *decimal.Decimal
	// Stated are nutrients per portion stated on the recipe: each overrides the computed value
	// (source stated), in this recipe and wherever it is used as a sub-recipe.
	Stated Amounts
}

// Amount is a quantity in a standard unit ("4", "l").
type Amount struct {
	Quantity decimal.Decimal
	Unit     string
}

// Analysis is a recipe's nutrients.
type Analysis struct {
	// Total is one yield's nutrients: the sum of the lines' contributions.
	Total Set
	// PerPortion is Total ÷ Portions.
	PerPortion Set
	// Per100g is Total × 100 ÷ Grams: unknown where Grams is.
	Per100g Set
	// Grams is one yield's weight: YieldGrams (source stated), else the sum of the lines'
	// edible grams, unknown (no_conversion) where a line cannot be weighed.
	Grams Value
	// PortionGrams is Grams ÷ Portions: the serving size in grams of a label.
	PortionGrams Value
}

// RecipeError is a recipe the caller should never have built: no positive portions, a line
// that is both a food and a sub-recipe, a quantity not positive.
type RecipeError struct {
	Recipe  string
	Message string
}

func (e *RecipeError) Error() string { return fmt.Sprintf("recipe %q: %s", e.Recipe, e.Message) }

// DepthError is a recipe whose sub-recipes nest deeper than MaxDepth, or contain themselves.
type DepthError struct {
	Path []string // the recipe names from the one analysed down to the one too deep
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("sub-recipes nest deeper than %d (a recipe that contains itself?): %v", MaxDepth, e.Path)
}

// Analyze computes a recipe's nutrients. Each line contributes grams × per100g ÷ 100 of each
// nutrient of its food, or its sub-recipe's total in proportion to the quantity used; unknown
// contributions are carried into the sums (see Value). The error is a *RecipeError or a
// *DepthError, never missing data: that is in the values.
func Analyze(r *Recipe) (*Analysis, error) {
	a := analyzer{done: map[*Recipe]*Analysis{}}
	return a.analyze(r, nil)
}

type analyzer struct {
	done map[*Recipe]*Analysis
}

func (a *analyzer) analyze(r *Recipe, path []string) (*Analysis, error) {
	if r == nil {
		return nil, &RecipeError{Message: "no recipe"}
	}
	if an, ok := a.done[r]; ok {
		return an, nil
	}
	path = append(path[:len(path):len(path)], r.Name)
	if len(path) > MaxDepth+1 {
		return nil, &DepthError{Path: path}
	}
	if !r.Portions.IsPositive() {
		return nil, &RecipeError{Recipe: r.Name, Message: "portions must be positive"}
	}
	if r.YieldGrams != nil && !r.YieldGrams.IsPositive() {
		return nil, &RecipeError{Recipe: r.Name, Message: "yieldGrams must be positive"}
	}
	total, grams := zeroSet(), zero()
	for i := range r.Lines {
		l := &r.Lines[i]
		if !l.Quantity.IsPositive() {
			return nil, &RecipeError{Recipe: r.Name, Message: fmt.Sprintf("ingredient %d (%s): quantity must be positive", i, l.Name)}
		}
		var c Set
		var g Value
		var err error
		if l.Recipe != nil {
			if l.Food != nil {
				return nil, &RecipeError{Recipe: r.Name, Message: fmt.Sprintf("ingredient %d (%s) is both a food and a sub-recipe", i, l.Name)}
			}
			c, g, err = a.subRecipe(l, path)
			if err != nil {
				return nil, err
			}
		} else {
			c, g = foodLine(l)
		}
		total = total.plus(&c)
		grams = grams.Plus(g)
	}
	an := &Analysis{}
	if r.YieldGrams != nil {
		grams = StatedValue(*r.YieldGrams)
	}
	an.Grams = grams
	an.PortionGrams = grams.Over(r.Portions)
	for _, n := range Nutrients {
		if s, ok := r.Stated[n]; ok {
			total[n] = StatedValue(s.Mul(r.Portions))
		}
	}
	an.Total = total
	an.PerPortion = total.over(r.Portions)
	for _, n := range Nutrients {
		if s, ok := r.Stated[n]; ok {
			an.PerPortion[n] = StatedValue(s)
		}
	}
	an.Per100g = per100g(&total, grams)
	a.done[r] = an
	return an, nil
}

// per100g divides a total by its weight: where the weight is unknown, every nutrient is
// unknown, lacking what the weight lacks as well as what the total lacks.
func per100g(total *Set, grams Value) Set {
	var out Set
	for n, v := range total {
		switch {
		case !grams.Complete:
			out[n] = Value{Amount: decimal.Zero, Missing: appendMissing(appendMissing(nil, v.Missing...), grams.Missing...), Source: v.Source}
		case grams.Amount.IsZero():
			// Nothing weighed: an empty recipe holds nothing in any 100 g.
			out[n] = v
		default:
			out[n] = v.Times(hundred).Over(grams.Amount)
		}
	}
	return out
}

// foodLine is a food line's contribution and edible weight.
func foodLine(l *Line) (Set, Value) {
	miss := Missing{ID: l.ID, Ingredient: l.Name}
	g, err := l.Grams()
	if err != nil {
		miss.Reason = NoConversion
		if l.Food == nil {
			// Linking a food may bring the measure that converts; say the first cause.
			miss.Reason = NoFood
		}
		weightMiss := miss
		weightMiss.Reason = NoConversion
		return unknownSet(miss), Unknown(weightMiss)
	}
	g = g.Mul(edibleShare(l)).Round(Scale)
	if l.Food == nil {
		miss.Reason = NoFood
		return unknownSet(miss), Known(g)
	}
	var c Set
	perGram := g.Shift(-2) // grams ÷ 100, once for every nutrient
	for _, n := range Nutrients {
		c[n] = l.Food.contribution(n, perGram, miss)
	}
	if l.AddedSugar {
		c[AddedSugarsG] = c[SugarsG]
	}
	return c, Known(g)
}

// contribution is hundredGrams × per100g of one nutrient (hundredGrams: the grams ÷ 100), or
// unknown (not_analysed).
func (f *Food) contribution(n Nutrient, hundredGrams decimal.Decimal, miss Missing) Value {
	v, ok := f.Per100g[n]
	if !ok {
		miss.Reason = NotAnalysed
		return Unknown(miss)
	}
	return Known(hundredGrams.Mul(v))
}

// edibleShare is the share of a line's grams that is edible (see Line.Edible).
func edibleShare(l *Line) decimal.Decimal {
	if l.Edible != AsPurchased {
		return decimal.NewFromInt(1)
	}
	if l.TrimYieldPercent != nil {
		return l.TrimYieldPercent.Shift(-2)
	}
	if l.Food != nil {
		return hundred.Sub(l.Food.RefusePercent).Shift(-2)
	}
	return decimal.NewFromInt(1)
}

// subRecipe is a sub-recipe line's contribution: the sub-recipe's total times the share of
// one yield the line uses, by its yield's family or else by weight.
func (a *analyzer) subRecipe(l *Line, path []string) (Set, Value, error) {
	sub, err := a.analyze(l.Recipe, path)
	if err != nil {
		return Set{}, Value{}, err
	}
	num, den, ok := yieldShare(l, sub)
	if !ok {
		miss := Missing{ID: l.ID, Ingredient: l.Name, Reason: NoConversion}
		return unknownSet(miss), Unknown(miss), nil
	}
	name := l.Recipe.Name
	// Multiplied before divided, so 1 kg of a 292.5 g sauce weighs 1000 g, not 1000.000000058.
	c := sub.Total.times(num).over(den).via(name)
	for n := range c {
		c[n].Source = Computed
	}
	g := sub.Grams.Times(num).Over(den).Via(name)
	g.Source = Computed
	return c, g, nil
}

// yieldShare is the share of one yield of the sub-recipe a line uses, as num ÷ den: quantity
// ÷ yield, both in the family's reference unit (g, ml, each), when the line's unit is of the
// yield's family; else the line's grams ÷ the sub-recipe's weight, when the line is in a mass
// unit and that weight is known.
func yieldShare(l *Line, sub *Analysis) (num, den decimal.Decimal, ok bool) {
	if y := l.Recipe.Yield; y != nil && y.Quantity.IsPositive() {
		if fam, ok := quantity.FamilyOf(y.Unit); ok {
			ref := referenceUnit[fam]
			lf, errL := quantity.Factor(l.Unit, ref)
			yf, errY := quantity.Factor(y.Unit, ref)
			if errL == nil && errY == nil {
				return l.Quantity.Mul(lf), y.Quantity.Mul(yf), true
			}
		}
	}
	if f, err := quantity.Factor(l.Unit, "g"); err == nil && sub.Grams.Complete && sub.Grams.Amount.IsPositive() {
		return l.Quantity.Mul(f), sub.Grams.Amount, true
	}
	return decimal.Decimal{}, decimal.Decimal{}, false
}

// referenceUnit is each family's unit of size 1 in the quantity package.
var referenceUnit = map[quantity.Family]string{quantity.Mass: "g", quantity.Volume: "ml", quantity.Count: "each"}

// CheckGrams returns a *ConversionError (joined with errors.Join when several) for each food
// line of the recipe itself whose quantity cannot be weighed, with its index: what a recipe
// write refuses. Sub-recipes' own lines are not checked (they were when written), nor lines
// with no food and no declared way to weigh them beyond the food (reason no_food says it).
func CheckGrams(r *Recipe) error {
	var errs []error
	for i := range r.Lines {
		l := &r.Lines[i]
		if l.Recipe != nil || l.Food == nil {
			continue
		}
		if _, err := l.Grams(); err != nil {
			errs = append(errs, l.conversionError(i))
		}
	}
	return errors.Join(errs...)
}
