package nutrition

import (
	"fmt"
	"strings"

	"github.com/sous-app/sous/internal/quantity"
)

// LabelInput is what a Nutrition Facts label is made from.
type LabelInput struct {
	Name string
	// PerServing are the nutrients of one serving (an Analysis's PerPortion).
	PerServing Set
	// Household is the serving in household units ("1 cup", "1 piece").
	Household string
	// ServingGrams is the serving's weight (an Analysis's PortionGrams).
	ServingGrams Value
	// ServingsPerContainer is printed as given ("1", "about 8"); empty leaves the line out.
	ServingsPerContainer string
	// Allergens are the recipe's statuses by vocabulary key (see ContainsStatement).
	Allergens map[string]string
}

// LabelLine is one nutrient as the panel declares it.
type LabelLine struct {
	Nutrient Nutrient `json:"nutrient"`
	Name     string   `json:"name"`
	// Text is the declared amount as printed ("8g", "Less than 1g"), or "unknown".
	Text string `json:"text"`
	// Declared is the rounded amount as a decimal string (the bound of a "less than"); empty
	// when unknown.
	Declared string `json:"declared,omitempty"`
	LessThan bool   `json:"lessThan,omitempty"`
	// DailyValuePercent is the %DV as printed, absent where the panel shows none or the
	// amount is unknown.
	DailyValuePercent *int      `json:"dailyValuePercent,omitempty"`
	Complete          bool      `json:"complete"`
	Missing           []Missing `json:"missing,omitempty"`
}

// Label is a Nutrition Facts panel's content, with the label rounding applied.
//
// An unknown nutrient is never declared: its line reads "unknown", has no %DV, and the label
// is not Complete; Missing says what it lacks. RenderLabelPDF refuses such a label.
type Label struct {
	Name string `json:"name"`
	// ServingSize is the household and metric serving: "1 cup (240g)".
	ServingSize string `json:"servingSize"`
	// ServingGrams is the rounded metric serving as a decimal string; empty when unknown.
	ServingGrams         string    `json:"servingGrams,omitempty"`
	ServingsPerContainer string    `json:"servingsPerContainer,omitempty"`
	Calories             LabelLine `json:"calories"`
	// Lines are the other nutrients in panel order: total fat, saturated fat, trans fat,
	// cholesterol, sodium, total carbohydrate, dietary fiber, total sugars, added sugars,
	// protein, vitamin D, calcium, iron, potassium. Phosphorus is voluntary and left off.
	Lines []LabelLine `json:"nutrients"`
	// Contains is the "Contains:" statement's allergens; AllergensUnknown the major allergens
	// whose status is not known (a label with any is not printed either).
	Contains         []string  `json:"contains"`
	AllergensUnknown []string  `json:"allergensUnknown,omitempty"`
	Complete         bool      `json:"complete"`
	Missing          []Missing `json:"missing,omitempty"`
}

// panelLines are the nutrients below calories, in panel order, with their panel names.
var panelLines = []struct {
	n    Nutrient
	name string
}{
	{FatG, "Total Fat"},
	{SaturatedFatG, "Saturated Fat"},
	{TransFatG, "Trans Fat"},
	{CholesterolMg, "Cholesterol"},
	{SodiumMg, "Sodium"},
	{CarbohydrateG, "Total Carbohydrate"},
	{FiberG, "Dietary Fiber"},
	{SugarsG, "Total Sugars"},
	{AddedSugarsG, "Added Sugars"},
	{ProteinG, "Protein"},
	{VitaminDMcg, "Vitamin D"},
	{CalciumMg, "Calcium"},
	{IronMg, "Iron"},
	{PotassiumMg, "Potassium"},
}

// BuildLabel rounds a serving's nutrients as 21 CFR 101.9 requires (see Declare and
// DailyValuePercent) and writes the serving size and the Contains statement.
func BuildLabel(in LabelInput) Label {
	l := Label{Name: in.Name, ServingsPerContainer: in.ServingsPerContainer, Complete: true}
	metric := "unknown g"
	if in.ServingGrams.Complete {
		l.ServingGrams = quantity.Format(ServingGrams(in.ServingGrams.Amount))
		metric = l.ServingGrams + "g"
	} else {
		l.Complete = false
		l.Missing = appendMissing(l.Missing, in.ServingGrams.Missing...)
	}
	l.ServingSize = fmt.Sprintf("%s (%s)", strings.TrimSpace(in.Household), metric)
	if strings.TrimSpace(in.Household) == "" {
		l.ServingSize = metric
	}
	line := func(n Nutrient, name string) LabelLine {
		v := in.PerServing[n]
		ll := LabelLine{Nutrient: n, Name: name, Complete: v.Complete}
		if !v.Complete {
			ll.Text = "unknown"
			ll.Missing = v.Missing
			l.Complete = false
			l.Missing = appendMissing(l.Missing, v.Missing...)
			return ll
		}
		d := Declare(n, v.Amount)
		ll.Text, ll.LessThan = d.Text(n), d.LessThan
		ll.Declared = quantity.Format(d.Amount)
		if p, ok := DailyValuePercent(n, d, v.Amount); ok {
			pct := int(p.IntPart())
			ll.DailyValuePercent = &pct
		}
		return ll
	}
	l.Calories = line(EnergyKcal, "Calories")
	for _, p := range panelLines {
		l.Lines = append(l.Lines, line(p.n, p.name))
	}
	l.Contains, l.AllergensUnknown = ContainsStatement(in.Allergens)
	if l.Contains == nil {
		l.Contains = []string{}
	}
	return l
}

// Line returns the label's line for a nutrient (calories included); ok false for phosphorus.
func (l *Label) Line(n Nutrient) (LabelLine, bool) {
	if n == EnergyKcal {
		return l.Calories, true
	}
	for _, ll := range l.Lines {
		if ll.Nutrient == n {
			return ll, true
		}
	}
	return LabelLine{}, false
}

// ContainsText is the allergen statement as printed ("Contains: Milk, Wheat"); empty when the
// label contains none of the nine.
func (l *Label) ContainsText() string {
	if len(l.Contains) == 0 {
		return ""
	}
	return "Contains: " + strings.Join(l.Contains, ", ")
}
