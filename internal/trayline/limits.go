package trayline

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/kitchen"
	"github.com/sous-app/sous/internal/quantity"
)

// What a nutrient limit sums over.
const (
	perMeal = "meal"
	perDay  = "day"
)

// sourceOrder is the source of a patient's own limit, from a diet order.
const sourceOrder = "order"

// NutrientLimit bounds one nutrient (or fluid): at least Min, at most Max, over a meal or a day.
type NutrientLimit struct {
	Min *decimal.Decimal `json:"min,omitempty"`
	Max *decimal.Decimal `json:"max,omitempty"`
	Per string           `json:"per"`
}

// limit is a NutrientLimit applied to a patient, with where it comes from: a diet's rules (the
// diet code) or the patient's own order (sourceOrder).
type limit struct {
	Key    string
	Source string
	NutrientLimit
}

// limitsOf lists the nutrient limits a patient's tray is held to: their diets' in diet order,
// then their own orders', each list by key in the fixed order. Every limit applies: the
// strictest decides, and the ticket shows each.
func limitsOf(p Patient, rules map[string]Rules) []limit {
	var out []limit
	add := func(source string, m map[string]NutrientLimit) {
		for _, k := range kitchen.TotalKeys {
			if l, ok := m[k]; ok {
				out = append(out, limit{Key: k, Source: source, NutrientLimit: l})
			}
		}
	}
	for _, d := range p.Diets {
		if r, ok := rules[d]; ok {
			add(d, r.Limits.Nutrients)
		}
	}
	add(sourceOrder, p.Orders)
	return out
}

// limitWords are a limit's nutrient and unit as a reason says them ("potassium", "mg").
func limitWords(key string) (string, string) {
	if key == kitchen.FluidKey {
		return "fluid", "ml"
	}
	for _, suffix := range []string{"Kcal", "Mcg", "Mg", "G"} {
		if name, ok := strings.CutSuffix(key, suffix); ok {
			var words []string
			start := 0
			for i, c := range name {
				if i > 0 && c >= 'A' && c <= 'Z' {
					words = append(words, strings.ToLower(name[start:i]))
					start = i
				}
			}
			words = append(words, strings.ToLower(name[start:]))
			return strings.Join(words, " "), strings.ToLower(suffix)
		}
	}
	return key, ""
}

// sourceWords is where a limit comes from, as a reason says it.
func sourceWords(source string) string {
	if source == sourceOrder {
		return "the patient's diet order"
	}
	return "the " + source + " diet"
}

// readNutrientLimits validates a rules body's nutrient limits: a decimal min and/or max, min
// not above max.
func readNutrientLimits(raw any) (map[string]NutrientLimit, error) {
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var in map[string]struct {
		Min *string `json:"min"`
		Max *string `json:"max"`
		Per string  `json:"per"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, err
	}
	if len(in) == 0 {
		return nil, nil
	}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]NutrientLimit, len(in))
	for _, k := range keys {
		v := in[k]
		field := "limits.nutrients." + k
		min, err := parseLimit(field+".min", v.Min)
		if err != nil {
			return nil, err
		}
		max, err := parseLimit(field+".max", v.Max)
		if err != nil {
			return nil, err
		}
		switch {
		case min == nil && max == nil:
			return nil, apierr.InvalidField(field, "must set min, max or both")
		case min != nil && max != nil && min.GreaterThan(*max):
			return nil, apierr.InvalidField(field+".min", fmt.Sprintf("must not be above max (%s)", quantity.Format(*max)))
		}
		out[k] = NutrientLimit{Min: min, Max: max, Per: v.Per}
	}
	return out, nil
}

// orderNutrient maps a diet order's nutrient (a FHIR NutritionOrder modifier's words) to its
// key; ok is false for one Sous does not count.
func orderNutrient(name string) (string, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, m := range []struct{ word, key string }{
		{"saturated", "saturatedFatG"}, {"trans", "transFatG"}, {"added sugar", "addedSugarsG"},
		{"sodium", "sodiumMg"}, {"potassium", "potassiumMg"}, {"phosph", "phosphorusMg"},
		{"carbohydrate", "carbohydrateG"}, {"protein", "proteinG"}, {"cholesterol", "cholesterolMg"},
		{"fiber", "fiberG"}, {"fibre", "fiberG"}, {"sugar", "sugarsG"}, {"calcium", "calciumMg"},
		{"iron", "ironMg"}, {"vitamin d", "vitaminDMcg"}, {"fluid", kitchen.FluidKey}, {"water", kitchen.FluidKey},
		{"calorie", "energyKcal"}, {"energy", "energyKcal"}, {"fat", "fatG"},
	} {
		if strings.Contains(n, m.word) {
			return m.key, true
		}
	}
	return "", false
}

// unitFactors turn an order's amount into its nutrient's unit, by the unit the key is counted in.
var unitFactors = map[string]map[string]string{
	"mg":   {"mg": "1", "milligram": "1", "milligrams": "1", "g": "1000", "gram": "1000", "grams": "1000", "mcg": "0.001", "ug": "0.001", "microgram": "0.001", "micrograms": "0.001"},
	"g":    {"g": "1", "gram": "1", "grams": "1", "mg": "0.001", "milligram": "0.001", "milligrams": "0.001"},
	"mcg":  {"mcg": "1", "ug": "1", "microgram": "1", "micrograms": "1", "mg": "1000", "milligram": "1000", "milligrams": "1000"},
	"kcal": {"kcal": "1", "cal": "1", "calorie": "1", "calories": "1", "kilocalorie": "1", "kilocalories": "1"},
	"ml":   {"ml": "1", "milliliter": "1", "milliliters": "1", "millilitre": "1", "millilitres": "1", "l": "1000", "liter": "1000", "liters": "1000", "litre": "1000", "litres": "1000"},
}

// orderLimit reads one diet-order nutrient as the patient's own per-day maximum (a FHIR
// NutritionOrder's nutrient amount is the day's); ok is false for a nutrient or unit Sous
// cannot read (the ticket's diet notes still show it).
func orderLimit(name string, amount decimal.Decimal, unit string) (string, NutrientLimit, bool) {
	key, ok := orderNutrient(name)
	if !ok || !amount.IsPositive() {
		return "", NutrientLimit{}, false
	}
	_, want := limitWords(key)
	f, ok := unitFactors[want][strings.ToLower(strings.TrimSpace(unit))]
	if !ok {
		return "", NutrientLimit{}, false
	}
	max := amount.Mul(decimal.RequireFromString(f))
	return key, NutrientLimit{Max: &max, Per: perDay}, true
}
