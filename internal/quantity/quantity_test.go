package quantity_test

import (
	"errors"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/quantity"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestParse(t *testing.T) {
	for _, ok := range []string{"0", "12.5", "-0.0625", "3", "+4", "0.000001", "123456789012345.123456"} {
		if _, err := quantity.Parse(ok); err != nil {
			t.Errorf("Parse(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-", "1e3", " 1", "1 ", "NaN", "Infinity", ".5", "5.", "1.2.3", "0x10", "١", "1234567890123456"} {
		if _, err := quantity.Parse(bad); !errors.Is(err, quantity.ErrSyntax) {
			t.Errorf("Parse(%q) = %v, want ErrSyntax", bad, err)
		}
	}
	if _, err := quantity.Parse("0.0000001"); !errors.Is(err, quantity.ErrTooPrecise) {
		t.Errorf("seven places: %v, want ErrTooPrecise", err)
	}
	if got := quantity.Format(dec("12.500")); got != "12.5" {
		t.Errorf("Format = %q", got)
	}
	if got := quantity.Format(dec("-0.000")); got != "0" {
		t.Errorf("Format(-0) = %q", got)
	}
	if got := quantity.Format(dec("300")); got != "300" {
		t.Errorf("Format(300) = %q", got)
	}
}

func TestFamilies(t *testing.T) {
	cases := []struct{ q, from, to, want string }{
		{"1", "lb", "oz", "16"},
		{"16", "oz", "lb", "1"},
		{"1", "kg", "g", "1000"},
		{"1", "lb", "g", "453.59237"},
		{"1", "gal", "qt", "4"},
		{"1", "qt", "pt", "2"},
		{"1", "pt", "cup", "2"},
		{"1", "cup", "fl_oz", "8"},
		{"1", "fl_oz", "tbsp", "2"},
		{"1", "tbsp", "tsp", "3"},
		{"1", "l", "ml", "1000"},
		{"2", "dozen", "each", "24"},
		{"1", "g", "lb", "0.002204623"},
	}
	for _, c := range cases {
		got, err := quantity.Convert(dec(c.q), c.from, c.to)
		if err != nil || !got.Equal(dec(c.want)) {
			t.Errorf("Convert(%s %s → %s) = %s, %v; want %s", c.q, c.from, c.to, got, err, c.want)
		}
	}
	var ce *quantity.ConversionError
	if _, err := quantity.Convert(dec("1"), "each", "lb"); !errors.As(err, &ce) || ce.From != "each" || ce.To != "lb" {
		t.Errorf("across families: %v", err)
	}
	if _, err := quantity.Convert(dec("1"), "case", "lb"); !errors.As(err, &ce) {
		t.Errorf("unknown unit: %v", err)
	}
}

func TestItemUnits(t *testing.T) {
	// 1 each = 0.25 lb; 1 case = 6 each = 1.5 lb.
	u := quantity.Units{Item: "Lemons", Base: "lb", Declared: []quantity.NamedUnit{{Name: "each", Factor: dec("0.25")}, {Name: "case", Factor: dec("1.5")}}}
	if err := u.Validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ q, unit, want string }{
		{"4", "each", "1"},
		{"2", "case", "3"},
		{"1", "dozen", "3"}, // through the declared each
		{"32", "oz", "2"},   // the base family
		{"1.5", "lb", "1.5"},
	}
	for _, c := range cases {
		got, err := u.ToBase(dec(c.q), c.unit)
		if err != nil || !got.Equal(dec(c.want)) {
			t.Errorf("ToBase(%s %s) = %s, %v; want %s", c.q, c.unit, got, err, c.want)
		}
	}
	if got, err := u.FromBase(dec("3"), "case"); err != nil || !got.Equal(dec("2")) {
		t.Errorf("FromBase = %s, %v", got, err)
	}
	if got, err := u.Convert(dec("1"), "case", "each"); err != nil || !got.Equal(dec("6")) {
		t.Errorf("case → each = %s, %v", got, err)
	}
	if got, err := u.PerBase(dec("1899"), "case", 12); err != nil || !got.Equal(dec("1266")) {
		t.Errorf("PerBase = %s, %v", got, err)
	}
	// Volume is not declared: never 1:1.
	var ce *quantity.ConversionError
	_, err := u.ToBase(dec("1"), "cup")
	if !errors.As(err, &ce) || ce.Item != "Lemons" || ce.From != "cup" || ce.To != "lb" {
		t.Fatalf("cup of lemons: %v", err)
	}
	if msg := err.Error(); msg != `cannot convert cup to lb for "Lemons": the item declares no such unit or conversion` {
		t.Errorf("message %q", msg)
	}
	if u.Known("bag") || !u.Known("dozen") {
		t.Error("Known")
	}
}

func TestValidateUnits(t *testing.T) {
	bad := []quantity.Units{
		{Base: "bushel"},
		{Base: "lb", Declared: []quantity.NamedUnit{{Name: "kg", Factor: dec("2.2")}}},
		{Base: "lb", Declared: []quantity.NamedUnit{{Name: "case", Factor: dec("0")}}},
		{Base: "lb", Declared: []quantity.NamedUnit{{Name: "case", Factor: dec("-1")}}},
		{Base: "lb", Declared: []quantity.NamedUnit{{Name: "case", Factor: dec("1.0000001")}}},
		{Base: "lb", Declared: []quantity.NamedUnit{{Name: "case", Factor: dec("1")}, {Name: "Case", Factor: dec("2")}}},
		{Base: "lb", Declared: []quantity.NamedUnit{{Name: " ", Factor: dec("1")}}},
		{Base: "lb", Declared: []quantity.NamedUnit{{Name: "each", Factor: dec("1")}, {Name: "dozen", Factor: dec("12")}}},
	}
	for i, u := range bad {
		var ue *quantity.UnitError
		if err := u.Validate(); !errors.As(err, &ue) {
			t.Errorf("%d: Validate = %v, want a UnitError", i, err)
		}
	}
}
