package kitchen_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// pie is a two-level recipe: a chicken pot pie using a velouté.
type pie struct {
	chicken, flour, butter, celery uuid.UUID
	veloute, pie                   recipe
}

func (k *kitchen) pie() pie {
	k.t.Helper()
	var p pie
	p.chicken = k.item("Chicken thigh", "kg", map[string]string{"milk": "free", "wheat": "free", "peanuts": "free"})
	p.flour = k.item("Flour", "lb", map[string]string{"wheat": "contains", "gluten": "contains", "milk": "free", "peanuts": "free"})
	p.butter = k.item("Butter", "kg", map[string]string{"milk": "contains", "wheat": "free", "peanuts": "free"})
	p.celery = k.item("Celery", "each", map[string]string{"milk": "free", "wheat": "free", "peanuts": "free", "celery": "contains"})
	k.cost(p.chicken, "1200", "10")
	k.cost(p.flour, "60", "50")
	k.cost(p.butter, "900", "5")
	vb := recipeBody("Velouté", amount{"4", "l"}, amount{"100", "ml"}, itemLine(p.butter, "200", "g"), itemLine(p.flour, "0.5", "lb"))
	vb["mayContain"] = []string{"mustard"}
	p.veloute = k.recipe(vb)
	trim := "80"
	chicken := itemLine(p.chicken, "5", "kg")
	chicken.TrimYieldPercent = &trim
	pb := recipeBody("Chicken pot pie", amount{"12", "kg"}, amount{"300", "g"}, chicken, subLine(p.veloute.ID, "4", "l"))
	pb["mayContain"] = []string{"egg"}
	pb["maxBatch"], pb["minBatch"], pb["shelfLifeHours"], pb["station"] = "20", "3", 72, "hot line"
	pb["criticalLimits"] = map[string]string{"cookMinTempF": "165", "holdHotMinTempF": "135"}
	p.pie = k.recipe(pb)
	return p
}

func TestRecipeDerivesAllergensAndCosts(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	p := k.pie()
	r := p.pie
	if r.Version != 1 || r.Archived || len(r.Ingredients) != 2 || r.Ingredients[1].Name != "Velouté" || r.Ingredients[0].Name != "Chicken thigh" {
		t.Fatalf("created %+v", r)
	}
	// contains at any depth; unknown where some item does not state it; free where all say free.
	for a, want := range map[string]string{"milk": "contains", "wheat": "contains", "gluten": "contains", "egg": "unknown", "peanuts": "free", "celery": "unknown"} {
		if r.Allergens[a] != want {
			t.Errorf("allergen %s = %q, want %q", a, r.Allergens[a], want)
		}
	}
	if len(r.Allergens) != 31 {
		t.Errorf("%d allergens, want the whole vocabulary", len(r.Allergens))
	}
	if strings.Join(r.MayContain, ",") != "egg,mustard" {
		t.Errorf("mayContain %v", r.MayContain)
	}
	// Chicken: 5 kg EP / 80% = 6.25 kg × 1200 = 7500; velouté: 0.2 kg × 900 + 0.5 lb × 60 = 210
	// for its whole yield of 4 l, all used. One portion is 300 g of 12 kg: 192.75 → 193.
	if r.CostCents != 7710 || r.PortionCostCents != 193 || !r.CostComplete || len(r.UncostedItems) != 0 {
		t.Errorf("cost %d / portion %d complete %v %v", r.CostCents, r.PortionCostCents, r.CostComplete, r.UncostedItems)
	}

	// A new version that adds celery (no cost): incomplete, celery listed; yesterday's version stays.
	body := recipeBody("Chicken & celery pie", amount{"12", "kg"}, amount{"300", "g"}, itemLine(p.chicken, "5", "kg"), subLine(p.veloute.ID, "2000", "ml"), itemLine(p.celery, "4", "each"))
	var v2 recipe
	k.call(http.MethodPut, "recipes/"+r.ID.String()).JSON(body).Do().Expect(http.StatusOK).Decode(&v2)
	if v2.Version != 2 || v2.CostComplete || len(v2.UncostedItems) != 1 || v2.UncostedItems[0].Name != "Celery" || v2.Allergens["celery"] != "contains" {
		t.Fatalf("version 2 %+v", v2)
	}
	// 5 × 1200 + 105 (half the velouté) = 6105.
	if v2.CostCents != 6105 {
		t.Errorf("version 2 cost %d", v2.CostCents)
	}
	var versions []struct {
		Version int    `json:"version"`
		Name    string `json:"name"`
	}
	k.call(http.MethodGet, "recipes/"+r.ID.String()+"/versions").Do().Expect(http.StatusOK).Decode(&versions)
	if len(versions) != 2 || versions[0].Version != 2 || versions[1].Name != "Chicken pot pie" {
		t.Fatalf("versions %+v", versions)
	}
	var v1 recipe
	k.call(http.MethodGet, "recipes/"+r.ID.String()+"/versions/1").Do().Expect(http.StatusOK).Decode(&v1)
	if v1.Name != "Chicken pot pie" || v1.Version != 1 || v1.CostCents != 7710 {
		t.Fatalf("version 1 %+v", v1)
	}
	k.call(http.MethodGet, "recipes/"+r.ID.String()+"/versions/3").Do().ExpectError(http.StatusNotFound, "Recipe version not found")

	// Listing and filters.
	var list []recipe
	k.call(http.MethodGet, "recipes?q=pie&limit=1").Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 1 || list[0].ID != r.ID {
		t.Fatalf("list %+v", list)
	}
	// Another organization does not see it.
	other, otherOrg := k.env.NewOwner("Elsewhere")
	k.env.Call(http.MethodGet, "orgs/"+otherOrg.String()+"/recipes/"+r.ID.String()).Token(other.AccessToken).Do().ExpectError(http.StatusNotFound, "Recipe not found")
}

func TestRecipeCycleIsRefusedNamingThePath(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	p := k.pie()
	// A third level: a stock used by the velouté.
	stock := k.recipe(recipeBody("Chicken stock", amount{"10", "l"}, amount{"1", "l"}, itemLine(p.chicken, "3", "kg")))
	vb := recipeBody("Velouté", amount{"4", "l"}, amount{"100", "ml"}, itemLine(p.butter, "200", "g"), subLine(stock.ID, "3", "l"))
	k.call(http.MethodPut, "recipes/"+p.veloute.ID.String()).JSON(vb).Do().Expect(http.StatusOK)
	versions := k.count("recipe_versions")
	// The stock using the pie closes a loop: stock → pie → velouté → stock.
	sb := recipeBody("Chicken stock", amount{"10", "l"}, amount{"1", "l"}, itemLine(p.chicken, "3", "kg"), subLine(p.pie.ID, "1", "kg"))
	e := k.call(http.MethodPut, "recipes/"+stock.ID.String()).JSON(sb).Do().ExpectError(http.StatusBadRequest, "")
	if len(e.Details) != 1 || e.Details[0].Field != "ingredients.1.recipeId" ||
		!strings.Contains(e.Details[0].Message, "Chicken stock → Chicken pot pie → Velouté → Chicken stock") {
		t.Fatalf("cycle error %+v", e)
	}
	// Using itself directly.
	sb = recipeBody("Chicken stock", amount{"10", "l"}, amount{"1", "l"}, subLine(stock.ID, "1", "l"))
	k.call(http.MethodPut, "recipes/"+stock.ID.String()).JSON(sb).Do().ExpectError(http.StatusBadRequest, "")
	if n := k.count("recipe_versions"); n != versions {
		t.Fatalf("a refused version was written: %d versions, want %d", n, versions)
	}
}

func TestRecipeValidationWritesNothing(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	p := k.pie()
	other, otherOrg := k.env.NewOwner("Elsewhere")
	var foreign struct {
		ID uuid.UUID `json:"id"`
	}
	k.env.Call(http.MethodPost, "orgs/"+otherOrg.String()+"/inventory-items").Token(other.AccessToken).
		JSON(map[string]any{"name": "Theirs", "category": "x", "baseUnit": "g"}).Do().Expect(http.StatusCreated).Decode(&foreign)
	recipes, versions := k.count("recipes"), k.count("recipe_versions")
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"another organization's item", recipeBody("X", amount{"1", "kg"}, amount{"100", "g"}, itemLine(foreign.ID, "1", "kg")), "ingredients.0.itemId"},
		{"a unit the item cannot convert", recipeBody("X", amount{"1", "kg"}, amount{"100", "g"}, itemLine(p.chicken, "2", "cup")), "ingredients.0.unit"},
		{"a sub-recipe in another family", recipeBody("X", amount{"1", "kg"}, amount{"100", "g"}, subLine(p.veloute.ID, "2", "kg")), "ingredients.0.unit"},
		{"an unknown sub-recipe", recipeBody("X", amount{"1", "kg"}, amount{"100", "g"}, subLine(uuid.New(), "2", "l")), "ingredients.0.recipeId"},
		{"portion of another family", recipeBody("X", amount{"1", "kg"}, amount{"1", "each"}), "portion.unit"},
		{"zero yield", recipeBody("X", amount{"0", "kg"}, amount{"1", "g"}), "yield.quantity"},
		{"trim over 100", recipeBody("X", amount{"1", "kg"}, amount{"1", "g"}, ingredient{ItemID: &p.chicken, Quantity: "1", Unit: "kg", TrimYieldPercent: ptr("120")}), "ingredients.0.trimYieldPercent"},
		{"both item and recipe", recipeBody("X", amount{"1", "kg"}, amount{"1", "g"}, ingredient{ItemID: &p.chicken, RecipeID: &p.veloute.ID, Quantity: "1", Unit: "kg"}), "ingredients.0"},
	}
	for _, c := range cases {
		e := k.call(http.MethodPost, "recipes").JSON(c.body).Do().ExpectError(http.StatusBadRequest, "")
		if len(e.Details) == 0 || e.Details[0].Field != c.field {
			t.Errorf("%s: %+v, want field %s", c.name, e, c.field)
		}
	}
	mb := recipeBody("X", amount{"1", "kg"}, amount{"1", "g"})
	mb["minBatch"], mb["maxBatch"] = "5", "2"
	k.call(http.MethodPost, "recipes").JSON(mb).Do().ExpectError(http.StatusBadRequest, "")
	if k.count("recipes") != recipes || k.count("recipe_versions") != versions {
		t.Fatal("a refused recipe was written")
	}
}

func TestArchivedRecipe(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	p := k.pie()
	var r recipe
	k.call(http.MethodPost, "recipes/"+p.veloute.ID.String()+"/archive").Do().Expect(http.StatusOK).Decode(&r)
	if !r.Archived {
		t.Fatal("not archived")
	}
	k.call(http.MethodPost, "recipes/"+p.veloute.ID.String()+"/archive").Do().Expect(http.StatusOK)
	k.call(http.MethodPut, "recipes/"+p.veloute.ID.String()).JSON(recipeBody("V", amount{"1", "l"}, amount{"1", "ml"})).Do().ExpectCode(http.StatusConflict, "conflict")
	// The pie that uses it still reads it.
	k.call(http.MethodGet, "recipes/"+p.pie.ID.String()).Do().Expect(http.StatusOK)
	var list []recipe
	k.call(http.MethodGet, "recipes?archived=true").Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 1 || list[0].ID != p.veloute.ID {
		t.Fatalf("archived list %+v", list)
	}
	// An archived recipe cannot go on a menu.
	k.call(http.MethodPost, "menus").JSON(map[string]any{"siteId": k.site, "name": "M", "startsOn": "2026-03-02", "cycleWeeks": 1,
		"items": []map[string]any{{"week": 1, "weekday": 1, "dayPart": "lunch", "recipeId": p.veloute.ID, "portionsPerCover": "1"}}}).
		Do().ExpectError(http.StatusBadRequest, "")
}

func ptr[T any](v T) *T { return &v }
