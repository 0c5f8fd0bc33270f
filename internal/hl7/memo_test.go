package hl7

import (
	"slices"
	"sync"
	"testing"
)

// TestMappingIsTheSameCachedOrNot maps the same values from many goroutines,
// cold and warm, and compares with the uncached functions.
func TestMappingIsTheSameCachedOrNot(t *testing.T) {
	values := []CodedValue{
		{Code: "CCHO", Text: "Consistent Carbohydrate 1800 kcal"}, {Code: "2GNA", Text: "2 gram sodium"},
		{Text: "Peanuts - anaphylaxis; also walnuts"}, {Code: "762952008", Text: "Peanut"}, {Text: "NKA"},
		{Code: "XYZ", Text: "unknown thing"}, {Code: "CARD2GNA", Text: "Cardiac 2gm Na, Consistent Carbohydrate"},
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				for _, v := range values {
					if got, want := MapDiet(v), mapDiet(v); got.Status != want.Status || !slices.Equal(got.Diets, want.Diets) || got.By != want.By {
						t.Errorf("MapDiet(%v) = %+v, want %+v", v, got, want)
					}
					for _, c := range []AllergyCategory{CategoryFood, CategoryEnvironmental, CategoryUnknown} {
						if got, want := MapAllergen(c, v), mapAllergen(c, v); got.Status != want.Status || !slices.Equal(got.Allergens, want.Allergens) || got.By != want.By {
							t.Errorf("MapAllergen(%v) = %+v, want %+v", v, got, want)
						}
					}
				}
			}
		}()
	}
	wg.Wait()
}
