package nutrition_test

import (
	"errors"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/quantity"

	. "github.com/sous-app/sous/internal/nutrition"
)

func TestLineGrams(t *testing.T) {
	t.Parallel()
	butter := &Food{Measures: []Measure{
		{Amount: d("1"), Description: `pat (1" sq, 1/3" high)`, Grams: d("5")},
		{Amount: d("1"), Description: "tbsp", Grams: d("14.2")},
		{Amount: d("1"), Description: "cup", Grams: d("227")},
		{Amount: d("1"), Description: "stick", Grams: d("113")},
	}}
	apple := &Food{Measures: []Measure{
		{Amount: d("1"), Description: "cup, quartered or chopped", Grams: d("125")},
		{Amount: d("1"), Description: `large (3-1/4" dia)`, Grams: d("223")},
		{Amount: d("1"), Description: `medium (3" dia)`, Grams: d("182")},
	}}
	rice := &Food{Measures: []Measure{{Amount: d("0.5"), Description: "cups", Grams: d("100")}}}
	juice := &Food{Measures: []Measure{{Amount: d("8"), Description: "fl oz", Grams: d("248")}, {Amount: d("1"), Description: "tablespoon", Grams: d("15.5")}}}
	cases := []struct {
		name  string
		line  Line
		grams string // "" for no conversion
	}{
		{"grams", Line{Quantity: d("250"), Unit: "g"}, "250"},
		{"kilograms", Line{Quantity: d("1.5"), Unit: "kg"}, "1500"},
		{"pounds by definition", Line{Quantity: d("2"), Unit: "lb"}, "907.18474"},              // 2 × 453.59237
		{"ounces by definition", Line{Quantity: d("4"), Unit: "oz"}, "113.3980925"},            // 4 × 28.349523125
		{"a measure by name", Line{Quantity: d("2"), Unit: "cup", Food: butter}, "454"},        // 2 × 227
		{"a measure's first word", Line{Quantity: d("3"), Unit: "medium", Food: apple}, "546"}, // 3 × 182
		{"the first of several cups", Line{Quantity: d("1"), Unit: "cup", Food: apple}, "125"},
		{"plural and amount scaling", Line{Quantity: d("3"), Unit: "cup", Food: rice}, "600"}, // 3 × 100 ÷ 0.5
		{"a unit written plural", Line{Quantity: d("2"), Unit: "Sticks", Food: butter}, "226"},
		{"fl oz is one unit", Line{Quantity: d("2"), Unit: "fl_oz", Food: juice}, "62"}, // 2 × 248 ÷ 8
		{"tablespoon is tbsp", Line{Quantity: d("2"), Unit: "tbsp", Food: juice}, "31"},
		{"the named measure before the volume factors", Line{Quantity: d("1"), Unit: "tbsp", Food: butter}, "14.2"},
		{"volume through another volume measure", Line{Quantity: d("3"), Unit: "tsp", Food: &Food{Measures: butter.Measures[2:]}}, "14.1875"}, // 3 × 227 ÷ 48
		{"ml through cup", Line{Quantity: d("236.5882365"), Unit: "ml", Food: &Food{Measures: butter.Measures[2:]}}, "227"},
		{"declared grams per unit", Line{Quantity: d("3"), Unit: "each", GramsPer: map[string]decimal.Decimal{"each": d("150")}, Food: apple}, "450"},
		{"declared grams win over a measure", Line{Quantity: d("1"), Unit: "cup", GramsPer: map[string]decimal.Decimal{"cup": d("120")}, Food: butter}, "120"},
		{"the item's units", Line{Quantity: d("2"), Unit: "case", Units: &quantity.Units{Base: "lb", Declared: []quantity.NamedUnit{{Name: "case", Factor: d("6")}}}}, "5443.10844"}, // 2 × 6 × 453.59237
		{"each is not medium", Line{Quantity: d("1"), Unit: "each", Food: apple}, ""},
		{"no food, no declaration", Line{Quantity: d("1"), Unit: "cup"}, ""},
		{"a count unit never goes through volume", Line{Quantity: d("1"), Unit: "dozen", Food: butter}, ""},
	}
	for _, c := range cases {
		c.line.Name = c.name
		g, err := c.line.Grams()
		if c.grams == "" {
			var ce *ConversionError
			if !errors.As(err, &ce) || ce.Unit != c.line.Unit || ce.Ingredient != c.name {
				t.Errorf("%s: got %s, %v; want a ConversionError", c.name, g, err)
			}
			continue
		}
		if err != nil || !g.Equal(d(c.grams)) {
			t.Errorf("%s: got %s, %v; want %s", c.name, g, err, c.grams)
		}
	}
}
