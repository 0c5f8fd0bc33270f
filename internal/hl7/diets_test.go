package hl7

import (
	"slices"
	"testing"
)

func TestMapDiet(t *testing.T) {
	D := func(d ...Diet) []Diet { return d }
	tests := []struct {
		code, text string
		status     MatchStatus
		want       []Diet
	}{
		{"NPO", "", StatusMapped, D(DietNPO)},
		{"", "NOTHING BY MOUTH", StatusMapped, D(DietNPO)},
		{"NPO", "NPO after midnight except meds", StatusMapped, D(DietNPO)},
		{"REG", "", StatusMapped, D(DietRegular)},
		{"", "Regular Diet", StatusMapped, D(DietRegular)},
		{"", "General", StatusMapped, D(DietRegular)},
		{"CL LIQ", "", StatusMapped, D(DietClearLiquid)},
		{"CLRLIQ", "Clear Liquids", StatusMapped, D(DietClearLiquid)},
		{"FL LIQ", "", StatusMapped, D(DietFullLiquid)},
		{"", "Full Liquid Diet", StatusMapped, D(DietFullLiquid)},
		{"CCHO", "", StatusMapped, D(DietConsistentCarbohydrate)},
		{"ADA 1800", "", StatusMapped, D(DietConsistentCarbohydrate)},
		{"ADA1800", "1800 Calorie ADA", StatusMapped, D(DietConsistentCarbohydrate)},
		{"", "Diabetic", StatusMapped, D(DietConsistentCarbohydrate)},
		{"", "Carb Controlled 60g/meal", StatusMapped, D(DietConsistentCarbohydrate)},
		{"2GM NA", "", StatusMapped, D(DietLowSodium)},
		{"2GNA", "", StatusMapped, D(DietLowSodium)},
		{"", "2 gram sodium", StatusMapped, D(DietLowSodium)},
		{"NAS", "No Added Salt", StatusMapped, D(DietLowSodium)},
		{"RENAL", "", StatusMapped, D(DietRenal)},
		{"", "Renal 2gm Na 2gm K 1200ml fluid restriction", StatusMapped, D(DietRenal, DietLowSodium, DietLowPotassium, DietFluidRestriction)},
		{"", "HEART HEALTHY", StatusMapped, D(DietCardiac)},
		{"CARD", "Cardiac 2gm Na", StatusMapped, D(DietCardiac, DietLowSodium)},
		{"", "Low Fat Low Cholesterol", StatusMapped, D(DietLowFat, DietCardiac)},
		{"", "CARDIAC/CCHO 2GM NA", StatusMapped, D(DietCardiac, DietConsistentCarbohydrate, DietLowSodium)},
		{"GF", "Gluten Free", StatusMapped, D(DietGlutenFree)},
		{"", "Celiac", StatusMapped, D(DietGlutenFree)},
		{"", "Low Residue", StatusMapped, D(DietLowFiber)},
		{"", "high protein", StatusMapped, D(DietHighProtein)},
		{"", "1500cc FR", StatusMapped, D(DietFluidRestriction)},
		{"", "Neutropenic", StatusMapped, D(DietNeutropenic)},
		{"", "Lacto-ovo vegetarian", StatusMapped, D(DietVegetarian)},
		{"VEGAN", "", StatusMapped, D(DietVegan)},
		{"", "Halal", StatusMapped, D(DietHalal)},
		{"", "KOSHER", StatusMapped, D(DietKosher)},
		{"", "Lactose Free", StatusMapped, D(DietLactoseFree)},
		{"", "Dairy free", StatusMapped, D(DietDairyFree)},
		{"", "No Nuts", StatusMapped, D(DietNutFree)},
		{"", "Tube feeding - Jevity 1.5 @ 60ml/hr", StatusMapped, D(DietTubeFeeding)},
		{"ENSURE", "Ensure Plus TID", StatusMapped, D(DietOralSupplement)},
		// Texture and thickness.
		{"MECH SOFT", "", StatusMapped, D(DietIDDSIFood6)},
		{"", "Mechanical Soft", StatusMapped, D(DietIDDSIFood6)},
		{"", "Dysphagia Advanced (NDD3)", StatusMapped, D(DietIDDSIFood6)},
		{"", "Soft & Bite-Sized", StatusMapped, D(DietIDDSIFood6)},
		{"SB6", "", StatusMapped, D(DietIDDSIFood6)},
		{"", "IDDSI Level 6 Soft and Bite Sized", StatusMapped, D(DietIDDSIFood6)},
		{"", "Minced & Moist", StatusMapped, D(DietIDDSIFood5)},
		{"MM5", "", StatusMapped, D(DietIDDSIFood5)},
		{"", "Dysphagia Mechanically Altered", StatusMapped, D(DietIDDSIFood5)},
		{"", "Pureed", StatusMapped, D(DietIDDSIFood4)},
		{"PU4", "", StatusMapped, D(DietIDDSIFood4)},
		{"", "Level 4 Pureed", StatusMapped, D(DietIDDSIFood4)},
		{"", "IDDSI 4 food", StatusMapped, D(DietIDDSIFood4)},
		{"", "Liquidised", StatusMapped, D(DietIDDSIFood3)},
		{"", "IDDSI Food Level 3", StatusMapped, D(DietIDDSIFood3)},
		{"", "Easy to Chew", StatusMapped, D(DietIDDSIFood7EC)},
		{"7EC", "", StatusMapped, D(DietIDDSIFood7EC)},
		{"", "IDDSI 7EC", StatusMapped, D(DietIDDSIFood7EC)},
		{"", "Regular Texture", StatusMapped, D(DietIDDSIFood7)},
		{"IDDSI7", "", StatusMapped, D(DietIDDSIFood7)},
		{"", "Thin Liquids", StatusMapped, D(DietIDDSIDrink0)},
		{"", "IDDSI 0", StatusMapped, D(DietIDDSIDrink0)},
		{"ST1", "Slightly Thick", StatusMapped, D(DietIDDSIDrink1)},
		{"", "Nectar Thick Liquids", StatusMapped, D(DietIDDSIDrink2)},
		{"", "Mildly thick", StatusMapped, D(DietIDDSIDrink2)},
		{"", "Honey thick liquids", StatusMapped, D(DietIDDSIDrink3)},
		{"", "IDDSI Level 3 Drinks", StatusMapped, D(DietIDDSIDrink3)},
		{"", "Pudding thick", StatusMapped, D(DietIDDSIDrink4)},
		{"EX4", "Extremely Thick", StatusMapped, D(DietIDDSIDrink4)},
		{"", "Regular diet, thin liquids", StatusMapped, D(DietRegular, DietIDDSIDrink0)},
		{"", "Pureed with honey thick liquids", StatusMapped, D(DietIDDSIFood4, DietIDDSIDrink3)},
		// Deliberately unmapped.
		{"", "IDDSI 4", StatusUnmapped, nil},
		{"", "Level 3", StatusUnmapped, nil},
		{"ADAT", "Advance diet as tolerated", StatusUnmapped, nil},
		{"", "Thickened liquids", StatusUnmapped, nil},
		{"", "Honey", StatusUnmapped, nil},
		{"NOPORK", "No pork - religious preference", StatusUnmapped, nil},
		{"1234", "", StatusUnmapped, nil},
		{"", "", StatusUnmapped, nil},
		{"", "CCHO 1800K", StatusMapped, D(DietConsistentCarbohydrate)},
	}
	for _, tt := range tests {
		got := MapDiet(CodedValue{Code: tt.code, Text: tt.text})
		if got.Status != tt.status || !slices.Equal(got.Diets, tt.want) {
			t.Errorf("MapDiet(%q, %q) = %s %v, want %s %v", tt.code, tt.text, got.Status, got.Diets, tt.status, tt.want)
		}
		if got.Mapped() != (tt.status == StatusMapped) {
			t.Errorf("Mapped() disagrees with Status for %q", tt.text)
		}
	}
}

func TestMapDietLongText(t *testing.T) {
	long := ""
	for range 200 {
		long += "x "
	}
	if got := MapDiet(CodedValue{Text: "NPO " + long + " regular"}); !slices.Equal(got.Diets, []Diet{DietNPO}) {
		t.Errorf("long text = %v; only the first %d bytes are read", got.Diets, matchText)
	}
}

func TestMapDietDoesNotAllocateForOneMatch(t *testing.T) {
	c := CodedValue{Code: "CCHO", Text: "Consistent Carbohydrate"}
	if n := testing.AllocsPerRun(100, func() { MapDiet(c) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
