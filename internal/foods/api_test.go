package foods_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/foods"
)

// cheddar is a spec sheet given per serving.
func cheddar() map[string]any {
	return map[string]any{
		"name":         "Cheddar, sharp, shredded (Harvest Dairy)",
		"perServing":   map[string]any{"energyKcal": "110", "fatG": "9", "sodiumMg": "180", "carbohydrateG": "0.5", "proteinG": "7"},
		"servingGrams": "28",
		"portions":     []map[string]string{{"amount": "1", "measure": "cup", "grams": "113"}},
		"allergens":    map[string]string{"milk": "contains"},
		"addedSugarsG": "0",
	}
}

// Organization foods: created from a sheet per serving or per 100 g, read with nutrients per
// 100 g (unknown ones null), replaced, removed; every write audited.
func TestOrgFoodsCRUD(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	c := k.create(cheddar())
	if c.Source != "org" || c.ID.Version() != 7 || c.NdbNo != "" || c.ServingGrams == nil || *c.ServingGrams != "28" {
		t.Fatalf("created %+v", c)
	}
	want := map[string]string{"energyKcal": "392.857143", "fatG": "32.142857", "sodiumMg": "642.857143", "proteinG": "25", "addedSugarsG": "0"}
	for key, v := range want {
		if got := c.Per100g[key]; got == nil || *got != v {
			t.Errorf("per100g %s = %v, want %s", key, got, v)
		}
	}
	if c.Per100g["fiberG"] != nil || c.Per100g["transFatG"] != nil || len(c.Per100g) != len(foods.Nutrients) {
		t.Errorf("unknown nutrients must be null, every key present: %v", c.Per100g)
	}
	if *c.PerServing["energyKcal"] != "110" || c.Allergens["milk"] != "contains" || len(c.Portions) != 1 || c.Portions[0] != (portion{"1", "cup", "113"}) {
		t.Errorf("created %+v", c)
	}
	if got := k.get(c.ID); got.Name != c.Name || *got.Per100g["energyKcal"] != "392.857143" {
		t.Errorf("read %+v", got)
	}

	var u food
	k.call(http.MethodPut, "foods/"+c.ID.String()).JSON(map[string]any{
		"name": "Cheddar, mild", "per100g": map[string]any{"energyKcal": "403", "fatG": "33.1", "proteinG": "24.9", "carbohydrateG": "1.3"},
	}).Do().Expect(http.StatusOK).Decode(&u)
	if u.Name != "Cheddar, mild" || *u.Per100g["energyKcal"] != "403" || u.PerServing != nil || u.ServingGrams != nil || u.Per100g["sodiumMg"] != nil || len(u.Portions) != 0 {
		t.Errorf("updated %+v", u)
	}

	k.call(http.MethodDelete, "foods/"+c.ID.String()).Do().Expect(http.StatusNoContent)
	k.call(http.MethodGet, "foods/"+c.ID.String()).Do().ExpectError(http.StatusNotFound, "Food not found")
	k.call(http.MethodDelete, "foods/"+c.ID.String()).Do().ExpectError(http.StatusNotFound, "Food not found")
	if n := k.count(`SELECT count(*) FROM org_food_nutrients WHERE org_id = $1`, k.org); n != 0 {
		t.Errorf("%d nutrient rows left", n)
	}
	for action, n := range map[string]int{"createFood": 1, "updateFood": 1, "deleteFood": 1} {
		if got := k.count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = $2 AND target_id = $3`, k.org, action, c.ID); got != n {
			t.Errorf("%d %s audit rows, want %d", got, action, n)
		}
	}
}

// Bad sheets are 400s naming the field, and nothing is stored.
func TestOrgFoodValidation(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	with := func(change func(b map[string]any)) map[string]any {
		b := map[string]any{"name": "Oat milk", "per100g": map[string]any{"energyKcal": "46", "fatG": "1.5", "carbohydrateG": "7", "proteinG": "0.3"}}
		change(b)
		return b
	}
	per := func(b map[string]any) map[string]any { return b["per100g"].(map[string]any) }
	for _, c := range []struct {
		name, msg string
		body      map[string]any
	}{
		{"blank name", "name: must not be blank", with(func(b map[string]any) { b["name"] = "  " })},
		{"negative", "per100g.fatG: must not be negative", with(func(b map[string]any) { per(b)["fatG"] = "-1" })},
		{"too much", "per100g.sodiumMg: is more than 1000000 per 100 g", with(func(b map[string]any) { per(b)["sodiumMg"] = "1000000.5" })},
		{"too much per serving", "perServing.sodiumMg: is more than 1000000 per 100 g", with(func(b map[string]any) {
			delete(b, "per100g")
			b["perServing"], b["servingGrams"] = map[string]any{"sodiumMg": "20001"}, "2"
		})},
		{"macros over 100 g", "per100g: fat, carbohydrate and protein add up to 100.5 g per 100 g, more than the 100 g they are in", with(func(b map[string]any) {
			per(b)["fatG"], per(b)["carbohydrateG"], per(b)["proteinG"] = "60", "30.5", "10"
		})},
		{"macros over the serving", "perServing: fat, carbohydrate and protein add up to 110 g per 100 g", with(func(b map[string]any) {
			delete(b, "per100g")
			b["perServing"], b["servingGrams"] = map[string]any{"fatG": "22"}, "20"
		})},
		{"too precise", "per100g.fatG: has more than 6 decimal places", with(func(b map[string]any) { per(b)["fatG"] = "1.1234567" })},
		{"both", "perServing: give nutrients per100g or perServing, not both", with(func(b map[string]any) { b["perServing"] = map[string]any{} })},
		{"neither", "per100g: give nutrients per100g, or perServing with servingGrams", with(func(b map[string]any) { delete(b, "per100g") })},
		{"serving without grams", "servingGrams: is required with perServing", with(func(b map[string]any) { delete(b, "per100g"); b["perServing"] = map[string]any{} })},
		{"zero serving", "servingGrams: must be more than 0", with(func(b map[string]any) {
			delete(b, "per100g")
			b["perServing"], b["servingGrams"] = map[string]any{}, "0"
		})},
		{"grams without serving", "servingGrams: goes with perServing, not per100g", with(func(b map[string]any) { b["servingGrams"] = "30" })},
		{"added sugars twice", "addedSugarsG: differs from per100g.addedSugarsG", with(func(b map[string]any) { per(b)["addedSugarsG"], b["addedSugarsG"] = "1", "2" })},
		{"weightless portion", "portions.0.grams: must be more than 0", with(func(b map[string]any) {
			b["portions"] = []map[string]string{{"amount": "1", "measure": "cup", "grams": "0"}}
		})},
		{"blank measure", "portions.0.measure: must not be blank", with(func(b map[string]any) {
			b["portions"] = []map[string]string{{"amount": "1", "measure": " ", "grams": "240"}}
		})},
	} {
		if e := k.call(http.MethodPost, "foods").JSON(c.body).Do().ExpectError(http.StatusBadRequest, c.msg); len(e.Details) != 1 {
			t.Errorf("%s: details %+v", c.name, e.Details)
		}
	}
	// NaN, an exponent or a number instead of a string never reach the rules: the spec refuses them.
	for _, bad := range []any{"NaN", "1e3", 12.5, "Infinity", ""} {
		b := with(func(b map[string]any) { per(b)["fatG"] = bad })
		if res := k.call(http.MethodPost, "foods").JSON(b).Do(); res.Status != http.StatusBadRequest {
			t.Errorf("fatG %v: %d", bad, res.Status)
		}
	}
	if n := k.count(`SELECT count(*) FROM org_foods WHERE org_id = $1`, k.org); n != 0 {
		t.Errorf("%d foods stored by failed requests", n)
	}
	if n := k.count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'createFood'`, k.org); n != 0 {
		t.Errorf("%d audit rows of failed requests", n)
	}
	// A valid one at the edge: exactly 100 g of macronutrients, exactly 10⁶ mg.
	k.create(with(func(b map[string]any) {
		per(b)["fatG"], per(b)["carbohydrateG"], per(b)["proteinG"], per(b)["sodiumMg"] = "60", "30", "10", "1000000"
	}))
}

// Who may do what: viewers read and may not write; other organizations' foods are 404; USDA
// foods cannot be changed.
func TestOrgFoodAccess(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	c := k.create(cheddar())
	viewer := k.env.Member(k.org, "viewer")
	manager := k.env.Member(k.org, "manager")
	k.as(viewer, http.MethodGet, "foods/"+c.ID.String()).Do().Expect(http.StatusOK)
	k.as(viewer, http.MethodGet, "foods").Do().Expect(http.StatusOK)
	k.as(viewer, http.MethodPost, "foods").JSON(cheddar()).Do().Expect(http.StatusForbidden)
	k.as(viewer, http.MethodPut, "foods/"+c.ID.String()).JSON(cheddar()).Do().Expect(http.StatusForbidden)
	k.as(viewer, http.MethodDelete, "foods/"+c.ID.String()).Do().Expect(http.StatusForbidden)
	k.as(manager, http.MethodPut, "foods/"+c.ID.String()).JSON(cheddar()).Do().Expect(http.StatusOK)
	k.env.Call(http.MethodGet, "orgs/"+k.org.String()+"/foods").Do().Expect(http.StatusUnauthorized)

	// Another organization sees none of it, and cannot touch it.
	other, otherOrg := k.env.NewOwner("Elsewhere")
	path := "orgs/" + otherOrg.String() + "/foods/" + c.ID.String()
	k.env.Call(http.MethodGet, path).Token(other.AccessToken).Do().ExpectError(http.StatusNotFound, "Food not found")
	k.env.Call(http.MethodPut, path).Token(other.AccessToken).JSON(cheddar()).Do().ExpectError(http.StatusNotFound, "Food not found")
	k.env.Call(http.MethodDelete, path).Token(other.AccessToken).Do().ExpectError(http.StatusNotFound, "Food not found")
	var list []food
	k.env.Call(http.MethodGet, "orgs/"+otherOrg.String()+"/foods?q=cheddar").Token(other.AccessToken).Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 0 {
		t.Errorf("another organization found %+v", list)
	}
	// And the owner of one organization reaching into the other's path is 404 (not a member).
	k.env.Call(http.MethodGet, "orgs/"+k.org.String()+"/foods/"+c.ID.String()).Token(other.AccessToken).Do().Expect(http.StatusNotFound)

	// USDA foods are reference data: a PUT or DELETE on one is 404.
	k.importDir(writeFixture(t, nil))
	butter := foods.USDAFoodID("01001").String()
	k.call(http.MethodGet, "foods/"+butter).Do().Expect(http.StatusOK)
	k.call(http.MethodPut, "foods/"+butter).JSON(cheddar()).Do().ExpectError(http.StatusNotFound, "Food not found")
	k.call(http.MethodDelete, "foods/"+butter).Do().ExpectError(http.StatusNotFound, "Food not found")
	k.call(http.MethodGet, "foods/"+uuid.NewString()).Do().ExpectError(http.StatusNotFound, "Food not found")
}

// One search answers USDA's foods and the organization's, ranked, filtered by source, paged.
func TestFoodSearch(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	// Nothing imported: the organization's own foods answer alone.
	k.create(map[string]any{"name": "Butter, salted, cultured (Harvest Dairy)", "per100g": map[string]any{"fatG": "82"}})
	if got := k.search("q=butter"); len(got) != 1 || got[0].Source != "org" {
		t.Fatalf("before import: %+v", got)
	}
	k.importDir(writeFixture(t, nil))
	for _, q := range []string{"butter salted", "buter salted", "BUTTER, SALTED"} {
		got := k.search("q=" + url.QueryEscape(q))
		if len(got) < 2 || got[0].NdbNo != "01001" || got[0].Source != "usda" || got[0].FoodGroup != "Dairy and Egg Products" || len(got[0].Portions) != 2 {
			t.Errorf("q=%s: %+v", q, got)
		}
	}
	// A search reads each food's household measures with it: the same as the listing reads.
	k.create(map[string]any{"name": "Oat drink (Harvest Dairy)", "per100g": map[string]any{"fatG": "1.5"},
		"portions": []map[string]string{{"amount": "0.5", "measure": "cup", "grams": "120"}, {"amount": "1", "measure": "carton", "grams": "250"}}})
	listed := map[uuid.UUID][]portion{}
	for _, f := range k.search("limit=500") {
		listed[f.ID] = f.Portions
	}
	for _, q := range []string{"butter", "oat drink", "apples"} {
		for _, f := range k.search("q=" + url.QueryEscape(q) + "&limit=500") {
			if !slices.Equal(f.Portions, listed[f.ID]) {
				t.Errorf("q=%s: %s portions %+v, listed %+v", q, f.Name, f.Portions, listed[f.ID])
			}
		}
	}
	if got := k.search("q=butter+salted"); len(got) == 0 || len(got[0].Portions) != 2 || got[0].Portions[0] != (portion{"1", `pat (1" sq, 1/3" high)`, "5"}) {
		t.Errorf("butter's portions in a search: %+v", got)
	}
	if got := k.search("q=oat+drink"); len(got) == 0 || len(got[0].Portions) != 2 || got[0].Portions[0] != (portion{"0.5", "cup", "120"}) {
		t.Errorf("the organization's food's portions in a search: %+v", got)
	}
	if got := k.search("q=butter&source=org"); len(got) != 1 || got[0].Source != "org" {
		t.Errorf("source=org: %+v", got)
	}
	for _, f := range k.search("q=butter&source=usda") {
		if f.Source != "usda" {
			t.Errorf("source=usda: %+v", f)
		}
	}
	if got := k.search("q=apples"); len(got) == 0 || got[0].NdbNo != "09003" {
		t.Errorf("q=apples: %+v", got)
	}
	// Words that make no full-text query (punctuation, stop words, quotes) are still a search.
	for _, q := range []string{"!!!", "the", `"butter`, "'; DROP TABLE org_foods; --", "-butter", "butter OR"} {
		k.search("q=" + url.QueryEscape(q))
	}
	if got := k.search("q=zzzzqqq"); len(got) != 0 {
		t.Errorf("nonsense found %+v", got)
	}
	k.call(http.MethodGet, "foods?source=fda").Do().Expect(http.StatusBadRequest)
	k.call(http.MethodGet, "foods?q="+strings.Repeat("a", 201)).Do().Expect(http.StatusBadRequest)
	k.call(http.MethodGet, "foods?cursor=nonsense").Do().ExpectError(http.StatusBadRequest, "cursor: is not a cursor this endpoint issued")

	// Paging, with and without q: every food once, in order, across pages of 2.
	for i := range 5 {
		k.create(map[string]any{"name": fmt.Sprintf("Butter blend %d", i), "per100g": map[string]any{"fatG": "80"}})
	}
	for _, q := range []string{"", "q=butter"} {
		all := k.search(q + "&limit=500")
		var paged []food
		next := "foods?" + q + "&limit=2"
		for pages := 0; next != ""; pages++ {
			if pages > 20 {
				t.Fatal("paging does not end")
			}
			var page []food
			res := k.call(http.MethodGet, next).Do().Expect(http.StatusOK).Decode(&page)
			paged = append(paged, page...)
			next = ""
			if link := res.Header.Get("Link"); link != "" {
				u, err := url.Parse(strings.TrimSuffix(strings.TrimPrefix(link, "<"), `>; rel="next"`))
				if err != nil {
					t.Fatal(err)
				}
				next = "foods?" + u.RawQuery
			}
		}
		if len(paged) != len(all) || len(all) < 8 {
			t.Fatalf("%q: %d paged, %d in one page", q, len(paged), len(all))
		}
		for i := range all {
			if paged[i].ID != all[i].ID {
				t.Errorf("%q: item %d differs between paged and whole", q, i)
			}
		}
	}
}

// A typo that resembles more names than the trigram path checks (200 of each source) is still
// answered from names similar enough: 20 of a supplier's 250 foods.
func TestFoodSearchTypoOfManyNames(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	if _, err := k.env.Pool.Exec(t.Context(), `
		INSERT INTO org_foods (org_id, id, name, per_serving, basis_grams, created_at, updated_at)
		SELECT $1, gen_random_uuid(), 'Cream cheese (Northfield Creamery ' || i || ')', false, 100, now(), now()
		FROM generate_series(1, 250) i`, k.org); err != nil {
		t.Fatal(err)
	}
	if got := k.search("q=" + url.QueryEscape("northfeild creamery")); len(got) != 20 {
		t.Errorf("a typo of a supplier's name found %d foods, want 20", len(got))
	} else {
		for _, f := range got {
			if !strings.Contains(f.Name, "Northfield Creamery") {
				t.Errorf("a typo of a supplier's name found %q", f.Name)
			}
		}
	}
}
