package nutrition

import (
	"fmt"
	"sort"

	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/quantity"
)

// MaxPer100g bounds any nutrient per 100 g (10⁶ in its unit): beyond it the number is a typo
// or a unit mix-up, not a food.
var MaxPer100g = decimal.NewFromInt(1_000_000)

// MacroSumField names the fat + carbohydrate + protein check in a FieldError.
const MacroSumField = "fatG+carbohydrateG+proteinG"

// FieldError is a nutrient amount a food or recipe cannot have. Field is the nutrient's JSON
// name (or MacroSumField), for a 400's details.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// Validate checks amounts per 100 g: none negative or over MaxPer100g, and fat, carbohydrate
// and protein together at most 100 g (100 g of food cannot hold more). The first problem in
// nutrient order is returned as a *FieldError.
func Validate(per100g Amounts) error {
	for _, n := range Nutrients {
		v, ok := per100g[n]
		if !ok {
			continue
		}
		switch {
		case v.IsNegative():
			return &FieldError{Field: n.Key(), Message: "must not be negative"}
		case v.GreaterThan(MaxPer100g):
			return &FieldError{Field: n.Key(), Message: fmt.Sprintf("%s %s per 100 g is over %s", quantity.Format(v), n.Unit(), quantity.Format(MaxPer100g))}
		}
	}
	sum := per100g[FatG].Add(per100g[CarbohydrateG]).Add(per100g[ProteinG])
	if sum.GreaterThan(hundred) {
		return &FieldError{Field: MacroSumField, Message: fmt.Sprintf("fat, carbohydrate and protein add up to %s g per 100 g", quantity.Format(sum))}
	}
	return nil
}

// ParseAmounts reads amounts per 100 g as clients and files write them (decimal strings keyed
// by nutrient names) and validates them: an unknown key, text that is not a plain decimal
// ("NaN", "1e3", "") or a value Validate refuses is a *FieldError naming the key. A nutrient
// left out stays not analysed.
func ParseAmounts(in map[string]string) (Amounts, error) {
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := Amounts{}
	for _, k := range keys {
		n, ok := ParseNutrient(k)
		if !ok {
			return nil, &FieldError{Field: k, Message: "is not a nutrient"}
		}
		d, err := quantity.Parse(in[k])
		if err != nil {
			return nil, &FieldError{Field: k, Message: err.Error()}
		}
		out[n] = d
	}
	if err := Validate(out); err != nil {
		return nil, err
	}
	return out, nil
}
