package kitchen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/inventory"
	"github.com/sous-app/sous/internal/quantity"
)

var errRecipeNotFound = apierr.NotFound("Recipe")

// Head is a recipe's row: what is not versioned.
type Head struct {
	ID       uuid.UUID
	Current  int
	Archived bool
	Created  db.Recipe
}

func decodeBody(raw []byte) (Body, error) {
	var b Body
	if err := json.Unmarshal(raw, &b); err != nil {
		return b, fmt.Errorf("kitchen: recipe body: %w", err)
	}
	return b, nil
}

// loadTree reads the recipe at version (0: current) with every sub-recipe at any depth (at the
// version pins gives, else current) and every item they use.
func loadTree(ctx context.Context, q *db.Queries, orgID, root uuid.UUID, version int, pins map[uuid.UUID]int) (Tree, error) {
	if version > 0 {
		if pins == nil {
			pins = map[uuid.UUID]int{}
		}
		if _, ok := pins[root]; !ok {
			pins = copyPins(pins)
			pins[root] = version
		}
	}
	t, err := loadForest(ctx, q, orgID, []uuid.UUID{root}, pins)
	t.Root = root
	return t, err
}

// loadForest reads the recipes of roots (at the version pins gives, else current) with every
// sub-recipe at any depth and every item they use, into one Tree (Root is the first). A root
// that is no recipe of the organization is errRecipeNotFound.
func loadForest(ctx context.Context, q *db.Queries, orgID uuid.UUID, roots []uuid.UUID, pins map[uuid.UUID]int) (Tree, error) {
	t := Tree{Recipes: map[uuid.UUID]Version{}, Items: map[uuid.UUID]inventory.Item{}}
	if len(roots) > 0 {
		t.Root = roots[0]
	}
	frontier := append([]uuid.UUID{}, roots...)
	itemIDs := map[uuid.UUID]bool{}
	for depth := 0; len(frontier) > 0; depth++ {
		if depth > 50 {
			return t, apierr.Internal(errors.New("kitchen: recipe tree deeper than 50"))
		}
		var current, pinned []uuid.UUID
		var versions []int32
		for _, id := range frontier {
			if v, ok := pins[id]; ok {
				pinned, versions = append(pinned, id), append(versions, int32(v))
			} else {
				current = append(current, id)
			}
		}
		if len(current) > 0 {
			rows, err := q.GetRecipes(ctx, db.GetRecipesParams{OrgID: orgID, Ids: current})
			if err != nil {
				return t, err
			}
			for _, r := range rows {
				b, err := decodeBody(r.Body)
				if err != nil {
					return t, err
				}
				t.Recipes[r.ID] = Version{RecipeID: r.ID, Version: int(r.CurrentVersion), Archived: r.ArchivedAt != nil, Body: b}
			}
		}
		if len(pinned) > 0 {
			rows, err := q.GetPinnedVersions(ctx, db.GetPinnedVersionsParams{OrgID: orgID, Ids: pinned, Versions: versions})
			if err != nil {
				return t, err
			}
			for _, r := range rows {
				b, err := decodeBody(r.Body)
				if err != nil {
					return t, err
				}
				t.Recipes[r.RecipeID] = Version{RecipeID: r.RecipeID, Version: int(r.Version), Archived: r.ArchivedAt != nil, Body: b}
			}
		}
		if depth == 0 {
			for _, r := range roots {
				if _, ok := t.Recipes[r]; !ok {
					return t, errRecipeNotFound
				}
			}
		}
		var next []uuid.UUID
		for _, id := range frontier {
			for _, in := range t.Recipes[id].Body.Ingredients {
				switch {
				case in.ItemID != nil:
					itemIDs[*in.ItemID] = true
				case in.RecipeID != nil:
					if _, seen := t.Recipes[*in.RecipeID]; !seen && !contains(next, *in.RecipeID) {
						next = append(next, *in.RecipeID)
					}
				}
			}
		}
		frontier = next
	}
	if len(itemIDs) > 0 {
		ids := make([]uuid.UUID, 0, len(itemIDs))
		for id := range itemIDs {
			ids = append(ids, id)
		}
		items, err := inventory.GetItems(ctx, q, orgID, ids)
		if err != nil {
			return t, err
		}
		t.Items = items
	}
	return t, nil
}

func copyPins(p map[uuid.UUID]int) map[uuid.UUID]int {
	out := make(map[uuid.UUID]int, len(p)+1)
	for k, v := range p {
		out[k] = v
	}
	return out
}

func contains(ids []uuid.UUID, id uuid.UUID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// parseQty reads a client's decimal string in field.
func parseQty(field, s string) (decimal.Decimal, error) {
	d, err := quantity.Parse(s)
	switch {
	case errors.Is(err, quantity.ErrTooPrecise):
		return d, apierr.InvalidField(field, fmt.Sprintf("has more than %d decimal places", quantity.MaxPlaces))
	case err != nil:
		return d, apierr.InvalidField(field, "must be a decimal number such as \"12.5\"")
	}
	return d, nil
}

func parsePositive(field, s string) (decimal.Decimal, error) {
	d, err := parseQty(field, s)
	if err == nil && !d.IsPositive() {
		return d, apierr.InvalidField(field, "must be greater than zero")
	}
	return d, err
}

func parseTemp(field string, s *string) (*decimal.Decimal, error) {
	if s == nil {
		return nil, nil
	}
	d, err := decimal.NewFromString(*s)
	if err != nil {
		return nil, apierr.InvalidField(field, "must be a temperature such as \"41\"")
	}
	return &d, nil
}

// recipeInput is what a create or update body reads as, before the checks that need the database.
type recipeInput struct {
	Name, Category string
	Yield, Portion struct{ Quantity, Unit string }
	MinBatch       *string
	MaxBatch       *string
	ShelfLifeHours *int
	Station        *string
	Limits         struct{ Cook, Hot, Cold *string }
	Ingredients    []ingredientInput
	Steps          []string
	MayContain     []string
	Nutrition      struct {
		Sodium, Carbs, Fluid *string
		// Stated are the other nutrients stated per portion, by key.
		Stated map[string]string
	}
	YieldGrams *string
	IDDSILevel *int
}

type ingredientInput struct {
	ItemID, RecipeID *uuid.UUID
	Quantity, Unit   string
	Trim             *string
	Note             *string
}

// buildBody validates a recipe definition against the organization's items and recipes. self
// is the recipe being edited (uuid.Nil for a new one): a sub-recipe reaching it is a cycle.
func buildBody(ctx context.Context, q *db.Queries, orgID, self uuid.UUID, in recipeInput) (Body, error) {
	b := Body{Name: strings.TrimSpace(in.Name), Category: strings.TrimSpace(in.Category), ShelfLifeHours: in.ShelfLifeHours,
		Steps: in.Steps, MayContain: []string{}, Ingredients: []Ingredient{}}
	if b.Steps == nil {
		b.Steps = []string{}
	}
	switch {
	case b.Name == "":
		return b, apierr.InvalidField("name", "must not be blank")
	case b.Category == "":
		return b, apierr.InvalidField("category", "must not be blank")
	}
	if in.Station != nil {
		s := strings.TrimSpace(*in.Station)
		if s == "" {
			return b, apierr.InvalidField("station", "must not be blank")
		}
		b.Station = &s
	}
	var err error
	if b.Nutrition, err = buildNutrition(in); err != nil {
		return b, err
	}
	b.IDDSILevel = in.IDDSILevel
	if in.YieldGrams != nil {
		g, err := parsePositive("yieldGrams", *in.YieldGrams)
		if err != nil {
			return b, err
		}
		if !g.IsPositive() {
			return b, apierr.InvalidField("yieldGrams", "must be more than 0")
		}
		b.YieldGrams = &g
	}
	if b.Yield.Quantity, err = parsePositive("yield.quantity", in.Yield.Quantity); err != nil {
		return b, err
	}
	b.Yield.Unit = in.Yield.Unit
	if b.Portion.Quantity, err = parsePositive("portion.quantity", in.Portion.Quantity); err != nil {
		return b, err
	}
	b.Portion.Unit = in.Portion.Unit
	if _, err := toYield(b, b.Portion); err != nil {
		return b, apierr.InvalidField("portion.unit", fmt.Sprintf("%s does not convert to the yield's unit %s", b.Portion.Unit, b.Yield.Unit))
	}
	if in.MinBatch != nil {
		d, err := parsePositive("minBatch", *in.MinBatch)
		if err != nil {
			return b, err
		}
		b.MinBatch = &d
	}
	if in.MaxBatch != nil {
		d, err := parsePositive("maxBatch", *in.MaxBatch)
		if err != nil {
			return b, err
		}
		b.MaxBatch = &d
	}
	if b.MinBatch != nil && b.MaxBatch != nil && b.MinBatch.GreaterThan(*b.MaxBatch) {
		return b, apierr.InvalidField("minBatch", "must not be above maxBatch")
	}
	for field, s := range map[string]*string{"criticalLimits.cookMinTempF": in.Limits.Cook, "criticalLimits.holdHotMinTempF": in.Limits.Hot, "criticalLimits.holdColdMaxTempF": in.Limits.Cold} {
		if _, err := parseTemp(field, s); err != nil {
			return b, err
		}
	}
	b.CriticalLimits.CookMinTempF, _ = parseTemp("", in.Limits.Cook)
	b.CriticalLimits.HoldHotMinTempF, _ = parseTemp("", in.Limits.Hot)
	b.CriticalLimits.HoldColdMaxTempF, _ = parseTemp("", in.Limits.Cold)
	seen := map[string]bool{}
	for _, a := range in.MayContain {
		if !seen[a] {
			seen[a] = true
			b.MayContain = append(b.MayContain, a)
		}
	}
	var itemIDs, recipeIDs []uuid.UUID
	for i, line := range in.Ingredients {
		field := fmt.Sprintf("ingredients.%d", i)
		if (line.ItemID == nil) == (line.RecipeID == nil) {
			return b, apierr.InvalidField(field, "names exactly one of itemId and recipeId")
		}
		ing := Ingredient{ItemID: line.ItemID, RecipeID: line.RecipeID, Unit: line.Unit}
		if line.Note != nil {
			ing.Note = *line.Note
		}
		if ing.Quantity, err = parsePositive(field+".quantity", line.Quantity); err != nil {
			return b, err
		}
		if line.Trim != nil {
			if line.RecipeID != nil {
				return b, apierr.InvalidField(field+".trimYieldPercent", "applies to items only")
			}
			t, err := parsePositive(field+".trimYieldPercent", *line.Trim)
			if err != nil {
				return b, err
			}
			if t.GreaterThan(decimal.NewFromInt(100)) {
				return b, apierr.InvalidField(field+".trimYieldPercent", "must not be above 100")
			}
			ing.TrimYieldPercent = &t
		}
		if line.ItemID != nil {
			itemIDs = append(itemIDs, *line.ItemID)
		} else {
			if *line.RecipeID == self {
				return b, apierr.InvalidField(field+".recipeId", fmt.Sprintf("uses itself: %s → %s", b.Name, b.Name))
			}
			recipeIDs = append(recipeIDs, *line.RecipeID)
		}
		b.Ingredients = append(b.Ingredients, ing)
	}
	items, err := inventory.GetItems(ctx, q, orgID, itemIDs)
	if err != nil {
		return b, err
	}
	subs := map[uuid.UUID]db.GetRecipesRow{}
	if len(recipeIDs) > 0 {
		rows, err := q.GetRecipes(ctx, db.GetRecipesParams{OrgID: orgID, Ids: recipeIDs})
		if err != nil {
			return b, err
		}
		for _, r := range rows {
			subs[r.ID] = r
		}
	}
	for i, ing := range b.Ingredients {
		field := fmt.Sprintf("ingredients.%d", i)
		if ing.ItemID != nil {
			it, ok := items[*ing.ItemID]
			if !ok {
				return b, apierr.InvalidField(field+".itemId", "is no inventory item of the organization")
			}
			if !it.Units.Known(ing.Unit) {
				return b, apierr.InvalidField(field+".unit", (&quantity.ConversionError{Item: it.Name, From: ing.Unit, To: it.Units.Base}).Error())
			}
			continue
		}
		r, ok := subs[*ing.RecipeID]
		if !ok {
			return b, apierr.InvalidField(field+".recipeId", "is no recipe of the organization")
		}
		sb, err := decodeBody(r.Body)
		if err != nil {
			return b, err
		}
		if _, err := toYield(sb, Amount{ing.Quantity, ing.Unit}); err != nil {
			return b, apierr.InvalidField(field+".unit", fmt.Sprintf("%s does not convert to the yield unit %s of %q", ing.Unit, sb.Yield.Unit, sb.Name))
		}
		if self != uuid.Nil {
			path, err := findPath(ctx, q, orgID, *ing.RecipeID, self)
			if err != nil {
				return b, err
			}
			if path != nil {
				return b, apierr.InvalidField(field+".recipeId", (&CycleError{Path: append([]string{b.Name}, path...)}).Error())
			}
		}
	}
	if err := checkGrams(ctx, q, orgID, b, items); err != nil {
		return b, err
	}
	return b, nil
}

// findPath looks for target among the recipes from uses at any depth (current versions) and
// returns the names along the way, from's first and target's last; nil when it is not reached.
func findPath(ctx context.Context, q *db.Queries, orgID, from, target uuid.UUID) ([]string, error) {
	type node struct {
		id   uuid.UUID
		path []string
	}
	names := map[uuid.UUID]string{}
	edges := map[uuid.UUID][]uuid.UUID{}
	frontier := []uuid.UUID{from}
	for len(frontier) > 0 {
		rows, err := q.SubRecipeEdges(ctx, db.SubRecipeEdgesParams{OrgID: orgID, Ids: frontier})
		if err != nil {
			return nil, err
		}
		var next []uuid.UUID
		for _, r := range rows {
			names[r.ID], edges[r.ID] = r.Name, r.SubRecipeIds
			for _, s := range r.SubRecipeIds {
				if _, seen := edges[s]; !seen && !contains(next, s) && !contains(frontier, s) {
					next = append(next, s)
				}
			}
		}
		frontier = next
	}
	// Breadth-first over the loaded graph, for the shortest path.
	queue := []node{{from, []string{names[from]}}}
	visited := map[uuid.UUID]bool{from: true}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, s := range edges[n.id] {
			if s == target {
				return append(n.path, names[target]), nil
			}
			if !visited[s] {
				visited[s] = true
				queue = append(queue, node{s, append(append([]string{}, n.path...), names[s])})
			}
		}
	}
	return nil, nil
}

// buildNutrition reads the nutrients per portion; none stated is nil.
func buildNutrition(in recipeInput) (*Nutrition, error) {
	var n Nutrition
	for _, f := range []struct {
		field string
		in    *string
		out   **decimal.Decimal
	}{
		{"nutrition.sodiumMg", in.Nutrition.Sodium, &n.SodiumMg},
		{"nutrition.carbohydrateChoices", in.Nutrition.Carbs, &n.CarbohydrateChoices},
		{"nutrition.fluidMl", in.Nutrition.Fluid, &n.FluidMl},
	} {
		if f.in == nil {
			continue
		}
		d, err := parseQty(f.field, *f.in)
		if err != nil {
			return nil, err
		}
		*f.out = &d
	}
	keys := make([]string, 0, len(in.Nutrition.Stated))
	for k := range in.Nutrition.Stated {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		d, err := parseQty("nutrition."+k, in.Nutrition.Stated[k])
		if err != nil {
			return nil, err
		}
		if n.Stated == nil {
			n.Stated = map[string]decimal.Decimal{}
		}
		n.Stated[k] = d
	}
	if n.SodiumMg == nil && n.CarbohydrateChoices == nil && n.FluidMl == nil && n.Stated == nil {
		return nil, nil
	}
	return &n, nil
}
