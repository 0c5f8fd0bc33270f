package nutrition_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/shopspring/decimal"

	. "github.com/sous-app/sous/internal/nutrition"
)

// threeFoods: 50 g butter, 2 medium apples bought whole (1 medium = 182 g, 10 % refuse: 364 g
// × 0.9 = 327.6 g edible) and 2 tbsp honey (1 cup = 339 g; a tbsp is 1/16 cup: 2 × 21.1875 =
// 42.375 g), flagged as an added sugar; 4 portions; 50 + 327.6 + 42.375 = 419.975 g.
func threeFoods(butter, apple, honey Amounts) *Recipe {
	return &Recipe{
		Name:     "Apple honey bake",
		Portions: d("4"),
		Lines: []Line{
			{Name: "Butter", Quantity: d("50"), Unit: "g", Food: &Food{Name: "Butter", Per100g: butter}},
			{Name: "Apple", Quantity: d("2"), Unit: "medium", Edible: AsPurchased, Food: &Food{Name: "Apple", Per100g: apple,
				RefusePercent: d("10"), Measures: []Measure{{Amount: d("1"), Description: "cup, quartered or chopped", Grams: d("125")}, {Amount: d("1"), Description: `medium (3" dia)`, Grams: d("182")}}}},
			{Name: "Honey", Quantity: d("2"), Unit: "tbsp", AddedSugar: true, Food: &Food{Name: "Honey", Per100g: honey,
				Measures: []Measure{{Amount: d("1"), Description: "cup", Grams: d("339")}}}},
		},
	}
}

func TestAnalyzeThreeFoods(t *testing.T) {
	t.Parallel()
	// Per 100 g of each food, and each contribution: grams × value ÷ 100.
	cases := []struct {
		n                    Nutrient
		butter, apple, honey string
		parts                string // 50 × butter/100 + 327.6 × apple/100 + 42.375 × honey/100
		total, perPortion    string // total ÷ 4
	}{
		{EnergyKcal, "717", "52", "304", "358.5 + 170.352 + 128.82", "657.672", "164.418"},
		{FatG, "81.11", "0.17", "0", "40.555 + 0.55692 + 0", "41.11192", "10.27798"},
		{SaturatedFatG, "51.368", "0.028", "0", "25.684 + 0.091728 + 0", "25.775728", "6.443932"},
		{TransFatG, "3.278", "0", "0", "1.639 + 0 + 0", "1.639", "0.40975"},
		{CholesterolMg, "215", "0", "0", "107.5 + 0 + 0", "107.5", "26.875"},
		{SodiumMg, "643", "1", "4", "321.5 + 3.276 + 1.695", "326.471", "81.61775"},
		{CarbohydrateG, "0.06", "13.81", "82.4", "0.03 + 45.24156 + 34.917", "80.18856", "20.04714"},
		{FiberG, "0", "2.4", "0.2", "0 + 7.8624 + 0.08475", "7.94715", "1.9867875"},
		{SugarsG, "0.06", "10.39", "82.12", "0.03 + 34.03764 + 34.79835", "68.86599", "17.2164975"},
		// Honey is flagged: its added sugars are its sugars, whatever it states (nothing).
		{AddedSugarsG, "0", "0", "", "0 + 0 + 34.79835", "34.79835", "8.6995875"},
		{ProteinG, "0.85", "0.26", "0.3", "0.425 + 0.85176 + 0.127125", "1.403885", "0.35097125"},
		{VitaminDMcg, "1.5", "0", "0", "0.75 + 0 + 0", "0.75", "0.1875"},
		{CalciumMg, "24", "6", "6", "12 + 19.656 + 2.5425", "34.1985", "8.549625"},
		{IronMg, "0.02", "0.12", "0.42", "0.01 + 0.39312 + 0.177975", "0.581095", "0.14527375"},
		{PotassiumMg, "24", "107", "52", "12 + 350.532 + 22.035", "384.567", "96.14175"},
		{PhosphorusMg, "24", "11", "4", "12 + 36.036 + 1.695", "49.731", "12.43275"},
	}
	butter, apple, honey := Amounts{}, Amounts{}, Amounts{}
	for _, c := range cases {
		butter[c.n], apple[c.n] = d(c.butter), d(c.apple)
		if c.honey != "" {
			honey[c.n] = d(c.honey)
		}
	}
	a := mustAnalyze(t, threeFoods(butter, apple, honey))
	wantValue(t, "grams", a.Grams, "419.975", true)
	wantValue(t, "portion grams", a.PortionGrams, "104.99375", true) // 419.975 ÷ 4
	for _, c := range cases {
		wantValue(t, c.n.Key()+" total", a.Total[c.n], c.total, true)
		wantValue(t, c.n.Key()+" per portion", a.PerPortion[c.n], c.perPortion, true)
		// Per 100 g: total × 100 ÷ 419.975, kept to 9 places.
		wantValue(t, c.n.Key()+" per 100 g", a.Per100g[c.n], d(c.total).Mul(d("100")).DivRound(d("419.975"), 9).String(), true)
		if a.PerPortion[c.n].Source != Computed || len(a.PerPortion[c.n].Missing) != 0 {
			t.Errorf("%s: source %q, missing %v", c.n, a.PerPortion[c.n].Source, a.PerPortion[c.n].Missing)
		}
	}
	// One spot check written out: energy per 100 g = 657.672 × 100 ÷ 419.975 = 156.597892732…
	wantValue(t, "energy per 100 g", a.Per100g[EnergyKcal], "156.597892732", true)
}

func TestAddedSugarsUnknownUnlessStatedOrFlagged(t *testing.T) {
	t.Parallel()
	r := &Recipe{Name: "Jam", Portions: d("1"), Lines: []Line{
		{Name: "Strawberries", Quantity: d("100"), Unit: "g", Food: &Food{Per100g: amounts(SugarsG, "4.89")}},
		{Name: "Sugar", Quantity: d("50"), Unit: "g", AddedSugar: true, Food: &Food{Per100g: amounts(SugarsG, "99.8")}},
	}}
	a := mustAnalyze(t, r)
	wantValue(t, "sugars", a.Total[SugarsG], "54.79", true)            // 4.89 + 49.9
	wantValue(t, "added sugars", a.Total[AddedSugarsG], "49.9", false) // the sugar's 50 × 99.8 ÷ 100; strawberries not analysed
	want := []Missing{{Ingredient: "Strawberries", Reason: NotAnalysed}}
	if got := a.Total[AddedSugarsG].Missing; !reflect.DeepEqual(got, want) {
		t.Errorf("missing = %+v, want %+v", got, want)
	}
	// Stated by the food (an organization's own), it is taken as stated.
	r.Lines[0].Food.Per100g[AddedSugarsG] = d("0")
	wantValue(t, "added sugars stated", mustAnalyze(t, r).Total[AddedSugarsG], "49.9", true)
}

func TestEdiblePortion(t *testing.T) {
	t.Parallel()
	apple := &Food{Name: "Apple", RefusePercent: d("8"), Per100g: amounts(EnergyKcal, "52")}
	cases := []struct {
		name   string
		edible Edible
		trim   string
		grams  string // edible grams of 1 kg
	}{
		{"edible portion: as written", EdiblePortion, "", "1000"},
		{"default is edible portion", "", "", "1000"},
		{"edible portion ignores the trim yield (it only costs the purchase)", EdiblePortion, "75", "1000"},
		{"as purchased: refuse 8 %", AsPurchased, "", "920"},                   // 1000 × (100 − 8) ÷ 100
		{"as purchased: the line's trim yield wins", AsPurchased, "75", "750"}, // 1000 × 75 ÷ 100
	}
	for _, c := range cases {
		l := Line{Name: "Apple", Quantity: d("1"), Unit: "kg", Food: apple, Edible: c.edible}
		if c.trim != "" {
			l.TrimYieldPercent = dp(c.trim)
		}
		a := mustAnalyze(t, &Recipe{Name: c.name, Portions: d("1"), Lines: []Line{l}})
		wantValue(t, c.name+": grams", a.Grams, c.grams, true)
		wantValue(t, c.name+": energy", a.Total[EnergyKcal], d(c.grams).Mul(d("52")).Div(d("100")).String(), true)
	}
}

// stock: 4 l of stock from bones (vitamin D not analysed) and a bouquet with no food; 2000 g.
func stock() *Recipe {
	return &Recipe{Name: "Chicken stock", Portions: d("16"), Yield: &Amount{Quantity: d("4"), Unit: "l"}, Lines: []Line{
		{ID: "item-bones", Name: "Chicken bones", Quantity: d("2"), Unit: "kg", Food: &Food{Per100g: amounts(
			EnergyKcal, "40", SodiumMg, "80", ProteinG, "6")}},
		{ID: "item-bouquet", Name: "Bouquet garni", Quantity: d("1"), Unit: "each", GramsPer: map[string]decimal.Decimal{"each": d("20")}},
	}}
}

func TestUnknownPropagatesThroughSubRecipes(t *testing.T) {
	t.Parallel()
	sauce := &Recipe{Name: "Velouté", Portions: d("10"), Lines: []Line{
		{Name: "Chicken stock", Quantity: d("500"), Unit: "ml", Recipe: stock()}, // 500 ml ÷ 4 l = 1/8 of the stock
		{Name: "Flour", Quantity: d("40"), Unit: "g", Food: &Food{Per100g: amounts(EnergyKcal, "364", SodiumMg, "2", ProteinG, "10", VitaminDMcg, "0")}},
	}}
	dish := &Recipe{Name: "Chicken pie", Portions: d("4"), Lines: []Line{
		{Name: "Velouté", Quantity: d("1"), Unit: "kg", Recipe: sauce},
	}}
	a := mustAnalyze(t, dish)
	// The velouté weighs 2020 ÷ 8 + 40 = 292.5 g; 1 kg of it is 1000 ÷ 292.5 of one yield.
	// Energy: bones 2000 × 40 ÷ 100 = 800 per stock, ÷ 8 = 100; flour 40 × 364 ÷ 100 = 145.6.
	// Known part 245.6; the bouquet has no food, so it is incomplete.
	wantValue(t, "energy", a.Total[EnergyKcal], d("245.6").Mul(d("1000")).DivRound(d("292.5"), 9).String(), false)
	wantMissing := []Missing{{ID: "item-bouquet", Ingredient: "Bouquet garni", Reason: NoFood, Via: []string{"Velouté", "Chicken stock"}}}
	if got := a.Total[EnergyKcal].Missing; !reflect.DeepEqual(got, wantMissing) {
		t.Errorf("energy missing = %+v, want %+v", got, wantMissing)
	}
	// Vitamin D: the bones were not analysed; the flour's 0 is known.
	wantVitD := []Missing{
		{ID: "item-bones", Ingredient: "Chicken bones", Reason: NotAnalysed, Via: []string{"Velouté", "Chicken stock"}},
		wantMissing[0],
	}
	if got := a.PerPortion[VitaminDMcg].Missing; !reflect.DeepEqual(got, wantVitD) {
		t.Errorf("vitamin D missing = %+v, want %+v", got, wantVitD)
	}
	if a.PerPortion[VitaminDMcg].Complete || !a.Grams.Complete {
		t.Errorf("vitamin D complete %v, grams complete %v", a.PerPortion[VitaminDMcg].Complete, a.Grams.Complete)
	}
	wantValue(t, "grams", a.Grams, "1000", true) // 292.5 × share
}

func TestStatedOverridesComputed(t *testing.T) {
	t.Parallel()
	soup := stock()
	soup.Stated = amounts(SodiumMg, "35", EnergyKcal, "50")
	a := mustAnalyze(t, soup)
	for _, c := range []struct {
		n                 Nutrient
		perPortion, total string
	}{
		{SodiumMg, "35", "560"},   // 35 × 16 portions
		{EnergyKcal, "50", "800"}, // 50 × 16
	} {
		v := a.PerPortion[c.n]
		wantValue(t, c.n.Key(), v, c.perPortion, true)
		wantValue(t, c.n.Key()+" total", a.Total[c.n], c.total, true)
		if v.Source != Stated || a.Per100g[c.n].Source != Stated {
			t.Errorf("%s: source %q, per 100 g %q, want stated", c.n, v.Source, a.Per100g[c.n].Source)
		}
	}
	wantValue(t, "sodium per 100 g", a.Per100g[SodiumMg], "27.722772277", true) // 560 × 100 ÷ 2020
	// Computed where not stated: protein 2000 × 6 ÷ 100 = 120, the bouquet unknown.
	wantValue(t, "protein", a.Total[ProteinG], "120", false)
	// A recipe using a quarter of the yield (1 l of 4 l) gets a quarter of the stated values.
	parent := mustAnalyze(t, &Recipe{Name: "Soup", Portions: d("1"), Lines: []Line{{Name: "Stock", Quantity: d("1"), Unit: "l", Recipe: soup}}})
	wantValue(t, "parent sodium", parent.Total[SodiumMg], "140", true) // 560 ÷ 4
	if parent.Total[SodiumMg].Source != Computed {
		t.Errorf("parent sodium source %q, want computed", parent.Total[SodiumMg].Source)
	}
}

func TestConversionFailure(t *testing.T) {
	t.Parallel()
	r := &Recipe{Name: "Salsa", Portions: d("2"), Lines: []Line{
		{Name: "Tomato", Quantity: d("300"), Unit: "g", Food: &Food{Per100g: amounts(EnergyKcal, "18")}},
		{ID: "item-parsley", Name: "Parsley", Quantity: d("1"), Unit: "bunch", Food: &Food{Per100g: amounts(EnergyKcal, "36"),
			Measures: []Measure{{Amount: d("1"), Description: "cup chopped", Grams: d("60")}, {Amount: d("10"), Description: "sprigs", Grams: d("10")}}}},
	}}
	a := mustAnalyze(t, r)
	want := []Missing{{ID: "item-parsley", Ingredient: "Parsley", Reason: NoConversion}}
	for _, v := range []Value{a.Total[EnergyKcal], a.PerPortion[EnergyKcal], a.Per100g[EnergyKcal], a.Grams, a.PortionGrams} {
		if v.Complete || !reflect.DeepEqual(v.Missing, want) {
			t.Errorf("value %+v: want incomplete, missing %+v", v, want)
		}
	}
	wantValue(t, "energy known part", a.Total[EnergyKcal], "54", false) // 300 × 18 ÷ 100
	err := CheckGrams(r)
	var ce *ConversionError
	if !errors.As(err, &ce) || ce.Index != 1 || ce.Ingredient != "Parsley" || ce.Unit != "bunch" {
		t.Fatalf("CheckGrams = %v, want a ConversionError for line 1", err)
	}
	if !reflect.DeepEqual(ce.Measures, []string{"cup", "sprig"}) {
		t.Errorf("measures = %v", ce.Measures)
	}
	r.Lines[1].GramsPer = map[string]decimal.Decimal{"bunch": d("50")}
	if err := CheckGrams(r); err != nil {
		t.Errorf("with grams declared: %v", err)
	}
	wantValue(t, "energy", mustAnalyze(t, r).Total[EnergyKcal], "72", true) // 54 + 50 × 36 ÷ 100
}

func TestNoFood(t *testing.T) {
	t.Parallel()
	a := mustAnalyze(t, &Recipe{Name: "Tea", Portions: d("1"), Lines: []Line{{Name: "Tea leaves", Quantity: d("2"), Unit: "g"}}})
	for _, n := range Nutrients {
		if v := a.Total[n]; v.Complete || v.Missing[0].Reason != NoFood {
			t.Errorf("%s = %+v, want unknown, no_food", n, v)
		}
	}
	wantValue(t, "grams", a.Grams, "2", true)
}

func TestRecipeErrors(t *testing.T) {
	t.Parallel()
	food := &Food{Per100g: amounts(EnergyKcal, "1")}
	loop := &Recipe{Name: "Loop", Portions: d("1")}
	loop.Lines = []Line{{Name: "Loop", Quantity: d("1"), Unit: "g", Recipe: loop}}
	chain := func(depth int) *Recipe {
		r := &Recipe{Name: "leaf", Portions: d("1"), Lines: []Line{{Name: "f", Quantity: d("1"), Unit: "g", Food: food}}}
		for i := 0; i < depth; i++ {
			r = &Recipe{Name: "level", Portions: d("1"), Lines: []Line{{Name: "sub", Quantity: d("1"), Unit: "g", Recipe: r}}}
		}
		return r
	}
	var depthErr *DepthError
	var recipeErr *RecipeError
	cases := []struct {
		name string
		r    *Recipe
		want any
	}{
		{"contains itself", loop, &depthErr},
		{"MaxDepth + 1 levels", chain(MaxDepth + 1), &depthErr},
		{"MaxDepth levels", chain(MaxDepth), nil},
		{"no portions", &Recipe{Name: "x"}, &recipeErr},
		{"zero quantity", &Recipe{Name: "x", Portions: d("1"), Lines: []Line{{Name: "f", Unit: "g", Food: food}}}, &recipeErr},
		{"food and recipe", &Recipe{Name: "x", Portions: d("1"), Lines: []Line{{Name: "f", Quantity: d("1"), Unit: "g", Food: food, Recipe: chain(0)}}}, &recipeErr},
		{"yieldGrams zero", &Recipe{Name: "x", Portions: d("1"), YieldGrams: dp("0")}, &recipeErr},
	}
	for _, c := range cases {
		_, err := Analyze(c.r)
		switch {
		case c.want == nil && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != nil && !errors.As(err, c.want):
			t.Errorf("%s: err = %v, want %T", c.name, err, c.want)
		}
	}
}

func TestYieldGramsAndEmptyRecipe(t *testing.T) {
	t.Parallel()
	r := stock()
	r.YieldGrams = dp("1800") // reduced from 2020 g of ingredients
	a := mustAnalyze(t, r)
	wantValue(t, "protein per 100 g", a.Per100g[ProteinG], "6.666666667", false) // 120 × 100 ÷ 1800
	if a.Grams.Source != Stated {
		t.Errorf("grams source %q", a.Grams.Source)
	}
	empty := mustAnalyze(t, &Recipe{Name: "Nothing", Portions: d("1")})
	wantValue(t, "empty per 100 g", empty.Per100g[EnergyKcal], "0", true)
}
