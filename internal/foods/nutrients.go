package foods

import "github.com/sous-app/sous/internal/nutrition"

// Nutrient is one of the fixed nutrient keys of the API (nutrition.Nutrients, in their order)
// with the number USDA's Standard Reference gives it.
type Nutrient struct {
	Key string
	// SRNumber is USDA Standard Reference's nutrient number (Nutr_No); empty when SR does not
	// analyse it (added sugars).
	SRNumber string
}

// srNumberOf is SR28's number of each nutrient it analyses.
var srNumberOf = map[nutrition.Nutrient]string{
	nutrition.EnergyKcal:    "208",
	nutrition.FatG:          "204",
	nutrition.SaturatedFatG: "606",
	nutrition.TransFatG:     "605",
	nutrition.CholesterolMg: "601",
	nutrition.SodiumMg:      "307",
	nutrition.CarbohydrateG: "205",
	nutrition.FiberG:        "291",
	nutrition.SugarsG:       "269",
	nutrition.ProteinG:      "203",
	nutrition.VitaminDMcg:   "328",
	nutrition.CalciumMg:     "301",
	nutrition.IronMg:        "303",
	nutrition.PotassiumMg:   "306",
	nutrition.PhosphorusMg:  "305",
}

// Nutrients lists the keys in the order labels read them.
var Nutrients = func() []Nutrient {
	out := make([]Nutrient, 0, nutrition.Count)
	for _, n := range nutrition.Nutrients {
		out = append(out, Nutrient{Key: n.Key(), SRNumber: srNumberOf[n]})
	}
	return out
}()

// The keys the macronutrient check adds up: fat, carbohydrate and protein cannot weigh more
// than the 100 g they are measured in.
var (
	keyFat          = nutrition.FatG.Key()
	keyCarbohydrate = nutrition.CarbohydrateG.Key()
	keyProtein      = nutrition.ProteinG.Key()
	keyAddedSugars  = nutrition.AddedSugarsG.Key()
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
