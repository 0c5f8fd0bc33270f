package nutrition_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"

	. "github.com/sous-app/sous/internal/nutrition"
)

// perServing is a complete serving: 230 kcal, the FDA's sample panel's numbers.
func perServing() Set {
	var s Set
	for n, v := range map[Nutrient]string{
		EnergyKcal: "231", FatG: "8.2", SaturatedFatG: "1.1", TransFatG: "0", CholesterolMg: "0", SodiumMg: "162",
		CarbohydrateG: "37.3", FiberG: "4.1", SugarsG: "12.2", AddedSugarsG: "9.8", ProteinG: "3.2",
		VitaminDMcg: "2", CalciumMg: "262", IronMg: "8.1", PotassiumMg: "238", PhosphorusMg: "100",
	} {
		s[n] = Known(d(v))
	}
	return s
}

var allFree = map[string]string{"milk": "contains", "egg": "free", "fish": "free", "crustacean_shellfish": "free",
	"tree_nuts": "free", "peanuts": "free", "wheat": "contains", "soy": "contains", "sesame": "free", "mustard": "contains"}

func TestBuildLabel(t *testing.T) {
	t.Parallel()
	l := BuildLabel(LabelInput{Name: "Oat bar", PerServing: perServing(), Household: "2/3 cup", ServingGrams: Known(d("55.2")), Allergens: allFree})
	if !l.Complete || l.ServingSize != "2/3 cup (55g)" || l.Calories.Text != "230" {
		t.Fatalf("label: complete %v, serving %q, calories %q", l.Complete, l.ServingSize, l.Calories.Text)
	}
	cases := []struct {
		n    Nutrient
		text string
		dv   int // -1 for none
	}{
		{FatG, "8g", 10},         // 8 ÷ 78 = 10.3 %
		{SaturatedFatG, "1g", 5}, // 1 ÷ 20
		{TransFatG, "0g", -1},
		{CholesterolMg, "0mg", 0},
		{SodiumMg, "160mg", 7},     // 160 ÷ 2300 = 6.96 %
		{CarbohydrateG, "37g", 13}, // 37 ÷ 275 = 13.45 %
		{FiberG, "4g", 14},         // 4 ÷ 28 = 14.29 %
		{SugarsG, "12g", -1},
		{AddedSugarsG, "10g", 20}, // 10 ÷ 50
		{ProteinG, "3g", -1},
		{VitaminDMcg, "2mcg", 10}, // 2 ÷ 20
		{CalciumMg, "260mg", 20},  // 260 ÷ 1300
		{IronMg, "8.1mg", 45},     // 8.1 ÷ 18 = 45 %
		{PotassiumMg, "240mg", 6}, // 240 ÷ 4700 = 5.1 % → nearest 2: 6
	}
	for _, c := range cases {
		ll, ok := l.Line(c.n)
		if !ok || ll.Text != c.text || !ll.Complete {
			t.Errorf("%s: %+v, want %q", c.n, ll, c.text)
			continue
		}
		switch {
		case c.dv < 0 && ll.DailyValuePercent != nil:
			t.Errorf("%s: %%DV %d, want none", c.n, *ll.DailyValuePercent)
		case c.dv >= 0 && (ll.DailyValuePercent == nil || *ll.DailyValuePercent != c.dv):
			t.Errorf("%s: %%DV %v, want %d", c.n, ll.DailyValuePercent, c.dv)
		}
	}
	if _, ok := l.Line(PhosphorusMg); ok {
		t.Error("phosphorus is on the panel")
	}
	if got := l.ContainsText(); got != "Contains: Milk, Wheat, Soy" {
		t.Errorf("contains = %q", got)
	}
}

func TestLabelWithUnknownsNeverReadsZero(t *testing.T) {
	t.Parallel()
	s := perServing()
	miss := Missing{Ingredient: "Chicken bones", Reason: NotAnalysed, Via: []string{"Stock"}}
	s[TransFatG] = Unknown(miss)
	s[VitaminDMcg] = Known(d("1")).Plus(Unknown(miss)) // 1 mcg known, the rest not
	l := BuildLabel(LabelInput{Name: "Soup", PerServing: s, Household: "1 cup", ServingGrams: Known(d("240")), Allergens: map[string]string{"milk": "contains", "wheat": "unknown"}})
	if l.Complete || !reflect.DeepEqual(l.Missing, []Missing{miss}) {
		t.Errorf("complete %v, missing %+v", l.Complete, l.Missing)
	}
	for _, n := range []Nutrient{TransFatG, VitaminDMcg} {
		ll, _ := l.Line(n)
		if ll.Text != "unknown" || ll.Declared != "" || ll.DailyValuePercent != nil || ll.Complete {
			t.Errorf("%s: %+v, want unknown with no amount or %%DV", n, ll)
		}
	}
	// egg, fish, … left out and wheat stated unknown: all unknown, in statutory order.
	if want := []string{"Egg", "Fish", "Crustacean Shellfish", "Tree Nuts", "Peanuts", "Wheat", "Soy", "Sesame"}; !reflect.DeepEqual(l.AllergensUnknown, want) {
		t.Errorf("allergens unknown = %v", l.AllergensUnknown)
	}
	err := RenderLabelPDF(&bytes.Buffer{}, l)
	var ie *IncompleteLabelError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "Chicken bones (not_analysed)") || !strings.Contains(err.Error(), "Wheat") {
		t.Errorf("RenderLabelPDF = %v, want an IncompleteLabelError", err)
	}
	// Unknown serving weight: the serving size says so and the label is incomplete.
	l = BuildLabel(LabelInput{Household: "1 cup", PerServing: perServing(), ServingGrams: Unknown(Missing{Ingredient: "Parsley", Reason: NoConversion}), Allergens: allFree})
	if l.Complete || l.ServingSize != "1 cup (unknown g)" {
		t.Errorf("serving %q complete %v", l.ServingSize, l.Complete)
	}
}

func TestContainsStatement(t *testing.T) {
	t.Parallel()
	contains, unknown := ContainsStatement(map[string]string{"sesame": "contains", "crustacean_shellfish": "contains", "tree_nuts": "contains",
		"peanuts": "free", "milk": "free", "egg": "free", "fish": "free", "wheat": "free", "soy": "free", "gluten": "contains", "molluscs": "contains"})
	if !reflect.DeepEqual(contains, []string{"Crustacean Shellfish", "Tree Nuts", "Sesame"}) || unknown != nil {
		t.Errorf("contains %v, unknown %v", contains, unknown)
	}
}

func TestLabelJSON(t *testing.T) {
	t.Parallel()
	l := BuildLabel(LabelInput{Name: "Oat bar", PerServing: perServing(), Household: "1 bar", ServingGrams: Known(d("40")), Allergens: allFree})
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"servingSize":"1 bar (40g)"`, `"calories":{"nutrient":"energyKcal","name":"Calories","text":"230","declared":"230","complete":true}`,
		`{"nutrient":"cholesterolMg","name":"Cholesterol","text":"0mg","declared":"0","dailyValuePercent":0,"complete":true}`, `"contains":["Milk","Wheat","Soy"]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s:\n%s", want, b)
		}
	}
}

// pdfText reads the text shown by an uncompressed PDF, in order.
func pdfText(t *testing.T, doc []byte) []string {
	t.Helper()
	if !bytes.HasPrefix(doc, []byte("%PDF-")) {
		t.Fatalf("not a PDF: %.20q", doc)
	}
	var out []string
	for _, m := range regexp.MustCompile(`\(((?:\\.|[^\\)])*)\)\s*Tj`).FindAllSubmatch(doc, -1) {
		out = append(out, strings.NewReplacer(`\(`, "(", `\)`, ")", `\\`, `\`).Replace(string(m[1])))
	}
	return out
}

func TestRenderLabelPDF(t *testing.T) {
	t.Parallel()
	l := BuildLabel(LabelInput{Name: "Oat bar", PerServing: perServing(), Household: "2/3 cup", ServingGrams: Known(d("55.2")),
		ServingsPerContainer: "8", Allergens: allFree})
	var a, b bytes.Buffer
	if err := RenderLabelPDF(&a, l); err != nil {
		t.Fatal(err)
	}
	if err := RenderLabelPDF(&b, l); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("the same label made different bytes (%v)", err)
	}
	text := strings.Join(pdfText(t, a.Bytes()), "|")
	// The panel's reading order, top to bottom.
	want := []string{"Nutrition Facts", "8 servings per container", "Serving size", "2/3 cup (55g)", "Amount per serving",
		"Calories", "230", "% Daily Value*", "Total Fat", " 8g", "10%", "Saturated Fat", " 1g", "5%", "Trans Fat", " 0g",
		"Cholesterol", " 0mg", "0%", "Sodium", " 160mg", "7%", "Total Carbohydrate", " 37g", "13%", "Dietary Fiber", " 4g", "14%",
		"Total Sugars", " 12g", "Includes 10g", " Added Sugars", "20%", "Protein", " 3g", "Vitamin D 2mcg", "10%",
		"Calcium 260mg", "20%", "Iron 8.1mg", "45%", "Potassium 240mg", "6%", "Contains: Milk, Wheat, Soy"}
	rest := text
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("PDF text lacks %q after what came before:\n%s", w, text)
		}
		rest = rest[i+len(w):]
	}
	if !strings.Contains(text, "2,000 calories a") {
		t.Errorf("no footnote: %s", text)
	}
}
