package foods

// Nutrient is one of the fixed nutrient keys of the API (and of nutrition analysis): the
// nutrients a Nutrition Facts label and a diet order need, each in the unit its name ends with.
type Nutrient struct {
	Key string
	// SRNumber is USDA Standard Reference's nutrient number (Nutr_No); empty when SR does not
	// analyse it (added sugars).
	SRNumber string
}

// Nutrients lists the keys in the order labels read them.
var Nutrients = []Nutrient{
	{"energyKcal", "208"},
	{"fatG", "204"},
	{"saturatedFatG", "606"},
	{"transFatG", "605"},
	{"cholesterolMg", "601"},
	{"sodiumMg", "307"},
	{"carbohydrateG", "205"},
	{"fiberG", "291"},
	{"sugarsG", "269"},
	{"addedSugarsG", ""},
	{"proteinG", "203"},
	{"vitaminDMcg", "328"},
	{"calciumMg", "301"},
	{"ironMg", "303"},
	{"potassiumMg", "306"},
	{"phosphorusMg", "305"},
}

// The keys the macronutrient check adds up: fat, carbohydrate and protein cannot weigh more
// than the 100 g they are measured in.
const (
	keyFat          = "fatG"
	keyCarbohydrate = "carbohydrateG"
	keyProtein      = "proteinG"
	keyAddedSugars  = "addedSugarsG"
)

var (
	isKey     = map[string]bool{}
	keyOfSR   = map[string]string{}
	srNumbers []string
)

func init() {
	for _, n := range Nutrients {
		isKey[n.Key] = true
		if n.SRNumber != "" {
			keyOfSR[n.SRNumber] = n.Key
			srNumbers = append(srNumbers, n.SRNumber)
		}
	}
}
