package hl7

import (
	"slices"
	"testing"
)

func TestMapAllergen(t *testing.T) {
	A := func(a ...Allergen) []Allergen { return a }
	tests := []struct {
		cat    AllergyCategory
		code   string
		text   string
		status MatchStatus
		want   []Allergen
	}{
		// FDA major nine, codes and texts as feeds send them.
		{CategoryFood, "PEANUT", "", StatusMapped, A(AllergenPeanuts)},
		{CategoryFood, "", "Peanuts", StatusMapped, A(AllergenPeanuts)},
		{CategoryFood, "", "groundnut oil", StatusMapped, A(AllergenPeanuts)},
		{CategoryFood, "", "PEANUT BUTTER", StatusMapped, A(AllergenPeanuts)},
		{CategoryFood, "762952008", "Peanut (substance)", StatusMapped, A(AllergenPeanuts)},
		{CategoryFood, "91935009", "", StatusMapped, A(AllergenPeanuts)},
		{CategoryFood, "", "Milk", StatusMapped, A(AllergenMilk)},
		{CategoryFood, "", "dairy", StatusMapped, A(AllergenMilk)},
		{CategoryFood, "", "Lactose intolerance", StatusMapped, A(AllergenMilk)},
		{CategoryFood, "", "Cow's milk", StatusMapped, A(AllergenMilk)},
		{CategoryFood, "", "COWS MILK PROTEIN", StatusMapped, A(AllergenMilk)},
		{CategoryFood, "3718001", "", StatusMapped, A(AllergenMilk)},
		{CategoryFood, "", "eggs", StatusMapped, A(AllergenEgg)},
		{CategoryFood, "EGG", "Egg White", StatusMapped, A(AllergenEgg)},
		{CategoryFood, "", "FISH", StatusMapped, A(AllergenFish)},
		{CategoryFood, "", "salmon", StatusMapped, A(AllergenFish)},
		{CategoryFood, "", "Anchovies", StatusMapped, A(AllergenFish)},
		{CategoryFood, "", "SHELLFISH", StatusMapped, A(AllergenCrustaceanShellfish)},
		{CategoryFood, "", "Shrimp", StatusMapped, A(AllergenCrustaceanShellfish)},
		{CategoryFood, "", "crab", StatusMapped, A(AllergenCrustaceanShellfish)},
		{CategoryFood, "", "LOBSTER", StatusMapped, A(AllergenCrustaceanShellfish)},
		{CategoryFood, "", "prawns", StatusMapped, A(AllergenCrustaceanShellfish)},
		{CategoryFood, "", "walnut", StatusMapped, A(AllergenTreeNuts)},
		{CategoryFood, "", "Almonds", StatusMapped, A(AllergenTreeNuts)},
		{CategoryFood, "", "cashews", StatusMapped, A(AllergenTreeNuts)},
		{CategoryFood, "", "PECAN", StatusMapped, A(AllergenTreeNuts)},
		{CategoryFood, "", "hazelnut", StatusMapped, A(AllergenTreeNuts)},
		{CategoryFood, "", "Pistachio", StatusMapped, A(AllergenTreeNuts)},
		{CategoryFood, "", "TREE NUTS", StatusMapped, A(AllergenTreeNuts)},
		{CategoryFood, "", "Nuts", StatusMapped, A(AllergenTreeNuts, AllergenPeanuts)},
		{CategoryFood, "", "Wheat", StatusMapped, A(AllergenWheat)},
		{CategoryFood, "", "soybean", StatusMapped, A(AllergenSoy)},
		{CategoryFood, "", "Soya", StatusMapped, A(AllergenSoy)},
		{CategoryFood, "", "SOY LECITHIN", StatusMapped, A(AllergenSoy)},
		{CategoryFood, "", "sesame seed", StatusMapped, A(AllergenSesame)},
		{CategoryFood, "", "Sesame Seeds", StatusMapped, A(AllergenSesame)},
		{CategoryFood, "", "tahini", StatusMapped, A(AllergenSesame)},
		// EU fourteen and others.
		{CategoryFood, "", "gluten", StatusMapped, A(AllergenGluten)},
		{CategoryFood, "", "Celiac disease", StatusMapped, A(AllergenGluten)},
		{CategoryFood, "", "barley", StatusMapped, A(AllergenGluten)},
		{CategoryFood, "", "spelt", StatusMapped, A(AllergenWheat, AllergenGluten)},
		{CategoryFood, "", "Mustard", StatusMapped, A(AllergenMustard)},
		{CategoryFood, "", "celery", StatusMapped, A(AllergenCelery)},
		{CategoryFood, "", "Lupine", StatusMapped, A(AllergenLupin)},
		{CategoryFood, "", "oysters", StatusMapped, A(AllergenMolluscs)},
		{CategoryFood, "", "Squid (calamari)", StatusMapped, A(AllergenMolluscs)},
		{CategoryFood, "", "Sulfites", StatusMapped, A(AllergenSulphites)},
		{CategoryFood, "", "sodium metabisulfite", StatusMapped, A(AllergenSulphites)},
		{CategoryFood, "", "CORN", StatusMapped, A(AllergenCorn)},
		{CategoryFood, "", "coconut", StatusMapped, A(AllergenCoconut)},
		{CategoryFood, "", "Strawberries", StatusMapped, A(AllergenStrawberry)},
		{CategoryFood, "", "tomatoes", StatusMapped, A(AllergenTomato)},
		{CategoryFood, "", "Alpha-gal", StatusMapped, A(AllergenAlphaGal)},
		{CategoryFood, "", "Red dye #40", StatusMapped, A(AllergenFoodDye)},
		{CategoryFood, "", "MSG", StatusMapped, A(AllergenMSG)},
		{CategoryEnvironmental, "", "LATEX", StatusMapped, A(AllergenLatex)},
		// Several in one text, combined with the code, de-duplicated.
		{CategoryFood, "", "Milk, eggs and peanuts", StatusMapped, A(AllergenMilk, AllergenEgg, AllergenPeanuts)},
		{CategoryFood, "", "SHELLFISH/FISH", StatusMapped, A(AllergenCrustaceanShellfish, AllergenFish)},
		{CategoryFood, "SEAFOOD", "Seafood", StatusMapped, A(AllergenFish, AllergenCrustaceanShellfish, AllergenMolluscs)},
		{CategoryFood, "PEANUT", "Peanuts - anaphylaxis; also walnuts", StatusMapped, A(AllergenPeanuts, AllergenTreeNuts)},
		{CategoryUnknown, "", "PEANUT", StatusMapped, A(AllergenPeanuts)},
		{CategoryMisc, "F0012", "Wheat flour", StatusMapped, A(AllergenWheat)},
		// Words containing allergen words.
		{CategoryFood, "", "eggplant", StatusUnmapped, nil},
		{CategoryFood, "", "Nutmeg", StatusUnmapped, nil},
		{CategoryFood, "", "buckwheat", StatusUnmapped, nil},
		{CategoryFood, "", "water chestnut", StatusUnmapped, nil},
		{CategoryFood, "", "coconut milk", StatusMapped, A(AllergenCoconut)},
		{CategoryFood, "", "almond milk", StatusMapped, A(AllergenTreeNuts)},
		{CategoryFood, "", "Sulfa", StatusUnmapped, nil},
		// Unrecognised food: kept for review.
		{CategoryFood, "F9999", "Dragon fruit", StatusUnmapped, nil},
		{CategoryFood, "", "", StatusUnmapped, nil},
		// Drug allergies are not food, whatever the text.
		{CategoryDrug, "70618", "Penicillin", StatusNotApplicable, nil},
		{CategoryDrug, "", "Shellfish (iodine contrast)", StatusNotApplicable, nil},
		// Unrecognised environmental allergens are not food either.
		{CategoryEnvironmental, "", "Cat dander", StatusNotApplicable, nil},
		// Statements of no allergy.
		{CategoryMisc, "NKA", "No Known Allergies", StatusNoneKnown, nil},
		{CategoryUnknown, "", "NKFA", StatusNoneKnown, nil},
		{CategoryUnknown, "", "NKA/NKDA", StatusNoneKnown, nil},
		{CategoryUnknown, "", "NKDA", StatusNotApplicable, nil},
	}
	for _, tt := range tests {
		got := MapAllergen(tt.cat, CodedValue{Code: tt.code, Text: tt.text})
		if got.Status != tt.status || !slices.Equal(got.Allergens, tt.want) {
			t.Errorf("MapAllergen(%s, %q, %q) = %s %v, want %s %v", tt.cat, tt.code, tt.text, got.Status, got.Allergens, tt.status, tt.want)
		}
		if got.Mapped() != (tt.status == StatusMapped) {
			t.Errorf("Mapped() disagrees with Status for %q", tt.text)
		}
	}
}

func TestMapAllergenSource(t *testing.T) {
	tests := []struct {
		code, text string
		want       MatchSource
	}{
		{"3718001", "", MatchedByCode},
		{"3718001", "Milk", MatchedByBoth},
		{"MILK", "", MatchedByMnemonic},
		{"12345", "milk", MatchedByText},
		{"MILK", "cow milk", MatchedByBoth},
	}
	for _, tt := range tests {
		if got := MapAllergen(CategoryFood, CodedValue{Code: tt.code, Text: tt.text}).By; got != tt.want {
			t.Errorf("%q/%q matched by %q, want %q", tt.code, tt.text, got, tt.want)
		}
	}
}

func TestMapAllergenResultIsSafeToAppend(t *testing.T) {
	a := MapAllergen(CategoryFood, CodedValue{Text: "peanut"})
	_ = append(a.Allergens, AllergenMilk)
	if b := MapAllergen(CategoryFood, CodedValue{Text: "peanut"}); !slices.Equal(b.Allergens, []Allergen{AllergenPeanuts}) {
		t.Fatalf("appending to a result changed the table: %v", b.Allergens)
	}
}

func TestNormalizeSeverity(t *testing.T) {
	tests := map[string]Severity{
		"SV": SeveritySevere, "sv": SeveritySevere, "Severe": SeveritySevere, "HIGH": SeveritySevere, "Anaphylaxis": SeveritySevere,
		"MO": SeverityModerate, "moderate": SeverityModerate, "Medium": SeverityModerate,
		"MI": SeverityMild, "Mild": SeverityMild, "LOW": SeverityMild,
		"U": SeverityUnknown, "": SeverityUnknown, "M": SeverityUnknown, "?": SeverityUnknown,
	}
	for in, want := range tests {
		if got := NormalizeSeverity(in); got != want {
			t.Errorf("NormalizeSeverity(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestNormalizeAllergyCategory(t *testing.T) {
	tests := map[string]AllergyCategory{
		"FA": CategoryFood, "food": CategoryFood, "Food Allergy": CategoryFood,
		"DA": CategoryDrug, "DRUG": CategoryDrug, "Medication": CategoryDrug,
		"EA": CategoryEnvironmental, "LA": CategoryEnvironmental, "Pollen": CategoryEnvironmental, "AA": CategoryEnvironmental,
		"MA": CategoryMisc, "MC": CategoryMisc, "Miscellaneous": CategoryMisc,
		"": CategoryUnknown, "ZZ": CategoryUnknown,
	}
	for in, want := range tests {
		if got := NormalizeAllergyCategory(in); got != want {
			t.Errorf("NormalizeAllergyCategory(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestMappingTablesHaveNoDuplicates(t *testing.T) {
	if len(allergenWords.dups) > 0 {
		t.Errorf("allergen phrases listed twice: %q", allergenWords.dups)
	}
	if len(dietWords.dups) > 0 {
		t.Errorf("diet phrases listed twice: %q", dietWords.dups)
	}
}
