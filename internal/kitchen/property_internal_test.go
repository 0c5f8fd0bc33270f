package kitchen

import (
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/inventory"
	"github.com/sous-app/sous/internal/quantity"
)

// randomTree builds n recipes where recipe i may use items and recipes after it (so no cycle),
// over a few items with random allergen statements (some left out), each with yields and lines
// in random units of one family.
func randomTree(r *rand.Rand, n int) Tree {
	t := Tree{Recipes: map[uuid.UUID]Version{}, Items: map[uuid.UUID]inventory.Item{}}
	statements := []string{inventory.AllergenContains, inventory.AllergenFree, inventory.AllergenUnknown, ""}
	mass := []string{"g", "kg", "oz", "lb"}
	var items []uuid.UUID
	for i := 0; i < 6; i++ {
		id := uuid.New()
		al := map[string]string{}
		for _, a := range Allergens[:6] {
			if s := statements[r.IntN(4)]; s != "" {
				al[a] = s
			}
		}
		t.Items[id] = inventory.Item{ID: id, Name: "item", Units: quantity.Units{Item: "item", Base: mass[r.IntN(4)]}, Allergens: al}
		items = append(items, id)
	}
	ids := make([]uuid.UUID, n)
	for i := range ids {
		ids[i] = uuid.New()
	}
	for i := n - 1; i >= 0; i-- {
		b := Body{Name: "r", Yield: Amount{decimal.NewFromInt(int64(1 + r.IntN(20))), mass[r.IntN(4)]}}
		b.Portion = Amount{decimal.NewFromInt(int64(50 + r.IntN(200))), "g"}
		for l := 0; l < 1+r.IntN(4); l++ {
			q := decimal.New(int64(1+r.IntN(5000)), -2)
			if i+1 < n && r.IntN(3) == 0 {
				sub := ids[i+1+r.IntN(n-i-1)]
				b.Ingredients = append(b.Ingredients, Ingredient{RecipeID: &sub, Quantity: q, Unit: mass[r.IntN(4)]})
				continue
			}
			item := items[r.IntN(len(items))]
			in := Ingredient{ItemID: &item, Quantity: q, Unit: mass[r.IntN(4)]}
			if r.IntN(2) == 0 {
				tr := decimal.NewFromInt(int64(40 + r.IntN(61)))
				in.TrimYieldPercent = &tr
			}
			b.Ingredients = append(b.Ingredients, in)
		}
		if r.IntN(3) == 0 {
			b.MayContain = []string{Allergens[r.IntN(len(Allergens))]}
		}
		t.Recipes[ids[i]] = Version{RecipeID: ids[i], Version: 1, Body: b}
	}
	t.Root = ids[0]
	return t
}

// refStatus is the roll-up written the simplest way: walk every path, collect each item's
// statement, then decide.
func refStatus(t Tree, id uuid.UUID, allergen string) string {
	var seen []string
	var walk func(uuid.UUID)
	walk = func(r uuid.UUID) {
		for _, in := range t.Recipes[r].Body.Ingredients {
			if in.ItemID != nil {
				seen = append(seen, t.Items[*in.ItemID].Allergens[allergen])
			} else {
				walk(*in.RecipeID)
			}
		}
	}
	walk(id)
	for _, s := range seen {
		if s == "contains" {
			return "contains"
		}
	}
	for _, s := range seen {
		if s != "free" {
			return "unknown"
		}
	}
	return "free"
}

func TestAllergenRollUpMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 300; i++ {
		tree := randomTree(r, 1+r.IntN(6))
		got := tree.RollUpAllergens(tree.Root)
		for _, a := range Allergens {
			if want := refStatus(tree, tree.Root, a); got[a] != want {
				t.Fatalf("case %d: %s = %s, want %s", i, a, got[a], want)
			}
		}
		// mayContain is the union over the sub-recipes reached.
		want := map[string]bool{}
		var walk func(uuid.UUID)
		walk = func(id uuid.UUID) {
			for _, m := range tree.Recipes[id].Body.MayContain {
				want[m] = true
			}
			for _, s := range tree.Recipes[id].Body.SubRecipeIDs() {
				walk(s)
			}
		}
		walk(tree.Root)
		if mc := tree.MayContain(tree.Root); len(mc) != len(want) {
			t.Fatalf("case %d: mayContain %v, want %v", i, mc, want)
		}
	}
}

// grams of a mass unit, exactly.
func grams(unit string) *big.Rat {
	f, _ := quantity.Factor(unit, "g")
	r, _ := new(big.Rat).SetString(f.String())
	return r
}

func rat(d decimal.Decimal) *big.Rat {
	r, _ := new(big.Rat).SetString(d.String())
	return r
}

// refNeeds is the scaling written with exact rationals: the grams of each item (as purchased)
// for needG grams of the recipe.
func refNeeds(t Tree, id uuid.UUID, needG *big.Rat, out map[uuid.UUID]*big.Rat) {
	b := t.Recipes[id].Body
	yieldG := new(big.Rat).Mul(rat(b.Yield.Quantity), grams(b.Yield.Unit))
	factor := new(big.Rat).Quo(needG, yieldG)
	for _, in := range b.Ingredients {
		lineG := new(big.Rat).Mul(new(big.Rat).Mul(rat(in.Quantity), grams(in.Unit)), factor)
		if in.RecipeID != nil {
			refNeeds(t, *in.RecipeID, lineG, out)
			continue
		}
		if in.TrimYieldPercent != nil {
			lineG.Quo(lineG, new(big.Rat).Quo(rat(*in.TrimYieldPercent), big.NewRat(100, 1)))
		}
		if out[*in.ItemID] == nil {
			out[*in.ItemID] = new(big.Rat)
		}
		out[*in.ItemID].Add(out[*in.ItemID], lineG)
	}
}

func TestScalingMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	units := []string{"g", "kg", "oz", "lb"}
	tol := big.NewRat(1, 1_000_000) // relative
	for i := 0; i < 300; i++ {
		tree := randomTree(r, 1+r.IntN(5))
		need := Amount{decimal.New(int64(1+r.IntN(100000)), -2), units[r.IntN(4)]}
		s, err := Scale(tree, need, false)
		if err != nil {
			t.Fatal(err)
		}
		want := map[uuid.UUID]*big.Rat{}
		refNeeds(tree, tree.Root, new(big.Rat).Mul(rat(need.Quantity), grams(need.Unit)), want)
		got := s.ItemNeeds(nil)
		if len(got) != len(want) {
			t.Fatalf("case %d: %d items, want %d", i, len(got), len(want))
		}
		for id, w := range want {
			g := new(big.Rat).Mul(rat(got[id]), grams(tree.Items[id].Units.Base))
			diff := new(big.Rat).Sub(g, w)
			diff.Abs(diff)
			// Exact to a millionth, or to the 9 places quantities keep (a hundred-thousandth of a gram).
			if w.Sign() > 0 && new(big.Rat).Quo(diff, w).Cmp(tol) > 0 && diff.Cmp(big.NewRat(1, 100_000)) > 0 {
				t.Fatalf("case %d: item needs %s g, reference %s g", i, g.FloatString(6), w.FloatString(6))
			}
		}
	}
}

func TestBatchingProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 500; i++ {
		tree := randomTree(r, 1)
		v := tree.Recipes[tree.Root]
		maxB := decimal.NewFromInt(int64(1 + r.IntN(30)))
		minB := decimal.New(int64(1+r.IntN(int(maxB.IntPart()*10))), -1)
		v.Body.MaxBatch, v.Body.MinBatch = &maxB, &minB
		tree.Recipes[tree.Root] = v
		need := decimal.New(int64(1+r.IntN(20000)), -2)
		s, err := Scale(tree, Amount{need, v.Body.Yield.Unit}, true)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case need.LessThan(minB):
			if !s.RaisedToMin || !s.Need.Equal(minB) || s.Batches != 1 {
				t.Fatalf("case %d: need %s under min %s: %+v", i, need, minB, s)
			}
		default:
			if s.RaisedToMin || !s.Need.Equal(need) {
				t.Fatalf("case %d: need changed: %+v", i, s)
			}
			if s.BatchQuantity.GreaterThan(maxB) {
				t.Fatalf("case %d: batch %s over max %s", i, s.BatchQuantity, maxB)
			}
			// The fewest: one batch fewer would not fit.
			if s.Batches > 1 && !need.Div(decimal.NewFromInt(int64(s.Batches-1))).GreaterThan(maxB) {
				t.Fatalf("case %d: %d batches of %s for %s (max %s) is not the fewest", i, s.Batches, s.BatchQuantity, need, maxB)
			}
			total := s.BatchQuantity.Mul(decimal.NewFromInt(int64(s.Batches)))
			if total.Sub(need).Abs().GreaterThan(decimal.New(1, -6)) {
				t.Fatalf("case %d: batches sum to %s, need %s", i, total, need)
			}
		}
		// Every line is the recipe's line times the factor, once.
		for j, l := range s.Lines {
			want := v.Body.Ingredients[j].Quantity.Mul(s.Factor).Round(quantity.Scale)
			if !l.Quantity.Equal(want) {
				t.Fatalf("case %d: line %d %s, want %s", i, j, l.Quantity, want)
			}
		}
	}
}

func TestDisplayUnits(t *testing.T) {
	cases := []struct{ q, unit, want string }{
		{"1500", "g", "1.5 kg"},
		{"0.0625", "gal", "1 cup"},
		{"999", "g", "999 g"},
		{"1234.5", "g", "1.23 kg"},
		{"0.5", "kg", "500 g"},
		{"3", "tsp", "1 tbsp"},
		{"24", "oz", "1.5 lb"},
		{"0.25", "l", "250 ml"},
		{"12", "each", "12 each"},
		{"2.3456", "case", "2.35 case"},
	}
	for _, c := range cases {
		q, u := Display(decimal.RequireFromString(c.q), c.unit)
		if got := quantity.Format(q) + " " + u; got != c.want {
			t.Errorf("Display(%s %s) = %s, want %s", c.q, c.unit, got, c.want)
		}
	}
	// Property: the display is within 0.5% of the exact value, in the same family.
	r := rand.New(rand.NewPCG(7, 8))
	units := []string{"g", "kg", "oz", "lb", "ml", "l", "tsp", "tbsp", "cup", "qt", "gal"}
	for i := 0; i < 1000; i++ {
		unit := units[r.IntN(len(units))]
		q := decimal.New(int64(1+r.IntN(1_000_000)), -int32(r.IntN(5)))
		dq, du := Display(q, unit)
		back, err := quantity.Convert(dq, du, unit)
		if err != nil {
			t.Fatalf("%s %s shown in %s: %v", q, unit, du, err)
		}
		if back.Sub(q).Abs().GreaterThan(q.Mul(decimal.New(5, -3))) {
			t.Fatalf("%s %s shown as %s %s", q, unit, dq, du)
		}
	}
}

func TestCoolingRule(t *testing.T) {
	at := func(min int, f int64) Reading {
		return Reading{At: epoch.Add(minutes(min)), TempF: decimal.NewFromInt(f)}
	}
	cases := []struct {
		name     string
		readings []Reading
		stage    int
	}{
		{"still hot", []Reading{at(0, 150), at(60, 140)}, 0},
		{"on time", []Reading{at(0, 135), at(110, 69), at(300, 40)}, 0},
		{"stage 1 late", []Reading{at(0, 135), at(130, 72)}, 1},
		{"stage 1 reached late", []Reading{at(0, 130), at(125, 68)}, 1},
		{"stage 2 in progress", []Reading{at(0, 135), at(100, 70), at(300, 50)}, 0},
		{"stage 2 late", []Reading{at(0, 135), at(100, 70), at(341, 45)}, 2},
		{"stage 2 reached late", []Reading{at(0, 135), at(100, 70), at(400, 40)}, 2},
	}
	for _, c := range cases {
		if stage, msg := CoolingBreach(c.readings); stage != c.stage {
			t.Errorf("%s: stage %d (%s), want %d", c.name, stage, msg, c.stage)
		}
	}
}

var epoch = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

func minutes(n int) time.Duration { return time.Duration(n) * time.Minute }
