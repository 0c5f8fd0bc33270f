package inventory

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/foods"
	"github.com/sous-app/sous/internal/quantity"
)

// Edible portions: what recipe quantities of an item weigh (nutrition analysis).
const (
	EdiblePortion = "edible_portion"
	AsPurchased   = "as_purchased"
)

// FoodLink is how an item meets nutrition analysis: the food it is (nil: none), the grams one
// of its units weighs beyond the mass units, whether recipe quantities of it are as purchased,
// and whether it is itself an added sugar.
type FoodLink struct {
	FoodID     *uuid.UUID
	GramsPer   map[string]decimal.Decimal
	Edible     string
	AddedSugar bool
}

// readFoodLink checks an item body's food fields against its units (in) and the foods the
// organization can use. Every failure is a 400 naming the field.
func readFoodLink(ctx context.Context, q *db.Queries, orgID uuid.UUID, units quantity.Units, foodID *uuid.UUID,
	gramsPer *api.ItemGramsPer, edible *api.ItemEdible, addedSugar *bool) (FoodLink, error) {
	l := FoodLink{FoodID: foodID, GramsPer: map[string]decimal.Decimal{}, Edible: EdiblePortion, AddedSugar: addedSugar != nil && *addedSugar}
	if edible != nil {
		l.Edible = string(*edible)
	}
	if foodID != nil {
		ok, err := foods.Exists(ctx, q, orgID, *foodID)
		if err != nil {
			return l, err
		}
		if !ok {
			return l, apierr.InvalidField("foodId", "is no food of the organization or USDA's reference")
		}
	}
	if gramsPer != nil {
		names := make([]string, 0, len(*gramsPer))
		for u := range *gramsPer {
			names = append(names, u)
		}
		sort.Strings(names)
		for _, u := range names {
			field := "gramsPer." + u
			if f, ok := quantity.FamilyOf(u); ok && f == quantity.Mass {
				return l, apierr.InvalidField(field, "a mass unit weighs by definition")
			}
			if !units.Known(u) {
				return l, apierr.InvalidField(field, fmt.Sprintf("%s is no unit of the item (its base unit %s, a unit of that family or one it declares)", u, units.Base))
			}
			g, err := parseQty(field, string((*gramsPer)[u]))
			if err != nil {
				return l, err
			}
			if !g.IsPositive() {
				return l, apierr.InvalidField(field, "must be more than 0")
			}
			l.GramsPer[u] = g
		}
	}
	return l, nil
}

// write stores the link on the item (in the transaction that wrote the item).
func (l FoodLink) write(ctx context.Context, q *db.Queries, orgID, itemID uuid.UUID) error {
	raw, err := json.Marshal(l.GramsPer)
	if err != nil {
		return err
	}
	return q.SetInventoryItemFood(ctx, db.SetInventoryItemFoodParams{OrgID: orgID, ID: itemID, FoodID: l.FoodID, GramsPer: raw, Edible: l.Edible, AddedSugar: l.AddedSugar})
}

func foodLinkFromRow(r db.InventoryItem) (FoodLink, error) {
	l := FoodLink{FoodID: r.FoodID, GramsPer: map[string]decimal.Decimal{}, Edible: r.Edible, AddedSugar: r.AddedSugar}
	if len(r.GramsPer) > 0 {
		g, err := gramsPerMemo.decode(r.GramsPer)
		if err != nil {
			return l, fmt.Errorf("inventory: item %s grams_per: %w", r.ID, err)
		}
		l.GramsPer = g
	}
	if l.Edible == "" {
		l.Edible = EdiblePortion
	}
	return l, nil
}

func (l FoodLink) toAPI(out *api.InventoryItem) {
	out.FoodId = l.FoodID
	out.GramsPer = api.ItemGramsPer{}
	for u, g := range l.GramsPer {
		out.GramsPer[u] = api.PositiveQuantityInput(quantity.Format(g))
	}
	out.Edible = api.ItemEdible(l.Edible)
	out.AddedSugar = l.AddedSugar
}
