package kitchen

import (
	"sort"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/inventory"
	"github.com/sous-app/sous/internal/money"
)

// itemsOf returns the items the recipe uses at any depth, each once.
func (t Tree) itemsOf(id uuid.UUID, seen map[uuid.UUID]bool, out map[uuid.UUID]bool) {
	if seen[id] {
		return
	}
	seen[id] = true
	for _, in := range t.Recipes[id].Body.Ingredients {
		switch {
		case in.ItemID != nil:
			out[*in.ItemID] = true
		case in.RecipeID != nil:
			t.itemsOf(*in.RecipeID, seen, out)
		}
	}
}

// RollUpAllergens gives each allergen of the vocabulary its three-state status for the recipe:
// contains if any item at any depth contains it, else unknown if any item's status is unknown or
// not stated, else free. A recipe without items is free of everything.
func (t Tree) RollUpAllergens(id uuid.UUID) map[string]string {
	items := map[uuid.UUID]bool{}
	t.itemsOf(id, map[uuid.UUID]bool{}, items)
	out := make(map[string]string, len(Allergens))
	for _, a := range Allergens {
		status := inventory.AllergenFree
		for itemID := range items {
			switch s := t.Items[itemID].Allergens[a]; s {
			case inventory.AllergenContains:
				status = inventory.AllergenContains
			case inventory.AllergenFree:
			default:
				if status != inventory.AllergenContains {
					status = inventory.AllergenUnknown
				}
			}
		}
		out[a] = status
	}
	return out
}

// Contains lists the allergens the recipe contains, sorted.
func Contains(allergens map[string]string) []string {
	var out []string
	for a, s := range allergens {
		if s == inventory.AllergenContains {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// MayContain unions the recipe's own may-contain list with its sub-recipes' at any depth, sorted.
func (t Tree) MayContain(id uuid.UUID) []string {
	set := map[string]bool{}
	var walk func(uuid.UUID, map[uuid.UUID]bool)
	walk = func(r uuid.UUID, seen map[uuid.UUID]bool) {
		if seen[r] {
			return
		}
		seen[r] = true
		b := t.Recipes[r].Body
		for _, a := range b.MayContain {
			set[a] = true
		}
		for _, sub := range b.SubRecipeIDs() {
			walk(sub, seen)
		}
	}
	walk(id, map[uuid.UUID]bool{})
	out := make([]string, 0, len(set))
	for a := range set {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// Cost is a recipe's cost from its items' moving-average costs.
type Cost struct {
	// YieldCents is the cost of one yield, PortionCents of one portion (rounded half-even).
	YieldCents, PortionCents int64
	// Exact is the unrounded cost of one yield in cents.
	Exact decimal.Decimal
	// Missing lists the items (at any depth) without a cost, by id.
	Missing []uuid.UUID
}

// itemCost is an item's cost in cents per base unit: at site when given (uuid.Nil: the average
// of its sites weighted by on-hand, or their plain mean when nothing is on hand). ok is false for
// an item never received anywhere.
func itemCost(it inventory.Item, site uuid.UUID) (decimal.Decimal, bool) {
	if site != uuid.Nil {
		c, ok := it.Costs[site]
		return c.AvgCostCents, ok && c.AvgCostCents.IsPositive()
	}
	var sum, weight, plain decimal.Decimal
	n := 0
	for _, c := range it.Costs {
		if !c.AvgCostCents.IsPositive() {
			continue
		}
		n++
		plain = plain.Add(c.AvgCostCents)
		sum = sum.Add(c.AvgCostCents.Mul(c.OnHand))
		weight = weight.Add(c.OnHand)
	}
	switch {
	case n == 0:
		return decimal.Zero, false
	case weight.IsPositive():
		return sum.DivRound(weight, 12), true
	default:
		return plain.DivRound(decimal.NewFromInt(int64(n)), 12), true
	}
}

// CostOf computes the cost of one yield of the recipe and of one portion: each item line's
// as-purchased quantity (EP / trim yield) in the item's base unit × its cost, each sub-recipe
// line its share of the sub-recipe's yield cost. A cost beyond the server's bound on money is
// money.ErrTooLarge, never a wrapped number.
func (t Tree) CostOf(id uuid.UUID, site uuid.UUID) (Cost, error) {
	missing := map[uuid.UUID]bool{}
	memo := map[uuid.UUID]decimal.Decimal{}
	total := t.yieldCost(id, site, missing, memo)
	b := t.Recipes[id].Body
	c := Cost{Exact: total}
	var err error
	if c.YieldCents, err = money.Round(total); err != nil {
		return Cost{}, err
	}
	if p, perr := toYield(b, b.Portion); perr == nil && b.Yield.Quantity.IsPositive() {
		if c.PortionCents, err = money.Round(total.Mul(p).DivRound(b.Yield.Quantity, 12)); err != nil {
			return Cost{}, err
		}
	}
	for m := range missing {
		c.Missing = append(c.Missing, m)
	}
	sort.Slice(c.Missing, func(i, j int) bool { return c.Missing[i].String() < c.Missing[j].String() })
	return c, nil
}

func (t Tree) yieldCost(id, site uuid.UUID, missing map[uuid.UUID]bool, memo map[uuid.UUID]decimal.Decimal) decimal.Decimal {
	if c, ok := memo[id]; ok {
		return c
	}
	memo[id] = decimal.Zero // a cycle (refused on write) costs nothing rather than recursing
	total := decimal.Zero
	for _, in := range t.Recipes[id].Body.Ingredients {
		switch {
		case in.ItemID != nil:
			it, ok := t.Items[*in.ItemID]
			if !ok {
				missing[*in.ItemID] = true
				continue
			}
			base, err := it.Units.ToBase(asPurchased(in), in.Unit)
			if err != nil {
				missing[it.ID] = true
				continue
			}
			cost, ok := itemCost(it, site)
			if !ok {
				missing[it.ID] = true
				continue
			}
			total = total.Add(base.Mul(cost))
		case in.RecipeID != nil:
			sub, ok := t.Recipes[*in.RecipeID]
			if !ok || !sub.Body.Yield.Quantity.IsPositive() {
				continue
			}
			q, err := toYield(sub.Body, Amount{in.Quantity, in.Unit})
			if err != nil {
				continue
			}
			total = total.Add(t.yieldCost(*in.RecipeID, site, missing, memo).Mul(q).DivRound(sub.Body.Yield.Quantity, 12))
		}
	}
	memo[id] = total
	return total
}

// asPurchased converts an item line's edible-portion quantity to as-purchased: EP / (trim / 100).
func asPurchased(in Ingredient) decimal.Decimal {
	if in.TrimYieldPercent == nil || !in.TrimYieldPercent.IsPositive() {
		return in.Quantity
	}
	return in.Quantity.Mul(decimal.NewFromInt(100)).DivRound(*in.TrimYieldPercent, 12)
}
