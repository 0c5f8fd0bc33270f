// Package nutrition is the one place Sous computes nutrients: grams from units, a recipe's
// nutrients per yield, per portion and per 100 g, and the Nutrition Facts label with its
// rounding. The kitchen, the tray line, labels and menus call it, so one recipe has one set of
// numbers. It is pure: callers load foods and recipes and hand them in; nothing here reads a
// database or speaks HTTP.
//
// # Values
//
// Every nutrient is a Value: an exact decimal (shopspring; never float64) with a state. A
// complete value is the amount. An incomplete one lists in Missing each ingredient whose
// contribution is unknown and why: no_food (the item is linked to no food), no_conversion (its
// quantity cannot be weighed) or not_analysed (its food has no value for the nutrient: SR28
// has no row, and SR28 states no added sugars at all). Sums carry unknowns forward: an
// incomplete value's Amount is the sum of what is known, a lower bound, and nothing unknown
// ever reads as 0 (a label says "unknown" and will not print). In JSON a value is
// {"value": "12.5", "complete": true, "source": "computed"}, with "missing" when incomplete;
// a Set of the sixteen nutrients is an object in the fixed order of Nutrients.
//
// # Grams
//
// A line's quantity weighs by the first rule that applies (Line.Grams): a mass unit by
// definition; grams the item declares for the unit (GramsPer); the item's own units linking it
// to a mass unit; a household measure of its food whose unit matches (the measure's text up
// to a comma or parenthesis, its first word, singular: `1 medium (3" dia)` = 182 g is the
// unit "medium"; "0.5 cup" = 100 g is 200 g a cup); for a volume unit, any volume measure of
// the food through the fixed US volume factors. Nothing else: "each" is not "medium" unless
// the kitchen declares it. A line that cannot be weighed is unknown (no_conversion); a recipe
// write can refuse it instead with CheckGrams's *ConversionError.
//
// Food values are per 100 g of edible portion. A line written as purchased counts only its
// edible share: its trim yield when it states one, else what the food's refuse leaves.
//
// # Recipes
//
// Analyze sums each line's grams × per100g ÷ 100 into one yield's total; per portion divides
// by the portions, per 100 g by the cooked yieldGrams when weighed, else by the sum of the
// lines' edible grams. A sub-recipe line contributes the sub-recipe's total in proportion to
// the share of its yield used (by the yield's unit family, else by weight), its unknowns
// reported through it (Missing.Via); nesting is bounded by MaxDepth. A value stated on a
// recipe overrides the computed one (source stated) there and wherever the recipe is used.
// Divisions keep Scale places; sums and products are exact.
//
// # Labels
//
// BuildLabel turns a serving's values into the panel's declarations by 21 CFR 101.9 (Declare,
// DailyValuePercent, the 2016 DailyValues) with the serving size and the Contains statement of
// the nine major allergens; RenderLabelPDF prints the standard vertical panel. The rules and
// choices are in the repository's reference page on nutrition labels.
//
// What a food may state (its bounds per 100 g) is checked where foods are written, in
// internal/foods, which also takes sheets stated per serving.
package nutrition
