package trayline_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
)

// A FHIR NutritionOrder's nutrient limits, exclusions and supplement are shown on the patient's
// tray ticket, to every member who sees the ticket.
func TestTicketsShowFHIRDietNotes(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	h.lunch()
	h.adt("A01", "1", "2001", "4W", "412", "A")
	order := map[string]any{
		"resourceType": "NutritionOrder", "status": "active", "intent": "order",
		"identifier":          []any{map[string]any{"value": "NO-1"}},
		"patient":             map[string]any{"reference": "Patient?identifier=2001"},
		"excludeFoodModifier": []any{map[string]any{"text": "Cashew Nut"}},
		"oralDiet": map[string]any{
			"type":     []any{map[string]any{"coding": []any{map[string]any{"system": "http://snomed.info/sct", "code": "386619000", "display": "Low sodium diet"}}}},
			"nutrient": []any{map[string]any{"modifier": map[string]any{"text": "Sodium"}, "amount": map[string]any{"value": 2, "unit": "grams"}}},
		},
		"supplement": []any{map[string]any{"type": map[string]any{"text": "High protein shake"}, "productName": "Ensure Plus"}},
	}
	raw, _ := json.Marshal(map[string]any{"resourceType": "Bundle", "type": "batch", "entry": []any{map[string]any{"resource": order}}})
	h.env.Call(http.MethodPost, "orgs/"+h.org.String()+"/fhir?siteId="+h.site.String()).Raw("application/fhir+json", raw).
		Header("x-api-key", h.key).Do().Expect(http.StatusOK)
	if r := h.generate("lunch"); r.Created != 1 {
		t.Fatalf("generation %+v", r)
	}
	want := []string{"Sodium: at most 2 grams", "Exclude: Cashew Nut", "Supplement: Ensure Plus"}
	tk := h.byMRN("2001")
	if !slices.Equal(tk.DietNotes, want) || !slices.ContainsFunc(tk.Diets, func(d struct{ Code, Name string }) bool { return d.Code == "low_sodium" }) {
		t.Fatalf("ticket %+v", tk)
	}
	// A member who may not see names still sees what the tray must respect.
	staff := h.env.Member(h.org, "inspector")
	list := h.tickets(staff, "")
	if len(list) != 1 || list[0].MRN != nil || !slices.Equal(list[0].DietNotes, want) {
		t.Fatalf("staff view %+v", list)
	}
}
