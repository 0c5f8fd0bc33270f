package nutrition

import (
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/quantity"
)

// Declaration is a nutrient amount as a Nutrition Facts label declares it (21 CFR 101.9(c)):
// rounded to the nutrient's increment, or "less than" a bound.
type Declaration struct {
	// Amount is the declared amount; with LessThan, the bound ("less than 1 g": 1).
	Amount   decimal.Decimal
	LessThan bool
}

// Text is the declaration as the panel prints it: "8g", "160mg", "0g", "Less than 1g".
func (d Declaration) Text(n Nutrient) string {
	s := quantity.Format(d.Amount) + n.Unit()
	if n == EnergyKcal {
		s = quantity.Format(d.Amount)
	}
	if d.LessThan {
		return "Less than " + s
	}
	return s
}

var (
	dZero = decimal.Zero
	d0_1  = decimal.RequireFromString("0.1")
	d0_5  = decimal.RequireFromString("0.5")
	d1    = decimal.NewFromInt(1)
	d2    = decimal.NewFromInt(2)
	d5    = decimal.NewFromInt(5)
	d10   = decimal.NewFromInt(10)
	d50   = decimal.NewFromInt(50)
	d140  = decimal.NewFromInt(140)
)

// roundTo rounds x to the nearest multiple of inc, halves away from zero (4.75 g of fat to
// the nearest 0.5 g is 5 g): 101.9 says "nearest" and leaves ties to the maker; rounding half
// up is the common reading and never understates.
func roundTo(x, inc decimal.Decimal) decimal.Decimal {
	return x.DivRound(inc, 20).Round(0).Mul(inc)
}

// Declare rounds an amount per serving as 21 CFR 101.9(c) requires for the label:
//
//	energyKcal                        < 5 → 0; ≤ 50 → nearest 5; else nearest 10
//	fatG, saturatedFatG, transFatG    < 0.5 → 0; < 5 → nearest 0.5; else nearest 1
//	cholesterolMg                     < 2 → 0; 2 to 5 → less than 5; else nearest 5
//	sodiumMg                          < 5 → 0; ≤ 140 → nearest 5; else nearest 10
//	carbohydrateG, fiberG, sugarsG,
//	addedSugarsG, proteinG            < 0.5 → 0; < 1 → less than 1; else nearest 1
//	vitaminDMcg, ironMg               nearest 0.1
//	calciumMg, potassiumMg,
//	phosphorusMg                      nearest 10
func Declare(n Nutrient, amount decimal.Decimal) Declaration {
	x := amount
	switch n {
	case EnergyKcal:
		switch {
		case x.LessThan(d5):
			return Declaration{Amount: dZero}
		case x.LessThanOrEqual(d50):
			return Declaration{Amount: roundTo(x, d5)}
		}
		return Declaration{Amount: roundTo(x, d10)}
	case FatG, SaturatedFatG, TransFatG:
		switch {
		case x.LessThan(d0_5):
			return Declaration{Amount: dZero}
		case x.LessThan(d5):
			return Declaration{Amount: roundTo(x, d0_5)}
		}
		return Declaration{Amount: roundTo(x, d1)}
	case CholesterolMg:
		switch {
		case x.LessThan(d2):
			return Declaration{Amount: dZero}
		case x.LessThanOrEqual(d5):
			return Declaration{Amount: d5, LessThan: true}
		}
		return Declaration{Amount: roundTo(x, d5)}
	case SodiumMg:
		switch {
		case x.LessThan(d5):
			return Declaration{Amount: dZero}
		case x.LessThanOrEqual(d140):
			return Declaration{Amount: roundTo(x, d5)}
		}
		return Declaration{Amount: roundTo(x, d10)}
	case CarbohydrateG, FiberG, SugarsG, AddedSugarsG, ProteinG:
		switch {
		case x.LessThan(d0_5):
			return Declaration{Amount: dZero}
		case x.LessThan(d1):
			return Declaration{Amount: d1, LessThan: true}
		}
		return Declaration{Amount: roundTo(x, d1)}
	case VitaminDMcg, IronMg:
		return Declaration{Amount: roundTo(x, d0_1)}
	default: // calciumMg, potassiumMg, phosphorusMg
		return Declaration{Amount: roundTo(x, d10)}
	}
}

// DailyValues are the 2016 Daily Values for adults and children 4 years and older (21 CFR
// 101.9(c)(8)(iv) and (c)(9)) of the nutrients a label gives a %DV. Trans fat and total sugars
// have none; protein's is here for reference but its %DV is not declared (see DailyValuePercent).
var DailyValues = map[Nutrient]decimal.Decimal{
	FatG:          decimal.NewFromInt(78),
	SaturatedFatG: decimal.NewFromInt(20),
	CholesterolMg: decimal.NewFromInt(300),
	SodiumMg:      decimal.NewFromInt(2300),
	CarbohydrateG: decimal.NewFromInt(275),
	FiberG:        decimal.NewFromInt(28),
	AddedSugarsG:  decimal.NewFromInt(50),
	ProteinG:      decimal.NewFromInt(50),
	VitaminDMcg:   decimal.NewFromInt(20),
	CalciumMg:     decimal.NewFromInt(1300),
	IronMg:        decimal.NewFromInt(18),
	PotassiumMg:   decimal.NewFromInt(4700),
}

// isVitaminOrMineral: their %DV rounds in steps of 2, 5 and 10 (101.9(c)(8)(iii)).
func isVitaminOrMineral(n Nutrient) bool {
	return n == VitaminDMcg || n == CalciumMg || n == IronMg || n == PotassiumMg
}

// DailyValuePercent is the %DV a label declares for a nutrient, ok false for one the panel
// gives none (energy, trans fat, total sugars, protein: its %DV needs a protein digestibility
// score the data do not carry, and is declared only with a protein claim, 101.9(c)(7)).
//
// The percent is of the declared amount, d.Amount; for a "less than" declaration, of actual,
// the amount before rounding. 101.9(d)(7)(ii) allows either the declared or the actual amount;
// the declared one keeps the panel consistent as a reader checks it (a fat declared "0g" never
// shows 1 %). DRV nutrients round to the nearest 1 %; vitamins and minerals to the nearest
// 2 % up to 10 %, 5 % up to 50 %, 10 % above (halves up, like the amounts).
func DailyValuePercent(n Nutrient, d Declaration, actual decimal.Decimal) (pct decimal.Decimal, ok bool) {
	dv, has := DailyValues[n]
	if !has || n == ProteinG {
		return decimal.Decimal{}, false
	}
	amount := d.Amount
	if d.LessThan {
		amount = actual
	}
	p := amount.Mul(hundred).DivRound(dv, 20)
	if !isVitaminOrMineral(n) {
		return roundTo(p, d1), true
	}
	switch {
	case p.LessThanOrEqual(d10):
		return roundTo(p, d2), true
	case p.LessThanOrEqual(d50):
		return roundTo(p, d5), true
	}
	return roundTo(p, d10), true
}

// ServingGrams rounds a serving's metric quantity for the label: whole grams, tenths of a
// gram below 5 g (so a small serving never reads as 0 g).
func ServingGrams(g decimal.Decimal) decimal.Decimal {
	if g.LessThan(d5) {
		return roundTo(g, d0_1)
	}
	return roundTo(g, d1)
}
