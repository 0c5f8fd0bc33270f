package kitchen

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/nutrition"
)

// What the tray line reads of the kitchen: a meal's start, the effective menu's recipes and
// the facts of recipes its checks need. Reads only.

// RecipeFacts is what the tray line checks of a recipe (current version).
type RecipeFacts struct {
	ID         uuid.UUID
	Name       string
	Category   string
	Archived   bool
	Allergens  map[string]string // every allergen of the vocabulary: contains, unknown or free
	Nutrition  *Nutrition
	IDDSILevel *int
	// Nutrients are one portion's nutrients computed from the ingredients' foods now (stated
	// values overriding), the same numbers as the recipe's nutrition analysis; every one unknown
	// (not_analysed) when the recipe cannot be analysed.
	Nutrients nutrition.Set
}

// ReadRecipeFacts reads the recipes among ids that are the organization's (others are left out)
// with their rolled-up allergens, in one forest read.
func ReadRecipeFacts(ctx context.Context, q *db.Queries, orgID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]RecipeFacts, error) {
	out := map[uuid.UUID]RecipeFacts{}
	if len(ids) == 0 {
		return out, nil
	}
	heads, err := q.GetRecipes(ctx, db.GetRecipesParams{OrgID: orgID, Ids: ids})
	if err != nil || len(heads) == 0 {
		return out, err
	}
	roots := make([]uuid.UUID, 0, len(heads))
	for _, h := range heads {
		roots = append(roots, h.ID)
	}
	t, err := loadForest(ctx, q, orgID, roots, nil)
	if err != nil {
		return out, err
	}
	if err := t.loadFoods(ctx, q, orgID); err != nil {
		return out, err
	}
	memo := map[uuid.UUID]*nutrition.Recipe{}
	for _, id := range roots {
		v := t.Recipes[id]
		f := RecipeFacts{ID: id, Name: v.Body.Name, Category: v.Body.Category, Archived: v.Archived,
			Allergens: t.RollUpAllergens(id), Nutrition: v.Body.Nutrition, IDDSILevel: v.Body.IDDSILevel}
		// One memo across the roots: a sub-recipe shared by several menu items is built once.
		if an, err := nutrition.Analyze(t.nutritionRecipe(id, memo)); err == nil {
			f.Nutrients = an.PerPortion
		} else {
			var de *nutrition.DepthError
			if !errors.As(err, &de) {
				return out, err
			}
			// Too deep to analyse: unknown, never zero.
			for _, n := range nutrition.Nutrients {
				f.Nutrients[n] = nutrition.Unknown(nutrition.Missing{ID: id.String(), Ingredient: v.Body.Name, Reason: nutrition.NotAnalysed})
			}
		}
		out[id] = f
	}
	return out, nil
}

// MealStart checks that the caller sees the site (404 otherwise) and that dayPart is one of
// its day parts (400 naming field otherwise), and gives the day part's name as the site spells
// it and when the meal of date (a local date) starts.
func MealStart(ctx context.Context, q *db.Queries, a authz.Access, siteID uuid.UUID, date time.Time, dayPart, field string) (string, time.Time, error) {
	s, err := loadSite(ctx, q, a, siteID)
	if err != nil {
		return "", time.Time{}, err
	}
	p, ok := s.dayPart(dayPart)
	if !ok {
		return "", time.Time{}, apierr.InvalidField(field, "must be "+s.dayPartNames())
	}
	return p.Name, s.startOf(date, p), nil
}

// EffectiveRecipeIDs lists the recipes of the site's effective menu of date (UTC midnight of the
// local date) and day part, once each, in menu order.
func EffectiveRecipeIDs(ctx context.Context, q *db.Queries, orgID, siteID uuid.UUID, date time.Time, dayPart string) ([]uuid.UUID, error) {
	e, err := effectiveMenu(ctx, q, orgID, siteID, date, dayPart)
	if err != nil {
		return nil, err
	}
	var out []uuid.UUID
	for _, it := range e.Items {
		if !contains(out, it.RecipeID) {
			out = append(out, it.RecipeID)
		}
	}
	return out, nil
}
