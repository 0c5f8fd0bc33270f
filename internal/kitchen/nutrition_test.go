package kitchen_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// nutrientKeys are the API's nutrient keys in their fixed order.
var nutrientKeys = []string{"energyKcal", "fatG", "saturatedFatG", "transFatG", "cholesterolMg", "sodiumMg", "carbohydrateG", "fiberG",
	"sugarsG", "addedSugarsG", "proteinG", "vitaminDMcg", "calciumMg", "ironMg", "potassiumMg", "phosphorusMg"}

// per100 is a food's spec sheet per 100 g, in nutrientKeys order ("" leaves a nutrient out).
type per100 [16]string

func (p per100) body() map[string]string {
	out := map[string]string{}
	for i, k := range nutrientKeys {
		if p[i] != "" {
			out[k] = p[i]
		}
	}
	return out
}

func (p per100) d(i int) decimal.Decimal { return decimal.RequireFromString(p[i]) }

var (
	oats  = per100{"380", "6.5", "1", "0", "0", "5", "68", "10", "1", "0", "13", "0", "50", "4", "360", "400"}
	oats2 = per100{"400", "6.5", "1", "0", "0", "5", "68", "10", "1", "0", "13", "0", "50", "4", "360", "400"}
	milk  = per100{"60", "3", "2", "0", "10", "40", "5", "0", "5", "0", "3", "1", "120", "0", "150", "90"}
	// Honey states no added sugars: the item is flagged as an added sugar, so its sugars count.
	honey = per100{"300", "0", "0", "0", "0", "4", "82", "0", "80", "", "0", "0", "6", "0.4", "50", "4"}
)

// nineFree states every major allergen, free unless named as contained.
func nineFree(contains ...string) map[string]string {
	out := map[string]string{}
	for _, a := range []string{"milk", "egg", "fish", "crustacean_shellfish", "tree_nuts", "peanuts", "wheat", "soy", "sesame"} {
		out[a] = "free"
	}
	for _, a := range contains {
		out[a] = "contains"
	}
	return out
}

func (k *kitchen) food(name string, p per100, portions ...map[string]string) uuid.UUID {
	k.t.Helper()
	body := map[string]any{"name": name, "per100g": p.body()}
	if len(portions) > 0 {
		body["portions"] = portions
	}
	var f struct {
		ID uuid.UUID `json:"id"`
	}
	k.call(http.MethodPost, "foods").JSON(body).Do().Expect(http.StatusCreated).Decode(&f)
	return f.ID
}

// foodItem creates an inventory item linked to a food (extra adds fields: gramsPer, edible…).
func (k *kitchen) foodItem(name, base string, food *uuid.UUID, allergens map[string]string, extra map[string]any) uuid.UUID {
	k.t.Helper()
	body := map[string]any{"name": name, "category": "test", "baseUnit": base, "allergens": allergens}
	if food != nil {
		body["foodId"] = *food
	}
	for key, v := range extra {
		body[key] = v
	}
	var it struct {
		ID uuid.UUID `json:"id"`
	}
	k.call(http.MethodPost, "inventory-items").JSON(body).Do().Expect(http.StatusCreated).Decode(&it)
	return it.ID
}

type nutrientValue struct {
	Value    string `json:"value"`
	Complete bool   `json:"complete"`
	Source   string `json:"source"`
	Missing  []struct {
		ID         string   `json:"id"`
		Ingredient string   `json:"ingredient"`
		Reason     string   `json:"reason"`
		Via        []string `json:"via"`
	} `json:"missing"`
}

type labelLine struct {
	Nutrient string `json:"nutrient"`
	Text     string `json:"text"`
	Declared string `json:"declared"`
	Complete bool   `json:"complete"`
}

type recipeNutrition struct {
	Portions     string                   `json:"portions"`
	YieldGrams   nutrientValue            `json:"yieldGrams"`
	PortionGrams nutrientValue            `json:"portionGrams"`
	PerPortion   map[string]nutrientValue `json:"perPortion"`
	Per100g      map[string]nutrientValue `json:"per100g"`
	Label        struct {
		ServingSize string      `json:"servingSize"`
		Calories    labelLine   `json:"calories"`
		Nutrients   []labelLine `json:"nutrients"`
		Contains    []string    `json:"contains"`
		Complete    bool        `json:"complete"`
	} `json:"label"`
}

func (k *kitchen) nutrition(id uuid.UUID) recipeNutrition {
	k.t.Helper()
	var n recipeNutrition
	k.call(http.MethodGet, "recipes/"+id.String()+"/nutrition").Do().Expect(http.StatusOK).Decode(&n)
	return n
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// checkSet compares every nutrient with the expected exact decimal.
func checkSet(t *testing.T, what string, got map[string]nutrientValue, want [16]decimal.Decimal, complete bool) {
	t.Helper()
	for i, key := range nutrientKeys {
		v := got[key]
		if !dec(v.Value).Equal(want[i]) || v.Complete != complete {
			t.Errorf("%s %s = %+v, want %s (complete %v)", what, key, v, want[i], complete)
		}
	}
}

// The whole path: foods from spec sheets, items linked to them, a recipe with a sub-recipe,
// every nutrient per portion and per 100 g by hand, a stated override, the label and its PDF,
// a changed food changing the recipe at once, an unknown carried up from the sub-recipe.
func TestRecipeNutritionFromItemsToLabel(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	oatsFood := k.food("Rolled oats", oats, map[string]string{"amount": "1", "measure": "cup", "grams": "80"})
	milkFood := k.food("Whole milk", milk, map[string]string{"amount": "1", "measure": "cup", "grams": "240"})
	honeyFood := k.food("Honey", honey)
	oatsItem := k.foodItem("Oats", "kg", &oatsFood, nineFree("wheat"), nil)
	milkItem := k.foodItem("Milk", "l", &milkFood, nineFree("milk"), nil)
	honeyItem := k.foodItem("Honey", "kg", &honeyFood, nineFree(), map[string]any{"addedSugar": true})

	var item struct {
		FoodID     *uuid.UUID        `json:"foodId"`
		Edible     string            `json:"edible"`
		AddedSugar bool              `json:"addedSugar"`
		GramsPer   map[string]string `json:"gramsPer"`
	}
	k.call(http.MethodGet, "inventory-items/"+honeyItem.String()).Do().Expect(http.StatusOK).Decode(&item)
	if item.FoodID == nil || *item.FoodID != honeyFood || !item.AddedSugar || item.Edible != "edible_portion" || item.GramsPer == nil {
		t.Fatalf("honey item %+v", item)
	}

	// Honey milk yields 1 l: 4 cups of milk weigh 4 × 240 = 960 g by the food's measure, 40 g honey.
	sub := k.recipe(recipeBody("Honey milk", amount{"1", "l"}, amount{"250", "ml"}, itemLine(milkItem, "4", "cup"), itemLine(honeyItem, "40", "g")))
	// Oatmeal yields 2 l in 250 ml portions (8), cooked weight 1200 g: 400 g oats and half the honey milk.
	ob := recipeBody("Oatmeal", amount{"2", "l"}, amount{"250", "ml"}, itemLine(oatsItem, "400", "g"), subLine(sub.ID, "500", "ml"))
	ob["yieldGrams"] = "1200"
	oatmeal := k.recipe(ob)

	// expected is one portion and 100 g of oatmeal, by hand: a yield is oats × 400/100 plus half
	// of (milk × 960/100 + honey × 40/100), honey's added sugars being its sugars.
	expected := func(o per100) (perPortion, per100g [16]decimal.Decimal) {
		for i := range nutrientKeys {
			var h decimal.Decimal
			if honey[i] != "" {
				h = honey.d(i)
			} else { // addedSugarsG: the flagged item's sugars
				h = honey.d(8)
			}
			honeyMilk := milk.d(i).Mul(dec("9.6")).Add(h.Mul(dec("0.4")))
			total := o.d(i).Mul(dec("4")).Add(honeyMilk.Div(dec("2")))
			perPortion[i] = total.Div(dec("8"))
			per100g[i] = total.Mul(dec("100")).DivRound(dec("1200"), 9)
		}
		return
	}
	n := k.nutrition(oatmeal.ID)
	pp, p100 := expected(oats)
	checkSet(t, "per portion", n.PerPortion, pp, true)
	checkSet(t, "per 100 g", n.Per100g, p100, true)
	// The same numbers written out: energy (1520 + (576 + 120) / 2) / 8 = 233.5 kcal a portion.
	if n.PerPortion["energyKcal"].Value != "233.5" || n.PerPortion["addedSugarsG"].Value != "2" || n.Per100g["energyKcal"].Value != "155.666666667" {
		t.Errorf("energy %+v, added sugars %+v, per 100 g %+v", n.PerPortion["energyKcal"], n.PerPortion["addedSugarsG"], n.Per100g["energyKcal"])
	}
	if n.Portions != "8" || n.YieldGrams.Value != "1200" || n.YieldGrams.Source != "stated" || n.PortionGrams.Value != "150" {
		t.Errorf("portions %s, yield %+v, portion %+v", n.Portions, n.YieldGrams, n.PortionGrams)
	}
	// The label: 233.5 kcal declares 230; fat 5.05 g → 5 g; saturated 1.7 → 1.5 g; cholesterol 6 →
	// 5 mg; sodium 26.6 → 25 mg; sugars 5.5 → 6 g; calcium 97.15 → 100 mg; potassium 271.25 → 270 mg.
	if !n.Label.Complete || n.Label.ServingSize != "250 ml (150g)" || n.Label.Calories.Text != "230" || strings.Join(n.Label.Contains, ",") != "Milk,Wheat" {
		t.Errorf("label %+v", n.Label)
	}
	declared := map[string]string{}
	for _, l := range n.Label.Nutrients {
		declared[l.Nutrient] = l.Text
	}
	for key, want := range map[string]string{"fatG": "5g", "saturatedFatG": "1.5g", "transFatG": "0g", "cholesterolMg": "5mg", "sodiumMg": "25mg",
		"carbohydrateG": "39g", "fiberG": "5g", "sugarsG": "6g", "addedSugarsG": "2g", "proteinG": "8g", "calciumMg": "100mg", "potassiumMg": "270mg"} {
		if declared[key] != want {
			t.Errorf("label %s = %q, want %q", key, declared[key], want)
		}
	}
	pdf := k.call(http.MethodGet, "recipes/"+oatmeal.ID.String()+"/nutrition").Header("Accept", "application/pdf").Do().Expect(http.StatusOK)
	if ct := pdf.Header.Get("Content-Type"); ct != "application/pdf" || !bytes.HasPrefix(pdf.Body, []byte("%PDF")) || !bytes.Contains(pdf.Body, []byte("Nutrition Facts")) {
		t.Errorf("PDF: %s, %d bytes", ct, len(pdf.Body))
	}
	if cd, want := pdf.Header.Get("Content-Disposition"), `attachment; filename="nutrition-facts-oatmeal-`+k.env.Clock.Now().UTC().Format(time.DateOnly)+`.pdf"`; cd != want {
		t.Errorf("Content-Disposition %q, want %q", cd, want)
	}
	// The labels batch prints the panel, a page per label.
	batch := k.call(http.MethodPost, "labels").JSON(map[string]any{"siteId": k.site, "format": "pdf", "template": "nutrition",
		"items": []map[string]any{{"recipeId": oatmeal.ID, "count": 2}}}).Do().Expect(http.StatusOK)
	if n := bytes.Count(batch.Body, []byte("/Type /Page\n")); n != 2 || !bytes.Contains(batch.Body, []byte("Nutrition Facts")) {
		t.Errorf("batch: %d pages", n)
	}
	k.call(http.MethodPost, "labels").JSON(map[string]any{"siteId": k.site, "format": "zpl", "template": "nutrition",
		"items": []map[string]any{{"recipeId": oatmeal.ID, "count": 1}}}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")

	// The recipe read carries the same per-portion values.
	var read struct {
		YieldGrams string `json:"yieldGrams"`
		Nutrition  struct {
			PerPortion map[string]nutrientValue `json:"perPortion"`
		} `json:"nutrition"`
	}
	k.call(http.MethodGet, "recipes/"+oatmeal.ID.String()).Do().Expect(http.StatusOK).Decode(&read)
	checkSet(t, "recipe read", read.Nutrition.PerPortion, pp, true)
	if read.YieldGrams != "1200" {
		t.Errorf("yieldGrams %q", read.YieldGrams)
	}

	// A changed food changes the recipe at once: oats at 400 kcal make (1600 + 348) / 8 = 243.5.
	k.call(http.MethodPut, "foods/"+oatsFood.String()).JSON(map[string]any{"name": "Rolled oats", "per100g": oats2.body(),
		"portions": []map[string]string{{"amount": "1", "measure": "cup", "grams": "80"}}}).Do().Expect(http.StatusOK)
	n = k.nutrition(oatmeal.ID)
	pp, p100 = expected(oats2)
	checkSet(t, "after the food changed, per portion", n.PerPortion, pp, true)
	checkSet(t, "after the food changed, per 100 g", n.Per100g, p100, true)
	if n.PerPortion["energyKcal"].Value != "243.5" {
		t.Errorf("energy after the change %+v", n.PerPortion["energyKcal"])
	}

	// A stated sodium overrides the computed one, per portion and per 100 g (30 × 8 / 12 = 20).
	ob["nutrition"] = map[string]string{"sodiumMg": "30", "potassiumMg": "280"}
	k.call(http.MethodPut, "recipes/"+oatmeal.ID.String()).JSON(ob).Do().Expect(http.StatusOK)
	n = k.nutrition(oatmeal.ID)
	if s := n.PerPortion["sodiumMg"]; s.Value != "30" || s.Source != "stated" || !s.Complete {
		t.Errorf("stated sodium %+v", s)
	}
	if s := n.Per100g["sodiumMg"]; s.Value != "20" || s.Source != "stated" {
		t.Errorf("stated sodium per 100 g %+v", s)
	}
	if s := n.PerPortion["potassiumMg"]; s.Value != "280" || s.Source != "stated" {
		t.Errorf("stated potassium %+v", s)
	}
	if s := n.PerPortion["energyKcal"]; s.Source != "computed" {
		t.Errorf("energy %+v", s)
	}

	// An item with no food in the sub-recipe: every computed nutrient of the oatmeal lacks it,
	// through the sub-recipe; what is known stays a lower bound; the label is not printed.
	cinnamon := k.foodItem("Cinnamon", "g", nil, nineFree(), nil)
	k.call(http.MethodPut, "recipes/"+sub.ID.String()).JSON(recipeBody("Honey milk", amount{"1", "l"}, amount{"250", "ml"},
		itemLine(milkItem, "4", "cup"), itemLine(honeyItem, "40", "g"), itemLine(cinnamon, "2", "g"))).Do().Expect(http.StatusOK)
	n = k.nutrition(oatmeal.ID)
	e := n.PerPortion["energyKcal"]
	if e.Complete || e.Value != "243.5" || len(e.Missing) != 1 || e.Missing[0].Ingredient != "Cinnamon" || e.Missing[0].Reason != "no_food" ||
		e.Missing[0].ID != cinnamon.String() || strings.Join(e.Missing[0].Via, ",") != "Honey milk" {
		t.Errorf("energy with an unknown %+v", e)
	}
	if s := n.PerPortion["sodiumMg"]; !s.Complete || s.Source != "stated" {
		t.Errorf("stated sodium with an unknown %+v", s)
	}
	if n.Label.Complete || n.Label.Calories.Text != "unknown" {
		t.Errorf("label with an unknown %+v", n.Label)
	}
	res := k.call(http.MethodGet, "recipes/"+oatmeal.ID.String()+"/nutrition").Header("Accept", "application/pdf").Do()
	if e := res.ExpectCode(http.StatusConflict, "label_incomplete"); !strings.Contains(e.Error, "Cinnamon (no_food)") {
		t.Errorf("incomplete PDF: %+v", e)
	}
	k.call(http.MethodPost, "labels").JSON(map[string]any{"siteId": k.site, "format": "pdf", "template": "nutrition",
		"items": []map[string]any{{"recipeId": oatmeal.ID, "count": 1}}}).Do().ExpectCode(http.StatusConflict, "label_incomplete")
}

// Refusals: a food that is not the organization's, a unit with no way to grams, other
// organizations, roles too low.
func TestRecipeNutritionRefusals(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	egg := k.food("Egg", per100{"143", "9.5", "3.1", "0", "372", "142", "0.7", "0", "0.4", "0", "12.6", "2", "56", "1.8", "138", "198"})

	// A food id that is no food of the organization (nor USDA's) is refused, naming the field.
	before := k.count("inventory_items")
	e := k.call(http.MethodPost, "inventory-items").JSON(map[string]any{"name": "Mystery", "category": "test", "baseUnit": "kg",
		"foodId": uuid.New()}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	if len(e.Details) != 1 || e.Details[0].Field != "foodId" {
		t.Errorf("unknown food: %+v", e)
	}
	other := newKitchen(t)
	theirs := other.food("Their egg", per100{"143", "9.5", "3.1", "0", "372", "142", "0.7", "0", "0.4", "0", "12.6", "2", "56", "1.8", "138", "198"})
	k.call(http.MethodPost, "inventory-items").JSON(map[string]any{"name": "Stolen", "category": "test", "baseUnit": "kg",
		"foodId": theirs}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	e = k.call(http.MethodPost, "inventory-items").JSON(map[string]any{"name": "Eggs", "category": "test", "baseUnit": "each",
		"gramsPer": map[string]string{"case": "50"}}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	if len(e.Details) != 1 || e.Details[0].Field != "gramsPer.case" {
		t.Errorf("gramsPer of no unit: %+v", e)
	}
	if k.count("inventory_items") != before {
		t.Error("a refused item was written")
	}

	// Eggs by the each, linked to a food with no household measure: "each" cannot be weighed.
	eggs := k.foodItem("Eggs", "each", &egg, nineFree("egg"), nil)
	loose := k.foodItem("Garnish", "each", nil, nineFree(), nil)
	body := recipeBody("Omelette", amount{"1", "each"}, amount{"1", "each"}, itemLine(loose, "1", "each"), itemLine(eggs, "3", "each"))
	recipes := k.count("recipes")
	e = k.call(http.MethodPost, "recipes").JSON(body).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	if len(e.Details) != 1 || e.Details[0].Field != "ingredients.1.unit" || !strings.Contains(e.Error, `"Eggs" in each`) {
		t.Errorf("unit with no way to grams: %+v", e)
	}
	if k.count("recipes") != recipes {
		t.Error("a refused recipe was written")
	}
	// Declaring what an each weighs makes it weighable (a dozen through it: 12 × 50 g).
	k.call(http.MethodPut, "inventory-items/"+eggs.String()).JSON(map[string]any{"name": "Eggs", "category": "test", "baseUnit": "each",
		"foodId": egg, "allergens": nineFree("egg"), "gramsPer": map[string]string{"each": "50"}}).Do().Expect(http.StatusOK)
	body["ingredients"] = []ingredient{itemLine(loose, "1", "each"), itemLine(eggs, "1", "dozen")}
	omelette := k.recipe(body)
	n := k.nutrition(omelette.ID)
	// 600 g of egg: 143 × 6 = 858 kcal, lacking the garnish (no food).
	if v := n.PerPortion["energyKcal"]; v.Value != "858" || v.Complete || v.Missing[0].Reason != "no_food" {
		t.Errorf("omelette energy %+v", v)
	}

	// Another organization's recipe is not found; a version past the current one neither.
	other.call(http.MethodGet, "recipes/"+omelette.ID.String()+"/nutrition").Do().ExpectCode(http.StatusNotFound, "not_found")
	k.call(http.MethodGet, "recipes/"+omelette.ID.String()+"/nutrition?version=9").Do().ExpectCode(http.StatusNotFound, "not_found")
	k.call(http.MethodGet, "recipes/"+uuid.New().String()+"/nutrition").Do().ExpectCode(http.StatusNotFound, "not_found")

	// A viewer reads the analysis as they read the recipe, but writes neither items nor recipes
	// nor prints labels.
	viewer := k.env.Member(k.org, "viewer")
	k.as(viewer, http.MethodGet, "recipes/"+omelette.ID.String()+"/nutrition").Do().Expect(http.StatusOK)
	k.as(viewer, http.MethodPut, "inventory-items/"+eggs.String()).JSON(map[string]any{"name": "Eggs", "category": "test", "baseUnit": "each",
		"foodId": egg}).Do().ExpectCode(http.StatusForbidden, "forbidden")
	k.as(viewer, http.MethodPut, "recipes/"+omelette.ID.String()).JSON(body).Do().ExpectCode(http.StatusForbidden, "forbidden")
	k.as(viewer, http.MethodPost, "labels").JSON(map[string]any{"siteId": k.site, "format": "pdf", "template": "nutrition",
		"items": []map[string]any{{"recipeId": omelette.ID, "count": 1}}}).Do().ExpectCode(http.StatusForbidden, "forbidden")
}
