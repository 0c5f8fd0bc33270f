package nutrition

import "github.com/shopspring/decimal"

// Amounts are nutrient amounts per 100 g of edible portion, as a food states them. A nutrient
// absent from the map was not analysed: it is unknown, never zero.
type Amounts map[Nutrient]decimal.Decimal

// Measure is one household measure of a food, as SR28's WEIGHT rows give them: Amount of the
// measure described weighs Grams ("1", "cup", 227; "1", `medium (3" dia)`, 182).
type Measure struct {
	Amount      decimal.Decimal
	Description string
	Grams       decimal.Decimal
}

// Food is what the package needs of a food (a USDA food or an organization's own).
type Food struct {
	Name    string
	Per100g Amounts
	// RefusePercent is the inedible share of the as-purchased weight, in percent (SR28
	// FOOD_DES.Refuse: the peel and core of an apple, 8). Zero when the food has none.
	RefusePercent decimal.Decimal
	// Measures are the food's household measures, in the order they are tried (SR28's Seq).
	Measures []Measure
}
