package kitchen

import (
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/inventory"
	"github.com/sous-app/sous/internal/nutrition"
	"github.com/sous-app/sous/internal/quantity"
)

// Amount is a quantity with its unit.
type Amount struct {
	Quantity decimal.Decimal `json:"quantity"`
	Unit     string          `json:"unit"`
}

func (a Amount) String() string { return quantity.Format(a.Quantity) + " " + a.Unit }

// Limits are a recipe's critical limits, in °F.
type Limits struct {
	CookMinTempF     *decimal.Decimal `json:"cookMinTempF,omitempty"`
	HoldHotMinTempF  *decimal.Decimal `json:"holdHotMinTempF,omitempty"`
	HoldColdMaxTempF *decimal.Decimal `json:"holdColdMaxTempF,omitempty"`
}

// Ingredient is one line of a recipe: an inventory item (with its trim yield) or a sub-recipe.
type Ingredient struct {
	ItemID           *uuid.UUID       `json:"itemId,omitempty"`
	RecipeID         *uuid.UUID       `json:"recipeId,omitempty"`
	Quantity         decimal.Decimal  `json:"quantity"`
	Unit             string           `json:"unit"`
	TrimYieldPercent *decimal.Decimal `json:"trimYieldPercent,omitempty"`
	Note             string           `json:"note,omitempty"`
}

// Body is a recipe's definition as one version keeps it.
type Body struct {
	Name           string           `json:"name"`
	Category       string           `json:"category"`
	Yield          Amount           `json:"yield"`
	Portion        Amount           `json:"portion"`
	MinBatch       *decimal.Decimal `json:"minBatch,omitempty"` // in the yield unit
	MaxBatch       *decimal.Decimal `json:"maxBatch,omitempty"` // in the yield unit
	ShelfLifeHours *int             `json:"shelfLifeHours,omitempty"`
	Station        *string          `json:"station,omitempty"`
	CriticalLimits Limits           `json:"criticalLimits"`
	Ingredients    []Ingredient     `json:"ingredients"`
	Steps          []string         `json:"steps"`
	MayContain     []string         `json:"mayContain"`
	Nutrition      *Nutrition       `json:"nutrition,omitempty"`
	IDDSILevel     *int             `json:"iddsiLevel,omitempty"`
	// YieldGrams is the cooked weight of one yield, when weighed (nutrients per 100 g of the dish).
	YieldGrams *decimal.Decimal `json:"yieldGrams,omitempty"`
}

// Nutrition is what a portion carries of the nutrients the tray line's diet limits read; a nil
// nutrient is not stated.
type Nutrition struct {
	SodiumMg            *decimal.Decimal `json:"sodiumMg,omitempty"`
	CarbohydrateChoices *decimal.Decimal `json:"carbohydrateChoices,omitempty"`
	FluidMl             *decimal.Decimal `json:"fluidMl,omitempty"`
	// Stated are the other nutrients stated per portion, by nutrition key (energyKcal, …): each
	// overrides the computed value, as SodiumMg does.
	Stated map[string]decimal.Decimal `json:"stated,omitempty"`
}

// SubRecipeIDs lists the recipes the body uses directly, once each, in order.
func (b Body) SubRecipeIDs() []uuid.UUID {
	var out []uuid.UUID
	seen := map[uuid.UUID]bool{}
	for _, in := range b.Ingredients {
		if in.RecipeID != nil && !seen[*in.RecipeID] {
			seen[*in.RecipeID] = true
			out = append(out, *in.RecipeID)
		}
	}
	return out
}

// Version is one version of a recipe.
type Version struct {
	RecipeID uuid.UUID
	Version  int
	Archived bool
	Body     Body
}

// Tree is a recipe with every recipe and item it uses at any depth: what scaling, allergens and
// costs are computed from, without further reads.
type Tree struct {
	Root    uuid.UUID
	Recipes map[uuid.UUID]Version
	Items   map[uuid.UUID]inventory.Item
	// Foods are the items' foods by id, for nutrition analysis; nil until loadFoods reads them.
	Foods map[uuid.UUID]nutrition.Food
}

// Pins gives the version of every recipe of the tree.
func (t Tree) Pins() map[uuid.UUID]int {
	out := make(map[uuid.UUID]int, len(t.Recipes))
	for id, v := range t.Recipes {
		out[id] = v.Version
	}
	return out
}

// toYield converts an amount of a recipe to its yield unit by the fixed family factors.
func toYield(b Body, a Amount) (decimal.Decimal, error) {
	if a.Unit == b.Yield.Unit {
		return a.Quantity, nil
	}
	q, err := quantity.Convert(a.Quantity, a.Unit, b.Yield.Unit)
	if err != nil {
		return q, &quantity.ConversionError{Item: b.Name, From: a.Unit, To: b.Yield.Unit}
	}
	return q, nil
}

// CycleError is a recipe using itself at some depth; Path names the recipes from the edited one
// back to it.
type CycleError struct{ Path []string }

func (e *CycleError) Error() string {
	return fmt.Sprintf("uses itself: %s", strings.Join(e.Path, " → "))
}

// Allergens of the vocabulary (the clinical Allergen enum), in the spec's order.
var Allergens = []string{"milk", "egg", "fish", "crustacean_shellfish", "tree_nuts", "peanuts", "wheat", "soy", "sesame",
	"gluten", "mustard", "celery", "lupin", "molluscs", "sulphites", "corn", "coconut", "strawberry", "tomato", "citrus",
	"kiwi", "banana", "chocolate", "pork", "beef", "chicken", "alpha_gal", "gelatin", "msg", "food_dye", "latex"}
