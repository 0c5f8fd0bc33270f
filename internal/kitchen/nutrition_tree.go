package kitchen

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/foods"
	"github.com/sous-app/sous/internal/inventory"
)

// loadNutritionTree reads what analysing a recipe needs — the recipe at version (0: current)
// with every sub-recipe at any depth, their items, and the items' foods — in one statement
// (RecipeNutritionTree), where loadTree and loadFoods take a round trip per level of the tree
// and more for items and foods. The Tree is the one loadTree then loadFoods give.
func loadNutritionTree(ctx context.Context, q *db.Queries, orgID, root uuid.UUID, version int) (Tree, error) {
	row, err := q.RecipeNutritionTree(ctx, db.RecipeNutritionTreeParams{OrgID: orgID, RootID: root, Version: int32(version), NutrNos: foods.SRNumbers()})
	if err != nil {
		return Tree{}, err
	}
	if row.RootCurrent == 0 {
		return Tree{}, errRecipeNotFound
	}
	if version > int(row.RootCurrent) || row.Recipes == nil {
		return Tree{}, apierr.NotFound("Recipe version")
	}
	t := Tree{Root: root, Recipes: map[uuid.UUID]Version{}, Items: map[uuid.UUID]inventory.Item{}}
	var recipes []struct {
		ID       uuid.UUID       `json:"id"`
		Version  int             `json:"version"`
		Archived bool            `json:"archived"`
		Body     json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(row.Recipes, &recipes); err != nil {
		return t, fmt.Errorf("kitchen: nutrition tree recipes: %w", err)
	}
	for _, r := range recipes {
		b, err := decodeBody(r.Body)
		if err != nil {
			return t, err
		}
		t.Recipes[r.ID] = Version{RecipeID: r.ID, Version: r.Version, Archived: r.Archived, Body: b}
	}
	var items []struct {
		ID            uuid.UUID       `json:"id"`
		Name          string          `json:"name"`
		Sku           *string         `json:"sku"`
		Category      string          `json:"category"`
		BaseUnit      string          `json:"baseUnit"`
		Units         json.RawMessage `json:"units"`
		ShelfLifeDays *int32          `json:"shelfLifeDays"`
		Allergens     json.RawMessage `json:"allergens"`
		Active        bool            `json:"active"`
		CreatedAt     time.Time       `json:"createdAt"`
		UpdatedAt     time.Time       `json:"updatedAt"`
		FoodID        *uuid.UUID      `json:"foodId"`
		GramsPer      json.RawMessage `json:"gramsPer"`
		Edible        string          `json:"edible"`
		AddedSugar    bool            `json:"addedSugar"`
	}
	if err := json.Unmarshal(row.Items, &items); err != nil {
		return t, fmt.Errorf("kitchen: nutrition tree items: %w", err)
	}
	for _, r := range items {
		gramsPer := []byte(r.GramsPer)
		if string(gramsPer) == "null" {
			gramsPer = nil
		}
		it, err := inventory.ItemFromRow(db.InventoryItem{ID: r.ID, OrgID: orgID, Name: r.Name, Sku: r.Sku, Category: r.Category, BaseUnit: r.BaseUnit,
			Units: r.Units, ShelfLifeDays: r.ShelfLifeDays, Allergens: r.Allergens, Active: r.Active, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
			FoodID: r.FoodID, GramsPer: gramsPer, Edible: r.Edible, AddedSugar: r.AddedSugar})
		if err != nil {
			return t, err
		}
		t.Items[r.ID] = it
	}
	var heads []struct {
		Source     string          `json:"source"`
		ID         uuid.UUID       `json:"id"`
		Name       string          `json:"name"`
		NdbNo      string          `json:"ndb_no"`
		BasisGrams decimal.Decimal `json:"basis_grams"`
		Portions   json.RawMessage `json:"portions"`
	}
	var values []struct {
		FoodID   uuid.UUID       `json:"food_id"`
		Nutrient string          `json:"nutrient"`
		Amount   decimal.Decimal `json:"amount"`
	}
	var weights []struct {
		FoodID  uuid.UUID       `json:"food_id"`
		Amount  decimal.Decimal `json:"amount"`
		Measure string          `json:"measure"`
		Grams   decimal.Decimal `json:"grams"`
	}
	for _, part := range []struct {
		raw []byte
		to  any
	}{{row.Heads, &heads}, {row.NutrientValues, &values}, {row.Weights, &weights}} {
		if err := json.Unmarshal(part.raw, part.to); err != nil {
			return t, fmt.Errorf("kitchen: nutrition tree foods: %w", err)
		}
	}
	hr := make([]db.FoodProfileHeadsRow, len(heads))
	for i, h := range heads {
		hr[i] = db.FoodProfileHeadsRow{Source: h.Source, ID: h.ID, Name: h.Name, NdbNo: h.NdbNo, BasisGrams: h.BasisGrams, Portions: h.Portions}
	}
	vr := make([]db.FoodProfileValuesRow, len(values))
	for i, v := range values {
		vr[i] = db.FoodProfileValuesRow{FoodID: v.FoodID, Nutrient: v.Nutrient, Amount: v.Amount}
	}
	wr := make([]db.FoodProfileWeightsRow, len(weights))
	for i, w := range weights {
		wr[i] = db.FoodProfileWeightsRow{FoodID: w.FoodID, Amount: w.Amount, Measure: w.Measure, Grams: w.Grams}
	}
	if t.Foods, err = foods.AssembleProfiles(hr, vr, wr); err != nil {
		return t, err
	}
	return t, nil
}
