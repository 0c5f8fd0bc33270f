package nutrition_test

import (
	"fmt"
	"testing"

	. "github.com/sous-app/sous/internal/nutrition"
)

// benchRecipe is 40 food ingredients over 3 levels of sub-recipes: the dish has 10 foods and
// a sauce, the sauce 10 foods and a stock, the stock 10 foods and a base, the base 10 foods.
// Units mix grams, household measures and as-purchased refuse, and one food misses a nutrient.
func benchRecipe() *Recipe {
	food := func(i int) *Food {
		per := Amounts{}
		for _, n := range Nutrients {
			if i%7 == 0 && n == VitaminDMcg {
				continue
			}
			per[n] = d(fmt.Sprintf("%d.%02d", i%40+1, (i*37)%100))
		}
		return &Food{Name: fmt.Sprint("food ", i), Per100g: per, RefusePercent: d("12"),
			Measures: []Measure{{Amount: d("1"), Description: "cup, chopped", Grams: d("128")}, {Amount: d("1"), Description: `medium (3" dia)`, Grams: d("182")}}}
	}
	level := func(name string, foods, base int, sub *Recipe) *Recipe {
		r := &Recipe{Name: name, Portions: d("10"), Yield: &Amount{Quantity: d("4"), Unit: "l"}}
		for i := 0; i < foods; i++ {
			l := Line{Name: fmt.Sprint(name, " ", i), Food: food(base + i), Quantity: d("250"), Unit: "g"}
			switch i % 3 {
			case 1:
				l.Quantity, l.Unit = d("1.5"), "cup"
			case 2:
				l.Quantity, l.Unit, l.Edible = d("2"), "medium", AsPurchased
			}
			r.Lines = append(r.Lines, l)
		}
		if sub != nil {
			r.Lines = append(r.Lines, Line{Name: sub.Name, Recipe: sub, Quantity: d("500"), Unit: "ml"})
		}
		return r
	}
	base := level("base", 10, 30, nil)
	stock := level("stock", 10, 20, base)
	sauce := level("sauce", 10, 10, stock)
	return level("dish", 10, 0, sauce)
}

func BenchmarkAnalyze40Ingredients3Levels(b *testing.B) {
	r := benchRecipe()
	if _, err := Analyze(r); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Analyze(r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuildLabel(b *testing.B) {
	a, err := Analyze(benchRecipe())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		BuildLabel(LabelInput{Name: "dish", PerServing: a.PerPortion, Household: "1 cup", ServingGrams: a.PortionGrams})
	}
}
