package kitchen

import (
	"context"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/inventory"
)

// loadNutritionTree is loadTree then loadFoods for a recipe's nutrition: the recipe at version
// (0: current) and every sub-recipe at any depth in one statement (RecipeTreeVersions, where
// loadTree reads a level at a time), then their items and the items' foods.
func loadNutritionTree(ctx context.Context, q *db.Queries, orgID, root uuid.UUID, version int) (Tree, error) {
	rows, err := q.RecipeTreeVersions(ctx, db.RecipeTreeVersionsParams{OrgID: orgID, RootID: root, Version: int32(version)})
	if err != nil {
		return Tree{}, err
	}
	if len(rows) == 0 {
		if version > 0 { // the recipe may be there without that version
			heads, err := q.GetRecipes(ctx, db.GetRecipesParams{OrgID: orgID, Ids: []uuid.UUID{root}})
			if err != nil {
				return Tree{}, err
			}
			if len(heads) > 0 {
				return Tree{}, apierr.NotFound("Recipe version")
			}
		}
		return Tree{}, errRecipeNotFound
	}
	t := Tree{Root: root, Recipes: make(map[uuid.UUID]Version, len(rows)), Items: map[uuid.UUID]inventory.Item{}}
	seen := map[uuid.UUID]bool{}
	var itemIDs []uuid.UUID
	for _, r := range rows {
		b, err := decodeBody(r.Body)
		if err != nil {
			return t, err
		}
		t.Recipes[r.RecipeID] = Version{RecipeID: r.RecipeID, Version: int(r.Version), Archived: r.ArchivedAt != nil, Body: b}
		for _, in := range b.Ingredients {
			if in.ItemID != nil && !seen[*in.ItemID] {
				seen[*in.ItemID] = true
				itemIDs = append(itemIDs, *in.ItemID)
			}
		}
	}
	if len(itemIDs) > 0 {
		// Nutrition reads what each item is (units, food, allergens), never its stock.
		if t.Items, err = inventory.GetItemsBare(ctx, q, orgID, itemIDs); err != nil {
			return t, err
		}
	}
	return t, t.loadFoods(ctx, q, orgID)
}
