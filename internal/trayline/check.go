package trayline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/inventory"
	"github.com/sous-app/sous/internal/kitchen"
	"github.com/sous-app/sous/internal/quantity"
)

// Limits are a diet's limits: the stated per-meal three (nil is no limit) and any nutrient's.
type Limits struct {
	SodiumMg            *decimal.Decimal `json:"sodiumMg,omitempty"`
	CarbohydrateChoices *decimal.Decimal `json:"carbohydrateChoices,omitempty"`
	FluidMl             *decimal.Decimal `json:"fluidMl,omitempty"`
	// Nutrients bound any nutrient of the fixed set, or fluid, per meal or per day, by key.
	Nutrients map[string]NutrientLimit `json:"nutrients,omitempty"`
}

// Rules are one diet's rules as stored (diet_rules.rules).
type Rules struct {
	NPO                bool        `json:"npo"`
	AllowedCategories  []string    `json:"allowedCategories"`
	AllowedRecipeIDs   []uuid.UUID `json:"allowedRecipeIds"`
	Limits             Limits      `json:"limits"`
	IDDSILevel         *int        `json:"iddsiLevel,omitempty"`
	DefaultRecipeIDs   []uuid.UUID `json:"defaultRecipeIds"`
	SubstituteRecipeID *uuid.UUID  `json:"substituteRecipeId,omitempty"`
}

// restricts says whether the rules limit which recipes are allowed.
func (r Rules) restricts() bool { return r.AllowedCategories != nil || r.AllowedRecipeIDs != nil }

// Patient is what the checks read of a patient: their allergens and diets (vocabulary codes).
type Patient struct {
	Allergens []string
	Diets     []string
	// Orders are the patient's own nutrient limits, from their diet orders (a FHIR
	// NutritionOrder's nutrient modifiers), by key.
	Orders map[string]NutrientLimit
}

// Totals are the nutrients of a meal's items so far.
type Totals struct{ SodiumMg, CarbohydrateChoices, FluidMl decimal.Decimal }

func (t Totals) add(n *kitchen.Nutrition) Totals {
	if n == nil {
		return t
	}
	if n.SodiumMg != nil {
		t.SodiumMg = t.SodiumMg.Add(*n.SodiumMg)
	}
	if n.CarbohydrateChoices != nil {
		t.CarbohydrateChoices = t.CarbohydrateChoices.Add(*n.CarbohydrateChoices)
	}
	if n.FluidMl != nil {
		t.FluidMl = t.FluidMl.Add(*n.FluidMl)
	}
	return t
}

// builtInTexture is the IDDSI food level a texture diet code implies without any rules.
func builtInTexture(diet string) (int, bool) {
	switch diet {
	case "iddsi_food_3":
		return 3, true
	case "iddsi_food_4":
		return 4, true
	case "iddsi_food_5":
		return 5, true
	case "iddsi_food_6":
		return 6, true
	case "iddsi_food_7", "iddsi_food_7ec":
		return 7, true
	}
	return 0, false
}

// NPO says whether the patient gets no tray: an `npo` diet, or a diet whose rules say NPO.
func NPO(p Patient, rules map[string]Rules) bool {
	for _, d := range p.Diets {
		if d == "npo" || rules[d].NPO {
			return true
		}
	}
	return false
}

// Texture is the highest IDDSI level the patient's diets allow (the lowest of their limits),
// and whether any limits it.
func Texture(p Patient, rules map[string]Rules) (int, bool) {
	level, limited := 7, false
	for _, d := range p.Diets {
		if r, ok := rules[d]; ok && r.IDDSILevel != nil {
			level, limited = min(level, *r.IDDSILevel), true
		} else if l, ok := builtInTexture(d); ok {
			level, limited = min(level, l), true
		}
	}
	return level, limited
}

// Check gives why recipe r conflicts with patient p under the rules of their diets, served
// after items totalling before; none means it passes. An allergen of the patient the recipe
// contains conflicts, and so does one it is not known to be free of: unknown never passes as
// free. Then, per diet: NPO, the allowed categories and recipes, texture (a recipe without an
// assessed IDDSI level never passes a texture limit), and the limits per meal for the nutrients
// the recipe states.
func Check(p Patient, rules map[string]Rules, r kitchen.RecipeFacts, before Totals) []string {
	rs := checkCoded(p, rules, r, before)
	if rs == nil {
		return nil
	}
	out := make([]string, len(rs))
	for i, x := range rs {
		out[i] = x.Text
	}
	return out
}

// reason is why an item conflicts, with its stable code (TrayItem.reasonCodes).
type reason struct{ Code, Text string }

// Reason codes.
const (
	codeAllergen        = "allergen"
	codeArchived        = "archived"
	codeNPO             = "npo"
	codeTexture         = "texture"
	codeNotAllowed      = "not_allowed"
	codeStatedLimit     = "stated_limit"
	codeNutrientLimit   = "nutrient_limit"
	codeNutrientUnknown = "nutrient_unknown"
)

// checkCoded is Check with each reason's code.
func checkCoded(p Patient, rules map[string]Rules, r kitchen.RecipeFacts, before Totals) []reason {
	var reasons []reason
	for _, a := range p.Allergens {
		switch r.Allergens[a] {
		case inventory.AllergenFree:
		case inventory.AllergenContains:
			reasons = append(reasons, reason{codeAllergen, fmt.Sprintf("%s contains %s", r.Name, a)})
		default:
			reasons = append(reasons, reason{codeAllergen, fmt.Sprintf("%s is not known to be free of %s", r.Name, a)})
		}
	}
	if r.Archived {
		reasons = append(reasons, reason{codeArchived, fmt.Sprintf("%s is archived", r.Name)})
	}
	if NPO(p, rules) {
		reasons = append(reasons, reason{codeNPO, "the patient is NPO (nothing by mouth)"})
	}
	if level, limited := Texture(p, rules); limited {
		switch {
		case r.IDDSILevel == nil:
			reasons = append(reasons, reason{codeTexture, fmt.Sprintf("%s has no assessed IDDSI level; the diet allows level %d at most", r.Name, level)})
		case *r.IDDSILevel > level:
			reasons = append(reasons, reason{codeTexture, fmt.Sprintf("%s is IDDSI level %d; the diet allows level %d at most", r.Name, *r.IDDSILevel, level)})
		}
	}
	after := before.add(r.Nutrition)
	for _, d := range p.Diets {
		rr, ok := rules[d]
		if !ok {
			continue
		}
		if rr.restricts() && !slices.Contains(rr.AllowedRecipeIDs, r.ID) &&
			!slices.ContainsFunc(rr.AllowedCategories, func(c string) bool { return strings.EqualFold(strings.TrimSpace(c), r.Category) }) {
			reasons = append(reasons, reason{codeNotAllowed, fmt.Sprintf("%s (%s) is not allowed on the %s diet", r.Name, r.Category, d)})
		}
		if r.Nutrition == nil {
			continue
		}
		for _, l := range []struct {
			name, unit  string
			limit, item *decimal.Decimal
			total       decimal.Decimal
		}{
			{"sodium", "mg", rr.Limits.SodiumMg, r.Nutrition.SodiumMg, after.SodiumMg},
			{"carbohydrate", "choices", rr.Limits.CarbohydrateChoices, r.Nutrition.CarbohydrateChoices, after.CarbohydrateChoices},
			{"fluid", "ml", rr.Limits.FluidMl, r.Nutrition.FluidMl, after.FluidMl},
		} {
			if l.limit != nil && l.item != nil && l.total.GreaterThan(*l.limit) {
				reasons = append(reasons, reason{codeStatedLimit, fmt.Sprintf("%s brings the meal's %s to %s %s, over the %s diet's %s %s", r.Name, l.name,
					quantity.Format(l.total), l.unit, d, quantity.Format(*l.limit), l.unit)})
			}
		}
	}
	return reasons
}
