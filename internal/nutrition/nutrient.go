package nutrition

import "fmt"

// Nutrient is one of the nutrients Sous computes. Its order is fixed: Nutrients lists them in
// it, JSON objects are written in it and a Set is indexed by it.
type Nutrient int

const (
	EnergyKcal Nutrient = iota
	FatG
	SaturatedFatG
	TransFatG
	CholesterolMg
	SodiumMg
	CarbohydrateG
	FiberG
	SugarsG
	AddedSugarsG
	ProteinG
	VitaminDMcg
	CalciumMg
	IronMg
	PotassiumMg
	PhosphorusMg
	numNutrients
)

// Count is how many nutrients there are.
const Count = int(numNutrients)

// Nutrients lists every nutrient in the fixed order.
var Nutrients = func() []Nutrient {
	out := make([]Nutrient, Count)
	for i := range out {
		out[i] = Nutrient(i)
	}
	return out
}()

var nutrientInfo = [Count]struct{ key, unit string }{
	{"energyKcal", "kcal"},
	{"fatG", "g"},
	{"saturatedFatG", "g"},
	{"transFatG", "g"},
	{"cholesterolMg", "mg"},
	{"sodiumMg", "mg"},
	{"carbohydrateG", "g"},
	{"fiberG", "g"},
	{"sugarsG", "g"},
	{"addedSugarsG", "g"},
	{"proteinG", "g"},
	{"vitaminDMcg", "mcg"},
	{"calciumMg", "mg"},
	{"ironMg", "mg"},
	{"potassiumMg", "mg"},
	{"phosphorusMg", "mg"},
}

// Key is the nutrient's JSON name ("sodiumMg").
func (n Nutrient) Key() string {
	if n < 0 || n >= numNutrients {
		return fmt.Sprintf("Nutrient(%d)", int(n))
	}
	return nutrientInfo[n].key
}

// String is the nutrient's JSON name.
func (n Nutrient) String() string { return n.Key() }

// Unit is the unit the nutrient is counted in: kcal, g, mg or mcg (the suffix of its key).
func (n Nutrient) Unit() string { return nutrientInfo[n].unit }

// ParseNutrient finds a nutrient by its JSON name; ok is false for any other name.
func ParseNutrient(key string) (n Nutrient, ok bool) {
	for i, info := range nutrientInfo {
		if info.key == key {
			return Nutrient(i), true
		}
	}
	return 0, false
}

// MarshalText writes the nutrient as its JSON name, so maps keyed by Nutrient read as the API's.
func (n Nutrient) MarshalText() ([]byte, error) {
	if n < 0 || n >= numNutrients {
		return nil, fmt.Errorf("nutrition: no nutrient %d", int(n))
	}
	return []byte(n.Key()), nil
}

// UnmarshalText reads a nutrient's JSON name.
func (n *Nutrient) UnmarshalText(b []byte) error {
	v, ok := ParseNutrient(string(b))
	if !ok {
		return fmt.Errorf("nutrition: unknown nutrient %q", b)
	}
	*n = v
	return nil
}
