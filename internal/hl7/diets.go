package hl7

import (
	"strconv"
	"strings"

	"github.com/sous-app/sous/internal/memo"
)

// Diet is the Sous diet vocabulary. Texture and thickness use IDDSI levels
// (International Dysphagia Diet Standardisation Initiative), which replaced
// the National Dysphagia Diet in most hospitals.
type Diet string

const (
	DietNPO                    Diet = "npo"
	DietRegular                Diet = "regular"
	DietClearLiquid            Diet = "clear_liquid"
	DietFullLiquid             Diet = "full_liquid"
	DietConsistentCarbohydrate Diet = "consistent_carbohydrate"
	DietCardiac                Diet = "cardiac"
	DietRenal                  Diet = "renal"
	DietLowSodium              Diet = "low_sodium"
	DietLowPotassium           Diet = "low_potassium"
	DietGlutenFree             Diet = "gluten_free"
	DietLowFat                 Diet = "low_fat"
	DietLowFiber               Diet = "low_fiber"
	DietHighProtein            Diet = "high_protein"
	DietFluidRestriction       Diet = "fluid_restriction"
	DietNeutropenic            Diet = "neutropenic"
	DietVegetarian             Diet = "vegetarian"
	DietVegan                  Diet = "vegan"
	DietHalal                  Diet = "halal"
	DietKosher                 Diet = "kosher"
	DietLactoseFree            Diet = "lactose_free"
	DietDairyFree              Diet = "dairy_free"
	DietNutFree                Diet = "nut_free"
	DietTubeFeeding            Diet = "tube_feeding"
	DietOralSupplement         Diet = "oral_supplement"

	DietIDDSIFood3   Diet = "iddsi_food_3"   // liquidised
	DietIDDSIFood4   Diet = "iddsi_food_4"   // pureed
	DietIDDSIFood5   Diet = "iddsi_food_5"   // minced & moist
	DietIDDSIFood6   Diet = "iddsi_food_6"   // soft & bite-sized
	DietIDDSIFood7   Diet = "iddsi_food_7"   // regular
	DietIDDSIFood7EC Diet = "iddsi_food_7ec" // easy to chew

	DietIDDSIDrink0 Diet = "iddsi_drink_0" // thin
	DietIDDSIDrink1 Diet = "iddsi_drink_1" // slightly thick
	DietIDDSIDrink2 Diet = "iddsi_drink_2" // mildly thick (was "nectar thick")
	DietIDDSIDrink3 Diet = "iddsi_drink_3" // moderately thick (was "honey thick")
	DietIDDSIDrink4 Diet = "iddsi_drink_4" // extremely thick (was "pudding/spoon thick")
)

// DietMatch is the result of MapDiet.
type DietMatch struct {
	Status MatchStatus
	Diets  []Diet // read-only; shared with the mapping table
	By     MatchSource
}

// Mapped reports whether at least one diet was recognised.
func (m DietMatch) Mapped() bool { return m.Status == StatusMapped }

// MapDiet maps an ODS-3 diet, supplement or preference code to the Sous
// vocabulary. Diet codes are local to each hospital, so the identifier is
// read as words ("CL LIQ", "CCHO", "2GM NA") and so is the text; the results
// are combined, so "CARDIAC 2GM NA" gives cardiac and low_sodium.
// Unrecognised codes are StatusUnmapped with the original kept for review.
//
// Choices worth knowing:
//   - Any mention of sodium or salt ("2GM NA", "NAS", "no added salt")
//     means low_sodium; numbers such as 1800 kcal are not kept.
//   - "ADA", "diabetic", "CCHO", "carb controlled" mean
//     consistent_carbohydrate.
//   - "Mechanical soft" (and NDD 3 "dysphagia advanced", "chopped") means
//     iddsi_food_6 soft & bite-sized; "ground", "minced" and NDD 2
//     "mechanically altered" mean iddsi_food_5 minced & moist; "pureed" and
//     NDD 1 mean iddsi_food_4. Facilities that serve mechanical soft as
//     ground meat should send an explicit IDDSI level.
//   - "Nectar thick" is iddsi_drink_2, "honey thick" iddsi_drink_3,
//     "pudding"/"spoon thick" iddsi_drink_4, "thin liquids" iddsi_drink_0.
//     "Honey" and "pudding" alone are foods, not thicknesses.
//   - IDDSI levels 3 and 4 exist for both food and drink; "IDDSI 4" with no
//     word such as food, drink, liquid, pureed or extremely thick is left
//     unmapped rather than guessed. Levels 0–2 are always drinks, 5–7 food.
//   - "Advance diet as tolerated" is unmapped: it starts from liquids, and
//     guessing regular could harm.
func MapDiet(code CodedValue) DietMatch {
	key := memoKey{code: code.Code, text: code.Text}
	if m, ok := dietMemo.Get(key); ok {
		return m
	}
	m := mapDiet(code)
	if len(code.Code)+len(code.Text) <= memoMaxKey {
		dietMemo.Put(key.clone(), m)
	}
	return m
}

var dietMemo memo.Map[memoKey, DietMatch]

func mapDiet(code CodedValue) DietMatch {
	var h hits[Diet]
	by := MatchSource("")
	if c := strings.TrimSpace(code.Code); hasLetter(c) {
		dietWords.find(c, &h)
		if !h.empty() {
			by = MatchedByMnemonic
		}
	}
	before := h.n + len(h.more)
	dietWords.find(code.Text, &h)
	if h.n+len(h.more) > before {
		if by == "" {
			by = MatchedByText
		} else {
			by = MatchedByBoth
		}
	}
	if list := h.result(); len(list) > 0 {
		return DietMatch{Status: StatusMapped, Diets: list, By: by}
	}
	return DietMatch{Status: StatusUnmapped}
}

var dietWords = newMatcher(append([]phrase[Diet]{
	{[]Diet{DietNPO}, []string{
		"npo", "nothing by mouth", "nil by mouth", "nbm", "nil per os", "nothing per os", "npo after midnight",
	}},
	{[]Diet{DietRegular}, []string{
		"regular", "reg", "regular diet", "general", "general diet", "house", "house diet", "normal diet",
		"standard diet", "diet as tolerated", "dat", "no restrictions", "no restriction",
	}},
	{[]Diet{DietClearLiquid}, []string{
		"clear liquid", "clear liq", "clr liq", "cl liq", "cl liquid", "clear fluid", "clear", "clears", "cld",
	}},
	{[]Diet{DietFullLiquid}, []string{
		"full liquid", "full liq", "fl liq", "full fluid", "fld",
	}},
	{[]Diet{DietConsistentCarbohydrate}, []string{
		"consistent carbohydrate", "consistent carb", "cons carb", "carb consistent", "carbohydrate consistent",
		"carbohydrate controlled", "carb controlled", "carb control", "controlled carbohydrate", "carb count",
		"ccho", "cho", "diabetic", "diabetes", "ada", "dm",
	}},
	{[]Diet{DietCardiac}, []string{
		"cardiac", "heart healthy", "heart", "low cholesterol", "low chol", "cardiac prudent",
	}},
	{[]Diet{DietRenal}, []string{
		"renal", "dialysis", "hemodialysis", "haemodialysis", "ckd", "esrd", "kidney",
	}},
	{[]Diet{DietLowSodium}, []string{
		"na", "gna", "gmna", "sodium", "salt", "low sodium", "low salt", "no added salt", "nas", "no salt", "sodium restricted",
	}},
	// "K" alone is not listed: "1800K" would read as potassium.
	{[]Diet{DietLowPotassium}, []string{
		"potassium", "low potassium", "low k", "k restricted", "g k", "gm k", "gram k", "mg k", "meq k", "gk", "gmk",
	}},
	{[]Diet{DietGlutenFree}, []string{
		"gluten free", "gf", "celiac", "coeliac", "gluten restricted", "no gluten", "gluten",
	}},
	{[]Diet{DietLowFat}, []string{"low fat", "lowfat", "fat restricted", "fat controlled", "reduced fat"}},
	{[]Diet{DietLowFat, DietCardiac}, []string{"low fat low cholesterol", "low fat low chol"}},
	{[]Diet{DietLowFiber}, []string{
		"low fiber", "low fibre", "low residue", "minimal residue", "fiber restricted", "low res",
	}},
	{[]Diet{DietHighProtein}, []string{
		"high protein", "hi protein", "hi pro", "protein enhanced", "high calorie high protein", "hchp",
	}},
	// "CC" is not listed as carbohydrate: "1500CC FR" is far commoner.
	{[]Diet{DietFluidRestriction}, []string{
		"fluid restriction", "fluid restricted", "fluid restrict", "restricted fluid", "fluid limit", "fr",
		"cc fr", "ml fr", "cc fluid", "ml fluid",
	}},
	{[]Diet{DietNeutropenic}, []string{"neutropenic", "low microbial", "low bacteria", "low bacterial"}},
	{[]Diet{DietVegetarian}, []string{
		"vegetarian", "veg", "veggie", "lacto ovo", "ovo lacto", "lacto ovo vegetarian", "lacto vegetarian",
		"ovo vegetarian",
	}},
	{[]Diet{DietVegan}, []string{"vegan", "strict vegetarian", "total vegetarian", "plant based"}},
	{[]Diet{DietHalal}, []string{"halal"}},
	{[]Diet{DietKosher}, []string{"kosher"}},
	{[]Diet{DietLactoseFree}, []string{
		"lactose free", "lactose restricted", "no lactose", "low lactose", "lactose intolerant", "lactose",
	}},
	{[]Diet{DietDairyFree}, []string{"dairy free", "no dairy", "milk free", "no milk"}},
	{[]Diet{DietNutFree}, []string{
		"nut free", "no nut", "no nuts", "peanut free", "tree nut free", "nut restricted", "no peanut",
		"peanut restricted",
	}},
	{[]Diet{DietTubeFeeding}, []string{
		"tube feeding", "tube feed", "tf", "enteral", "enteral feeding", "enteral nutrition", "peg feeding",
	}},
	{[]Diet{DietOralSupplement}, []string{
		"oral supplement", "nutritional supplement", "supplement", "ons", "ensure", "ensure plus",
		"boost", "boost plus", "glucerna", "nepro", "juven", "magic cup", "prosource",
	}},

	{[]Diet{DietIDDSIFood3}, []string{"liquidised", "liquidized", "lq 3", "blenderized", "blenderised"}},
	{[]Diet{DietIDDSIFood4}, []string{
		"pureed", "puree", "pu 4", "dysphagia pureed", "dysphagia 1", "dysphagia level 1", "ndd 1",
	}},
	{[]Diet{DietIDDSIFood5}, []string{
		"minced and moist", "minced moist", "minced", "mm 5", "ground", "mech soft ground",
		"mechanical soft ground", "mechanically altered", "dysphagia mechanically altered", "dysphagia 2",
		"dysphagia level 2", "ndd 2",
	}},
	{[]Diet{DietIDDSIFood6}, []string{
		"soft and bite sized", "soft bite sized", "soft bite size", "bite sized", "sb 6", "mech soft",
		"mechanical soft", "mechanically soft", "chopped", "dysphagia advanced", "dysphagia 3",
		"dysphagia level 3", "ndd 3",
	}},
	{[]Diet{DietIDDSIFood7}, []string{"regular texture", "regular consistency", "rg 7"}},
	{[]Diet{DietIDDSIFood7EC}, []string{"easy to chew", "easy chew", "ec 7", "7 ec"}},
	{[]Diet{DietIDDSIDrink0}, []string{
		"thin", "thin liquid", "thin liquids", "thin fluids", "tn 0", "regular liquid", "regular liquids",
	}},
	{[]Diet{DietIDDSIDrink1}, []string{"slightly thick", "slightly thickened", "st 1"}},
	{[]Diet{DietIDDSIDrink2}, []string{
		"mildly thick", "mildly thickened", "mt 2", "nectar", "nectar thick", "nectar thickened",
		"nectar thick liquid", "nectar consistency", "nectar liquid",
	}},
	{[]Diet{DietIDDSIDrink3}, []string{
		"moderately thick", "moderately thickened", "mo 3", "honey thick", "honey thickened",
		"honey thick liquid", "honey consistency", "honey liquid",
	}},
	{[]Diet{DietIDDSIDrink4}, []string{
		"extremely thick", "extremely thickened", "ex 4", "pudding thick", "pudding thick liquid",
		"pudding consistency", "pudding liquid", "spoon thick",
	}},
	// Recognised, deliberately meaning nothing.
	{nil, []string{
		"advance diet as tolerated", "adat", "advance as tolerated", "diet", "thickened liquid",
		"thickened liquids", "no honey", "low protein", "honey", "pudding",
	}},
}, iddsiPhrases()...))

// iddsiPhrases spells out the ways feeds write IDDSI levels ("IDDSI 5",
// "IDDSI Level 6 Food", "Level 2 drinks", "L4"). Levels 3 and 4 exist for
// both food and drink, so without a qualifier they are recognised but mean
// nothing (see MapDiet).
func iddsiPhrases() []phrase[Diet] {
	food := [8]Diet{"", "", "", DietIDDSIFood3, DietIDDSIFood4, DietIDDSIFood5, DietIDDSIFood6, DietIDDSIFood7}
	drink := [8]Diet{DietIDDSIDrink0, DietIDDSIDrink1, DietIDDSIDrink2, DietIDDSIDrink3, DietIDDSIDrink4}
	prefixes := []string{"iddsi", "iddsi level", "level", "lvl", "iddsi lvl", "l"}
	foodWords := []string{"food", "foods", "solid", "solids", "diet", "texture"}
	drinkWords := []string{"drink", "drinks", "liquid", "liquids", "fluid", "fluids", "beverage", "beverages"}

	var out []phrase[Diet]
	for lvl := 0; lvl <= 7; lvl++ {
		n := strconv.Itoa(lvl)
		var bare, withFood, withDrink []string
		for _, p := range prefixes {
			bare = append(bare, p+" "+n)
			for _, w := range foodWords {
				withFood = append(withFood, p+" "+n+" "+w)
			}
			for _, w := range drinkWords {
				withDrink = append(withDrink, p+" "+n+" "+w)
			}
		}
		// Qualifier first: "IDDSI Food Level 5", "Drinks Level 2".
		for _, w := range foodWords {
			withFood = append(withFood, "iddsi "+w+" level "+n, "iddsi "+w+" "+n, w+" level "+n)
		}
		for _, w := range drinkWords {
			withDrink = append(withDrink, "iddsi "+w+" level "+n, "iddsi "+w+" "+n, w+" level "+n)
		}
		var bareTarget []Diet
		switch {
		case lvl <= 2:
			bareTarget = []Diet{drink[lvl]}
		case lvl >= 5:
			bareTarget = []Diet{food[lvl]}
		}
		out = append(out, phrase[Diet]{bareTarget, bare})
		if food[lvl] != "" {
			out = append(out, phrase[Diet]{[]Diet{food[lvl]}, withFood})
		}
		if drink[lvl] != "" {
			out = append(out, phrase[Diet]{[]Diet{drink[lvl]}, withDrink})
		}
	}
	var ec []string
	for _, p := range prefixes {
		ec = append(ec, p+" 7 ec", p+" 7 easy to chew", p+" 7 ec food")
	}
	ec = append(ec, "iddsi food level 7 ec", "iddsi food 7 ec", "food level 7 ec")
	return append(out, phrase[Diet]{[]Diet{DietIDDSIFood7EC}, ec})
}
