package kitchen

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/foods"
	"github.com/sous-app/sous/internal/inventory"
	"github.com/sous-app/sous/internal/nutrition"
	"github.com/sous-app/sous/internal/quantity"
)

// Nutrients are computed on every read from the ingredients' current foods and never stored:
// a changed food changes every recipe that uses it at once, and the recipe read, its nutrition
// analysis, its label and the labels batch all read the same numbers.

// loadFoods reads the foods of the tree's items (USDA's and the organization's own).
func (t *Tree) loadFoods(ctx context.Context, q *db.Queries, orgID uuid.UUID) error {
	ids := foodIDs(t.Items)
	f, err := foods.Profiles(ctx, q, orgID, ids)
	if err != nil {
		return err
	}
	t.Foods = f
	return nil
}

func foodIDs(items map[uuid.UUID]inventory.Item) []uuid.UUID {
	seen := map[uuid.UUID]bool{}
	var ids []uuid.UUID
	for _, it := range items {
		if id := it.Food.FoodID; id != nil && !seen[*id] {
			seen[*id] = true
			ids = append(ids, *id)
		}
	}
	return ids
}

// nutritionRecipe is the recipe id of the tree as the nutrition package takes it, sub-recipes
// included; memo makes a sub-recipe used twice one recipe, analysed once.
func (t Tree) nutritionRecipe(id uuid.UUID, memo map[uuid.UUID]*nutrition.Recipe) *nutrition.Recipe {
	if r, ok := memo[id]; ok {
		return r
	}
	b := t.Recipes[id].Body
	r := &nutrition.Recipe{Name: b.Name, Portions: portions(b), Yield: &nutrition.Amount{Quantity: b.Yield.Quantity, Unit: b.Yield.Unit},
		YieldGrams: b.YieldGrams, Stated: stated(b.Nutrition), Lines: make([]nutrition.Line, 0, len(b.Ingredients))}
	memo[id] = r
	for _, in := range b.Ingredients {
		if in.RecipeID != nil {
			sub := t.nutritionRecipe(*in.RecipeID, memo)
			r.Lines = append(r.Lines, nutrition.Line{ID: in.RecipeID.String(), Name: sub.Name, Quantity: in.Quantity, Unit: in.Unit, Recipe: sub})
			continue
		}
		r.Lines = append(r.Lines, itemLine(t.Items[*in.ItemID], in, t.Foods))
	}
	return r
}

// itemLine is an item ingredient as a nutrition line: its food (nil when it names none, or a
// food no longer there), its units and the grams it declares for them.
func itemLine(it inventory.Item, in Ingredient, profiles map[uuid.UUID]nutrition.Food) nutrition.Line {
	units := it.Units
	l := nutrition.Line{ID: in.ItemID.String(), Name: it.Name, Quantity: in.Quantity, Unit: in.Unit, Units: &units,
		GramsPer: gramsPer(it, in.Unit), Edible: nutrition.Edible(it.Food.Edible), TrimYieldPercent: in.TrimYieldPercent,
		AddedSugar: it.Food.AddedSugar}
	if id := it.Food.FoodID; id != nil {
		if f, ok := profiles[*id]; ok {
			l.Food = &f
		}
	}
	return l
}

// gramsPer is the grams the item declares per unit, with the line's unit added when it
// converts through the item's units to a unit declared there: a case of 12 each weighs 12 ×
// the grams of an each.
func gramsPer(it inventory.Item, unit string) map[string]decimal.Decimal {
	g := it.Food.GramsPer
	if len(g) == 0 {
		return nil
	}
	if _, ok := g[unit]; ok {
		return g
	}
	names := make([]string, 0, len(g))
	for u := range g {
		names = append(names, u)
	}
	sort.Strings(names)
	for _, u := range names {
		if f, err := it.Units.Convert(decimal.NewFromInt(1), unit, u); err == nil && f.IsPositive() {
			out := make(map[string]decimal.Decimal, len(g)+1)
			for k, v := range g {
				out[k] = v
			}
			out[unit] = f.Mul(g[u])
			return out
		}
	}
	return g
}

// portions is how many portions one yield makes (yield ÷ portion in the yield's unit).
func portions(b Body) decimal.Decimal {
	p, err := toYield(b, b.Portion)
	if err != nil || !p.IsPositive() {
		return decimal.NewFromInt(1)
	}
	return b.Yield.Quantity.DivRound(p, nutrition.Scale)
}

// stated are the nutrients the recipe states per portion.
func stated(n *Nutrition) nutrition.Amounts {
	if n == nil {
		return nil
	}
	out := nutrition.Amounts{}
	if n.SodiumMg != nil {
		out[nutrition.SodiumMg] = *n.SodiumMg
	}
	for k, v := range n.Stated {
		if nu, ok := nutrition.ParseNutrient(k); ok {
			out[nu] = v
		}
	}
	return out
}

// analyse computes the recipe id of a tree whose foods are loaded.
func (t Tree) analyse(id uuid.UUID) (*nutrition.Analysis, error) {
	return nutrition.Analyze(t.nutritionRecipe(id, map[uuid.UUID]*nutrition.Recipe{}))
}

// label builds the Nutrition Facts label of an analysed recipe: one portion is one serving,
// Contains from the recipe's derived allergens.
func (t Tree) label(id uuid.UUID, an *nutrition.Analysis) nutrition.Label {
	b := t.Recipes[id].Body
	return nutrition.BuildLabel(nutrition.LabelInput{Name: b.Name, PerServing: an.PerPortion, Household: household(b.Portion),
		ServingGrams: an.PortionGrams, Allergens: t.RollUpAllergens(id)})
}

// household is a portion in household units for the label's serving size: a volume portion as
// written ("1 cup", "8 fl oz"), a count portion in pieces, a portion by weight "1 portion"
// (its grams follow in the serving size).
func household(p Amount) string {
	q := quantity.Format(p.Quantity)
	fam, _ := quantity.FamilyOf(p.Unit)
	switch fam {
	case quantity.Volume:
		return q + " " + strings.ReplaceAll(p.Unit, "_", " ")
	case quantity.Count:
		n, err := quantity.Convert(p.Quantity, p.Unit, "each")
		if err == nil {
			if n.Equal(decimal.NewFromInt(1)) {
				return "1 piece"
			}
			return quantity.Format(n) + " pieces"
		}
	}
	return "1 portion"
}

// checkGrams refuses an item line whose item names a food yet whose unit cannot be weighed: a
// 400 naming the ingredient and its unit, and the units it does weigh in. An item with no food
// is not refused (it reads as no_food in the analysis).
func checkGrams(ctx context.Context, q *db.Queries, orgID uuid.UUID, b Body, items map[uuid.UUID]inventory.Item) error {
	profiles, err := foods.Profiles(ctx, q, orgID, foodIDs(items))
	if err != nil {
		return err
	}
	r := &nutrition.Recipe{Name: b.Name, Portions: decimal.NewFromInt(1)}
	for _, in := range b.Ingredients {
		if in.ItemID == nil {
			r.Lines = append(r.Lines, nutrition.Line{Recipe: r}) // skipped by CheckGrams; keeps the indexes
			continue
		}
		r.Lines = append(r.Lines, itemLine(items[*in.ItemID], in, profiles))
	}
	return conversionErrors(nutrition.CheckGrams(r))
}

// conversionErrors turns CheckGrams's errors into one 400 naming each ingredient's unit field.
func conversionErrors(err error) error {
	if err == nil {
		return nil
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	var details []apierr.FieldError
	for _, e := range errs {
		ce, ok := e.(*nutrition.ConversionError)
		if !ok {
			return err
		}
		details = append(details, apierr.FieldError{Field: fmt.Sprintf("ingredients.%d.unit", ce.Index), Message: ce.Error()})
	}
	return apierr.Invalid(details[0].Field+": "+details[0].Message, details...)
}

// panel is the Nutrition Facts label of a tree's root recipe, its foods read now.
func panel(ctx context.Context, q *db.Queries, orgID uuid.UUID, t Tree) (nutrition.Label, error) {
	if err := t.loadFoods(ctx, q, orgID); err != nil {
		return nutrition.Label{}, err
	}
	an, err := t.analyse(t.Root)
	if err != nil {
		return nutrition.Label{}, analysisError(err)
	}
	return t.label(t.Root, an), nil
}
