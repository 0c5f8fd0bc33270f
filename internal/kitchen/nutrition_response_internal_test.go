package kitchen

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/internal/nutrition"
)

// TestRecipeNutritionResponseIsTheGeneratedEncoding holds recipeNutritionResponse to what the
// generated response would write for the same analysis converted into api.RecipeNutrition:
// complete and incomplete values, stated ones, missing ingredients reached through a
// sub-recipe, a label with and without its allergens known.
func TestRecipeNutritionResponseIsTheGeneratedEncoding(t *testing.T) {
	d := decimal.RequireFromString
	oats := &nutrition.Food{Name: "Oats", Per100g: nutrition.Amounts{nutrition.EnergyKcal: d("379"), nutrition.FatG: d("6.5"),
		nutrition.SodiumMg: d("6"), nutrition.ProteinG: d("13.15"), nutrition.CarbohydrateG: d("67.7")}}
	sauce := &nutrition.Recipe{Name: "Sauce", Portions: d("4"), Yield: &nutrition.Amount{Quantity: d("1"), Unit: "l"}, Lines: []nutrition.Line{
		{ID: uuid.NewString(), Name: "Cream", Quantity: d("200"), Unit: "g"}, // no food: unknown through the sauce
		{ID: uuid.NewString(), Name: "Oats", Quantity: d("50"), Unit: "g", Food: oats},
	}}
	for _, c := range []struct {
		name      string
		stated    nutrition.Amounts
		allergens map[string]string
		recipe    *nutrition.Recipe
	}{
		{"complete", nil, map[string]string{"milk": "contains"}, nil},
		{"stated and missing", nutrition.Amounts{nutrition.SodiumMg: d("30")}, map[string]string{"milk": "unknown"}, sauce},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &nutrition.Recipe{Name: "Porridge", Portions: d("8"), Stated: c.stated, Lines: []nutrition.Line{
				{ID: uuid.NewString(), Name: "Oats", Quantity: d("400"), Unit: "g", Food: oats},
			}}
			if c.recipe != nil {
				r.Lines = append(r.Lines, nutrition.Line{ID: uuid.NewString(), Name: c.recipe.Name, Quantity: d("250"), Unit: "ml", Recipe: c.recipe})
			}
			an, err := nutrition.Analyze(r)
			if err != nil {
				t.Fatal(err)
			}
			label := nutrition.BuildLabel(nutrition.LabelInput{Name: r.Name, PerServing: an.PerPortion, Household: "1 cup",
				ServingGrams: an.PortionGrams, Allergens: c.allergens})
			id := uuid.New()
			portion := api.Amount{Quantity: "250", Unit: "ml"}
			got := httptest.NewRecorder()
			if err := (recipeNutritionResponse{RecipeID: id, Version: 3, Name: r.Name, Portion: portion, Portions: "8",
				YieldGrams: an.Grams, PortionGrams: an.PortionGrams, PerPortion: an.PerPortion, Per100g: an.Per100g, Label: label}).
				VisitGetRecipeNutritionResponse(got); err != nil {
				t.Fatal(err)
			}

			out := api.RecipeNutrition{RecipeId: id, Version: 3, Name: r.Name, Portion: portion, Portions: "8"}
			for _, p := range []struct{ from, to any }{
				{an.Grams, &out.YieldGrams}, {an.PortionGrams, &out.PortionGrams}, {an.PerPortion, &out.PerPortion},
				{an.Per100g, &out.Per100g}, {label, &out.Label},
			} {
				if err := convert(p.from, p.to); err != nil {
					t.Fatal(err)
				}
			}
			want := httptest.NewRecorder()
			if err := (api.GetRecipeNutrition200JSONResponse{Body: out}).VisitGetRecipeNutritionResponse(want); err != nil {
				t.Fatal(err)
			}
			if got.Code != want.Code || got.Header().Get("Content-Type") != want.Header().Get("Content-Type") {
				t.Errorf("status %d %q, want %d %q", got.Code, got.Header().Get("Content-Type"), want.Code, want.Header().Get("Content-Type"))
			}
			var g, w any
			if err := json.Unmarshal(got.Body.Bytes(), &g); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(want.Body.Bytes(), &w); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("written\n%s\ngenerated\n%s", got.Body, want.Body)
			}
			// The case covers what it says: values stated, and missing through the sub-recipe.
			if c.recipe != nil {
				for _, part := range []string{`"source":"stated"`, `"reason":"no_food"`, `"via":["Sauce"]`, `"complete":false`} {
					if !strings.Contains(got.Body.String(), part) {
						t.Errorf("no %s in %s", part, got.Body)
					}
				}
			}
		})
	}
}
