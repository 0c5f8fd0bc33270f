package hl7

import (
	"strings"

	"github.com/sous-app/sous/internal/memo"
)

// Allergen is the Sous food-allergen vocabulary. The first nine are the US
// FDA major food allergens; the next six complete the EU/UK list of fourteen;
// the rest are what hospital allergy lists commonly carry beyond those.
type Allergen string

const (
	AllergenMilk                Allergen = "milk"
	AllergenEgg                 Allergen = "egg"
	AllergenFish                Allergen = "fish"
	AllergenCrustaceanShellfish Allergen = "crustacean_shellfish"
	AllergenTreeNuts            Allergen = "tree_nuts"
	AllergenPeanuts             Allergen = "peanuts"
	AllergenWheat               Allergen = "wheat"
	AllergenSoy                 Allergen = "soy"
	AllergenSesame              Allergen = "sesame"

	AllergenGluten    Allergen = "gluten"
	AllergenMustard   Allergen = "mustard"
	AllergenCelery    Allergen = "celery"
	AllergenLupin     Allergen = "lupin"
	AllergenMolluscs  Allergen = "molluscs"
	AllergenSulphites Allergen = "sulphites"

	AllergenCorn       Allergen = "corn"
	AllergenCoconut    Allergen = "coconut" // no longer an FDA tree nut (2025 guidance)
	AllergenStrawberry Allergen = "strawberry"
	AllergenTomato     Allergen = "tomato"
	AllergenCitrus     Allergen = "citrus"
	AllergenKiwi       Allergen = "kiwi"
	AllergenBanana     Allergen = "banana"
	AllergenChocolate  Allergen = "chocolate"
	AllergenPork       Allergen = "pork"
	AllergenBeef       Allergen = "beef"
	AllergenChicken    Allergen = "chicken"
	AllergenAlphaGal   Allergen = "alpha_gal" // mammalian meat allergy after tick bites
	AllergenGelatin    Allergen = "gelatin"
	AllergenMSG        Allergen = "msg"
	AllergenFoodDye    Allergen = "food_dye"
	// AllergenLatex is environmental, but kitchens must know: it decides the
	// gloves used on the tray, and latex allergy cross-reacts with banana,
	// kiwi and avocado.
	AllergenLatex Allergen = "latex"
)

// AllergyCategory is AL1-2 (HL7 table 0127) reduced to what Sous acts on.
type AllergyCategory string

const (
	CategoryFood          AllergyCategory = "food"          // FA
	CategoryDrug          AllergyCategory = "drug"          // DA
	CategoryEnvironmental AllergyCategory = "environmental" // EA, AA animal, PA plant, LA pollen
	CategoryMisc          AllergyCategory = "misc"          // MA, MC contraindication
	CategoryUnknown       AllergyCategory = "unknown"       // not sent or not recognised
)

// NormalizeAllergyCategory reads an AL1-2 code or its text. Feeds send the
// table 0127 code, its text, or their own word for it.
func NormalizeAllergyCategory(s string) AllergyCategory {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "FA", "F", "FOOD", "FOOD ALLERGY", "FOOD INTOLERANCE", "DIETARY":
		return CategoryFood
	case "DA", "D", "DRUG", "DRUG ALLERGY", "DRUG CLASS", "DC", "MED", "MEDICATION", "MEDICATION ALLERGY", "RX":
		return CategoryDrug
	case "EA", "E", "ENV", "ENVIRONMENT", "ENVIRONMENTAL", "ENVIRONMENTAL ALLERGY",
		"AA", "ANIMAL", "ANIMAL ALLERGY", "PA", "PLANT", "PLANT ALLERGY", "LA", "POLLEN", "POLLEN ALLERGY":
		return CategoryEnvironmental
	case "MA", "M", "MISC", "MISCELLANEOUS", "MISCELLANEOUS ALLERGY", "OTHER",
		"MC", "MISCELLANEOUS CONTRAINDICATION":
		return CategoryMisc
	}
	return CategoryUnknown
}

// Severity is AL1-4 normalised.
type Severity string

const (
	SeveritySevere   Severity = "severe"
	SeverityModerate Severity = "moderate"
	SeverityMild     Severity = "mild"
	SeverityUnknown  Severity = "unknown"
)

// NormalizeSeverity reads an AL1-4 code (table 0128: SV, MO, MI, U) or a
// text. Epic-style High/Medium/Low criticality is read as severity because
// that is how such feeds fill AL1-4. Single letters other than U are left
// unknown: "M" is mild to some senders and moderate to others.
func NormalizeSeverity(s string) Severity {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "SV", "SEVERE", "SEV", "HIGH", "HI", "LIFE THREATENING", "LIFE-THREATENING", "ANAPHYLAXIS", "ANAPHYLACTIC", "CRITICAL":
		return SeveritySevere
	case "MO", "MODERATE", "MOD", "MEDIUM", "MED":
		return SeverityModerate
	case "MI", "MILD", "LOW", "LO", "MINOR":
		return SeverityMild
	}
	return SeverityUnknown
}

// AllergenMatch is the result of MapAllergen.
type AllergenMatch struct {
	Status    MatchStatus
	Allergens []Allergen // read-only; shared with the mapping table
	By        MatchSource
}

// Mapped reports whether at least one allergen was recognised.
func (m AllergenMatch) Mapped() bool { return m.Status == StatusMapped }

// MapAllergen maps an AL1-3 allergen to the Sous vocabulary.
//
// Drug allergies are kept by the caller but not mapped (StatusNotApplicable),
// even when their text names a food: "shellfish" filed as a drug allergy is
// usually the iodine-contrast myth and belongs to pharmacy, not the kitchen.
// An environmental allergen that is not recognised is likewise not
// applicable; any other unrecognised allergen is StatusUnmapped for review.
//
// Recognition tries SNOMED CT codes, then the identifier read as words (many
// feeds send mnemonics like "PEANUT"), then the text. Words are matched
// case-insensitively with synonyms and plurals, so "Peanuts", "groundnut" and
// "PEANUT OIL" all give peanuts, while "eggplant", "nutmeg", "buckwheat" and
// "water chestnut" give nothing. Choices worth knowing:
//   - "shellfish" alone means crustacean_shellfish (its usual clinical
//     sense); "seafood" means fish, crustacean_shellfish and molluscs.
//   - "nuts" alone means tree_nuts and peanuts: the kitchen must avoid both.
//   - "lactose" and "dairy" mean milk; "gluten", "celiac", barley and rye
//     mean gluten; spelt and kamut are wheat and gluten.
//   - "No known allergies" (NKA, NKFA) gives StatusNoneKnown; "NKDA" says
//     nothing about food and gives StatusNotApplicable.
func MapAllergen(category AllergyCategory, allergen CodedValue) AllergenMatch {
	if category == CategoryDrug {
		return AllergenMatch{Status: StatusNotApplicable}
	}
	key := memoKey{category: category, code: allergen.Code, text: allergen.Text}
	if m, ok := allergenMemo.Get(key); ok {
		return m
	}
	m := mapAllergen(category, allergen)
	if len(allergen.Code)+len(allergen.Text) <= memoMaxKey {
		allergenMemo.Put(key.clone(), m)
	}
	return m
}

var allergenMemo memo.Map[memoKey, AllergenMatch]

// memoKey is what a mapping result depends on. The coding system is not
// part of it: mapping never reads it.
type memoKey struct {
	category   AllergyCategory
	code, text string
}

func (k memoKey) clone() memoKey {
	k.code, k.text = strings.Clone(k.code), strings.Clone(k.text)
	return k
}

func mapAllergen(category AllergyCategory, allergen CodedValue) AllergenMatch {
	for _, s := range [2]string{allergen.Text, allergen.Code} {
		switch noneKnown(s) {
		case StatusNoneKnown:
			return AllergenMatch{Status: StatusNoneKnown, By: MatchedByText}
		case StatusNotApplicable:
			return AllergenMatch{Status: StatusNotApplicable, By: MatchedByText}
		}
	}

	var h hits[Allergen]
	by := MatchSource("")
	code := strings.TrimSpace(allergen.Code)
	if a, ok := allergenCodes[code]; ok {
		h.add(a)
		by = MatchedByCode
	} else if hasLetter(code) {
		allergenWords.find(code, &h)
		if !h.empty() {
			by = MatchedByMnemonic
		}
	}
	before := h.n + len(h.more)
	allergenWords.find(allergen.Text, &h)
	if h.n+len(h.more) > before {
		if by == "" {
			by = MatchedByText
		} else {
			by = MatchedByBoth
		}
	}
	if list := h.result(); len(list) > 0 {
		return AllergenMatch{Status: StatusMapped, Allergens: list, By: by}
	}
	if category == CategoryEnvironmental {
		return AllergenMatch{Status: StatusNotApplicable}
	}
	return AllergenMatch{Status: StatusUnmapped}
}

// noneKnown recognises statements that there is no allergy to record.
func noneKnown(s string) MatchStatus {
	// Every phrase below starts with N; most allergens do not.
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 || s[0]|0x20 != 'n' {
		return ""
	}
	var buf [matchText + 8]byte
	switch string(normalize(buf[:0], s)) {
	case "nka", "nkfa", "no known allergies", "no known allergy", "no known food allergies",
		"no known food allergy", "none known", "no allergies", "nka nkda", "nkda nka", "nkfa nkda", "nkda nkfa",
		"no known allergies nkda":
		return StatusNoneKnown
	case "nkda", "no known drug allergies", "no known drug allergy", "nkma", "no known medication allergies":
		return StatusNotApplicable
	}
	return ""
}

// allergenCodes maps SNOMED CT codes seen in AL1-3 — substance concepts and
// the "allergy to X" disorder concepts some senders use instead.
var allergenCodes = map[string][]Allergen{
	"3718001":         {AllergenMilk},                      // Cow's milk (substance)
	"264295007":       {AllergenMilk},                      // Cow's milk protein (substance)
	"782555009":       {AllergenMilk},                      // Allergy to cow's milk protein
	"425525006":       {AllergenMilk},                      // Allergy to dairy product
	"102263004":       {AllergenEgg},                       // Eggs (edible) (substance)
	"213020009":       {AllergenEgg},                       // Allergy to egg protein
	"91930004":        {AllergenEgg},                       // Allergy to eggs
	"735971005":       {AllergenFish},                      // Fish (substance)
	"227037002":       {AllergenFish},                      // Fish - dietary (substance)
	"417532002":       {AllergenFish},                      // Allergy to fish
	"735029006":       {AllergenCrustaceanShellfish},       // Shellfish (substance)
	"300913006":       {AllergenCrustaceanShellfish},       // Shellfish allergy
	"442571000124108": {AllergenTreeNuts},                  // Tree nut (substance)
	"48821000119104":  {AllergenTreeNuts},                  // Allergy to tree nut
	"227493005":       {AllergenTreeNuts},                  // Cashew nuts (substance)
	"762952008":       {AllergenPeanuts},                   // Peanut (substance)
	"256349002":       {AllergenPeanuts},                   // Peanut - dietary (substance)
	"91935009":        {AllergenPeanuts},                   // Allergy to peanuts
	"91934008":        {AllergenTreeNuts, AllergenPeanuts}, // Allergy to nut
	"412071004":       {AllergenWheat},                     // Wheat (substance)
	"420174000":       {AllergenWheat},                     // Allergy to wheat
	"256355007":       {AllergenSoy},                       // Glycine max (soya bean) (substance)
	"782594005":       {AllergenSoy},                       // Allergy to soy protein
	"714035009":       {AllergenSoy},                       // Allergy to soya
	"260167008":       {AllergenSesame},                    // Sesame seed (substance)
	"21191000122102":  {AllergenMustard},                   // Allergy to mustard
	"712843002":       {AllergenCelery},                    // Allergy to celery
	"782575000":       {AllergenLupin},                     // Allergy to lupine seed
	"111088007":       {AllergenLatex},                     // Latex (substance)
	"300916003":       {AllergenLatex},                     // Latex allergy
}

var allergenWords = newMatcher([]phrase[Allergen]{
	{[]Allergen{AllergenMilk}, []string{
		"milk", "dairy", "dairy product", "lactose", "lactose intolerance", "lactose intolerant",
		"cow milk", "cows milk", "milk protein", "cow milk protein", "casein", "caseinate", "whey",
		"lactalbumin", "lactoglobulin", "cheese", "yogurt", "yoghurt", "cream", "ice cream", "ghee",
	}},
	{[]Allergen{AllergenEgg}, []string{
		"egg", "eggs", "egg white", "egg yolk", "egg protein", "ovalbumin", "ovomucoid",
	}},
	{[]Allergen{AllergenFish}, []string{
		"fish", "finfish", "fin fish", "cod", "codfish", "salmon", "tuna", "tilapia", "halibut", "trout",
		"catfish", "haddock", "pollock", "sardine", "anchovy", "anchovies", "mackerel", "herring",
		"swordfish", "flounder", "bass", "snapper", "mahi", "fish oil", "fish sauce",
	}},
	{[]Allergen{AllergenCrustaceanShellfish}, []string{
		"shellfish", "shell fish", "crustacean", "crustacea", "shrimp", "prawn", "crab", "lobster", "crayfish",
		"crawfish", "langoustine", "krill", "scampi",
	}},
	{[]Allergen{AllergenFish, AllergenCrustaceanShellfish, AllergenMolluscs}, []string{"seafood", "sea food"}},
	{[]Allergen{AllergenMolluscs}, []string{
		"mollusc", "mollusk", "molluscan shellfish", "clam", "oyster", "mussel", "scallop", "squid",
		"calamari", "octopus", "snail", "escargot", "abalone", "cockle", "whelk", "cuttlefish",
	}},
	{[]Allergen{AllergenTreeNuts}, []string{
		"tree nut", "treenut", "almond", "almond milk", "brazil nut", "cashew", "chestnut", "hazelnut", "filbert",
		"macadamia", "pecan", "pine nut", "pinon", "pistachio", "walnut", "beechnut", "hickory nut",
		"marzipan", "praline",
	}},
	{[]Allergen{AllergenTreeNuts, AllergenPeanuts}, []string{"nut", "mixed nut", "nut allergy"}},
	{[]Allergen{AllergenPeanuts}, []string{
		"peanut", "peanut oil", "peanut butter", "groundnut", "ground nut", "arachis", "arachis oil",
		"monkey nut", "goober",
	}},
	{[]Allergen{AllergenWheat}, []string{
		"wheat", "whole wheat", "wheat flour", "semolina", "durum", "farina", "bulgur", "couscous", "cream of wheat",
	}},
	{[]Allergen{AllergenWheat, AllergenGluten}, []string{"spelt", "kamut", "wheat gluten"}},
	{[]Allergen{AllergenGluten}, []string{
		"gluten", "celiac", "coeliac", "celiac disease", "coeliac disease", "gluten intolerance",
		"gluten sensitivity", "gluten enteropathy", "gliadin", "barley", "rye",
	}},
	{[]Allergen{AllergenSoy}, []string{
		"soy", "soya", "soybean", "soy bean", "soya bean", "soy protein", "soy lecithin", "soy milk",
		"soy sauce", "edamame", "tofu", "miso", "tempeh", "glycine max",
	}},
	{[]Allergen{AllergenSesame}, []string{"sesame", "sesame seed", "sesame oil", "tahini", "benne", "gingelly"}},
	{[]Allergen{AllergenMustard}, []string{"mustard", "mustard seed"}},
	{[]Allergen{AllergenCelery}, []string{"celery", "celeriac", "celery seed"}},
	{[]Allergen{AllergenLupin}, []string{"lupin", "lupine", "lupini", "lupin flour"}},
	{[]Allergen{AllergenSulphites}, []string{
		"sulphite", "sulfite", "sulphites", "sulfites", "sulphur dioxide", "sulfur dioxide", "metabisulfite",
		"metabisulphite", "sodium metabisulfite", "bisulfite", "bisulphite",
	}},
	{[]Allergen{AllergenCorn}, []string{
		"corn", "maize", "cornstarch", "corn starch", "corn syrup", "high fructose corn syrup", "cornmeal", "popcorn",
	}},
	{[]Allergen{AllergenCoconut}, []string{"coconut", "coconut milk", "coconut oil"}},
	{[]Allergen{AllergenStrawberry}, []string{"strawberry", "strawberries"}},
	{[]Allergen{AllergenTomato}, []string{"tomato", "tomatoes"}},
	{[]Allergen{AllergenCitrus}, []string{"citrus", "citrus fruit", "orange", "lemon", "lime", "grapefruit"}},
	{[]Allergen{AllergenKiwi}, []string{"kiwi", "kiwi fruit", "kiwifruit"}},
	{[]Allergen{AllergenBanana}, []string{"banana"}},
	{[]Allergen{AllergenChocolate}, []string{"chocolate", "cocoa", "cacao"}},
	{[]Allergen{AllergenPork}, []string{"pork", "ham", "bacon"}},
	{[]Allergen{AllergenBeef}, []string{"beef"}},
	{[]Allergen{AllergenChicken}, []string{"chicken", "poultry"}},
	{[]Allergen{AllergenAlphaGal}, []string{
		"alpha gal", "alphagal", "alpha gal syndrome", "galactose alpha 1 3 galactose", "mammalian meat", "red meat",
	}},
	{[]Allergen{AllergenGelatin}, []string{"gelatin", "gelatine"}},
	{[]Allergen{AllergenMSG}, []string{"msg", "monosodium glutamate"}},
	{[]Allergen{AllergenFoodDye}, []string{
		"food dye", "food dyes", "food coloring", "food colouring", "red dye", "red 40", "yellow dye",
		"yellow 5", "tartrazine", "fd c",
	}},
	{[]Allergen{AllergenLatex}, []string{"latex", "natural rubber latex", "rubber"}},
	// Recognised, deliberately not allergens: they contain a word that is.
	{nil, []string{
		"water chestnut", "butternut squash", "nutmeg", "buckwheat", "eggplant", "egg plant",
		"cocoa butter", "oat milk", "rice milk", "milk of magnesia",
	}},
})
