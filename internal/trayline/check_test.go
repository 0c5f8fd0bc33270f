package trayline

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/kitchen"
)

func dec(s string) *decimal.Decimal { d := decimal.RequireFromString(s); return &d }
func intp(i int) *int               { return &i }

func recipe(mut func(*kitchen.RecipeFacts)) kitchen.RecipeFacts {
	r := kitchen.RecipeFacts{ID: uuid.New(), Name: "Dish", Category: "entree", Allergens: map[string]string{}}
	for _, a := range kitchen.Allergens {
		r.Allergens[a] = "free"
	}
	if mut != nil {
		mut(&r)
	}
	return r
}

func TestCheckTable(t *testing.T) {
	pasta := uuid.New()
	cases := []struct {
		name    string
		p       Patient
		rules   map[string]Rules
		r       kitchen.RecipeFacts
		before  Totals
		reasons []string // substrings, in order; empty: passes
	}{
		{"free passes", Patient{Allergens: []string{"peanuts"}}, nil, recipe(nil), Totals{}, nil},
		{"contains conflicts", Patient{Allergens: []string{"peanuts"}}, nil,
			recipe(func(r *kitchen.RecipeFacts) { r.Allergens["peanuts"] = "contains" }), Totals{}, []string{"contains peanuts"}},
		{"unknown never passes as free", Patient{Allergens: []string{"sesame"}}, nil,
			recipe(func(r *kitchen.RecipeFacts) { r.Allergens["sesame"] = "unknown" }), Totals{}, []string{"not known to be free of sesame"}},
		{"not stated is unknown", Patient{Allergens: []string{"sesame"}}, nil,
			recipe(func(r *kitchen.RecipeFacts) { delete(r.Allergens, "sesame") }), Totals{}, []string{"not known to be free of sesame"}},
		{"another allergen's status does not matter", Patient{Allergens: []string{"milk"}}, nil,
			recipe(func(r *kitchen.RecipeFacts) { r.Allergens["peanuts"] = "contains" }), Totals{}, nil},
		{"npo code", Patient{Diets: []string{"npo"}}, nil, recipe(nil), Totals{}, []string{"NPO"}},
		{"npo rule", Patient{Diets: []string{"clear_liquid"}}, map[string]Rules{"clear_liquid": {NPO: true}}, recipe(nil), Totals{}, []string{"NPO"}},
		{"texture unassessed", Patient{Diets: []string{"iddsi_food_5"}}, nil, recipe(nil), Totals{}, []string{"no assessed IDDSI level"}},
		{"texture too high", Patient{Diets: []string{"iddsi_food_5"}}, nil,
			recipe(func(r *kitchen.RecipeFacts) { r.IDDSILevel = intp(7) }), Totals{}, []string{"IDDSI level 7"}},
		{"texture at or below passes", Patient{Diets: []string{"iddsi_food_5"}}, nil,
			recipe(func(r *kitchen.RecipeFacts) { r.IDDSILevel = intp(4) }), Totals{}, nil},
		{"texture by rule", Patient{Diets: []string{"renal"}}, map[string]Rules{"renal": {IDDSILevel: intp(6)}},
			recipe(func(r *kitchen.RecipeFacts) { r.IDDSILevel = intp(7) }), Totals{}, []string{"IDDSI level 7"}},
		{"category not allowed", Patient{Diets: []string{"clear_liquid"}}, map[string]Rules{"clear_liquid": {AllowedCategories: []string{"Beverage"}}},
			recipe(nil), Totals{}, []string{"not allowed on the clear_liquid diet"}},
		{"category allowed case-insensitively", Patient{Diets: []string{"clear_liquid"}}, map[string]Rules{"clear_liquid": {AllowedCategories: []string{"ENTREE"}}},
			recipe(nil), Totals{}, nil},
		{"named recipe allowed", Patient{Diets: []string{"clear_liquid"}}, map[string]Rules{"clear_liquid": {AllowedCategories: []string{}, AllowedRecipeIDs: []uuid.UUID{pasta}}},
			recipe(func(r *kitchen.RecipeFacts) { r.ID = pasta }), Totals{}, nil},
		{"limit over with the meal so far", Patient{Diets: []string{"low_sodium"}}, map[string]Rules{"low_sodium": {Limits: Limits{SodiumMg: dec("600")}}},
			recipe(func(r *kitchen.RecipeFacts) { r.Nutrition = &kitchen.Nutrition{SodiumMg: dec("300")} }), Totals{SodiumMg: decimal.RequireFromString("400")},
			[]string{"sodium to 700 mg"}},
		{"limit at exactly passes", Patient{Diets: []string{"low_sodium"}}, map[string]Rules{"low_sodium": {Limits: Limits{SodiumMg: dec("600")}}},
			recipe(func(r *kitchen.RecipeFacts) { r.Nutrition = &kitchen.Nutrition{SodiumMg: dec("200")} }), Totals{SodiumMg: decimal.RequireFromString("400")}, nil},
		{"unstated nutrient is not limited", Patient{Diets: []string{"low_sodium"}}, map[string]Rules{"low_sodium": {Limits: Limits{SodiumMg: dec("1")}}},
			recipe(nil), Totals{}, nil},
		{"archived", Patient{}, nil, recipe(func(r *kitchen.RecipeFacts) { r.Archived = true }), Totals{}, []string{"archived"}},
		{"several reasons", Patient{Allergens: []string{"milk", "egg"}, Diets: []string{"iddsi_food_4"}}, nil,
			recipe(func(r *kitchen.RecipeFacts) { r.Allergens["milk"] = "contains"; r.Allergens["egg"] = "unknown" }), Totals{},
			[]string{"contains milk", "free of egg", "no assessed IDDSI"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Check(c.p, c.rules, c.r, c.before)
			if len(got) != len(c.reasons) {
				t.Fatalf("reasons %q, want %d like %q", got, len(c.reasons), c.reasons)
			}
			for i, want := range c.reasons {
				if !strings.Contains(got[i], want) {
					t.Errorf("reason %d %q, want it to contain %q", i, got[i], want)
				}
			}
		})
	}
}

// TestCheckProperty: over random patients and recipes, an item passes only if the recipe is
// known free of every allergen of the patient (unknown and contains never pass), every such
// allergen is named in a reason, and adding an allergen or a diet never removes a reason.
func TestCheckProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 18))
	states := []string{"contains", "unknown", "free", ""}
	diets := []string{"regular", "low_sodium", "iddsi_food_5", "renal", "npo", "clear_liquid"}
	rules := map[string]Rules{
		"low_sodium":   {Limits: Limits{SodiumMg: dec("500")}},
		"renal":        {AllowedCategories: []string{"entree", "side"}},
		"clear_liquid": {IDDSILevel: intp(0)},
	}
	for i := 0; i < 5000; i++ {
		r := recipe(func(r *kitchen.RecipeFacts) {
			for _, a := range kitchen.Allergens {
				if s := states[rng.IntN(len(states))]; s == "" {
					delete(r.Allergens, a)
				} else {
					r.Allergens[a] = s
				}
			}
			r.Category = []string{"entree", "side", "dessert"}[rng.IntN(3)]
			if rng.IntN(2) == 0 {
				r.IDDSILevel = intp(rng.IntN(8))
			}
			if rng.IntN(2) == 0 {
				r.Nutrition = &kitchen.Nutrition{SodiumMg: dec([]string{"100", "499", "500", "501"}[rng.IntN(4)])}
			}
		})
		var p Patient
		for _, a := range kitchen.Allergens {
			if rng.IntN(8) == 0 {
				p.Allergens = append(p.Allergens, a)
			}
		}
		for _, d := range diets {
			if rng.IntN(4) == 0 {
				p.Diets = append(p.Diets, d)
			}
		}
		got := Check(p, rules, r, Totals{})
		joined := strings.Join(got, "\n")
		for _, a := range p.Allergens {
			if r.Allergens[a] != "free" && !strings.Contains(joined, " "+a) {
				t.Fatalf("allergen %s is %q but passed: %q", a, r.Allergens[a], got)
			}
		}
		if len(got) == 0 {
			for _, a := range p.Allergens {
				if r.Allergens[a] != "free" {
					t.Fatalf("passed with %s %q", a, r.Allergens[a])
				}
			}
		}
		more := p
		more.Allergens = append(append([]string{}, p.Allergens...), kitchen.Allergens[rng.IntN(len(kitchen.Allergens))])
		more.Diets = append(append([]string{}, p.Diets...), diets[rng.IntN(len(diets))])
		if again := Check(more, rules, r, Totals{}); len(again) < len(got) {
			t.Fatalf("more restrictions gave fewer reasons: %q then %q", got, again)
		}
	}
}
