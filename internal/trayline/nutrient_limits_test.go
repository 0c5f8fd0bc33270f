package trayline_test

import (
	"encoding/json"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/clinical"
)

// nutrientTicket is what these tests read of a ticket beyond ticket.
type nutrientTicket struct {
	ID    uuid.UUID `json:"id"`
	Items []struct {
		Name        string   `json:"name"`
		Check       string   `json:"check"`
		Reasons     []string `json:"reasons"`
		ReasonCodes []string `json:"reasonCodes"`
	} `json:"items"`
	Conflict  bool `json:"conflict"`
	Nutrients map[string]struct {
		Value    string
		Complete bool
	} `json:"nutrients"`
	DaySoFar map[string]struct {
		Value    string
		Complete bool
	} `json:"daySoFar"`
	Checks []struct {
		Nutrient, Per, Source, Total, Status string
		Complete                             bool
	} `json:"nutrientChecks"`
	UnknownNutrients []string `json:"unknownNutrients"`
}

func (h *hospital) nutrientTickets(dayPart string) []nutrientTicket {
	h.t.Helper()
	var out []nutrientTicket
	h.call(http.MethodGet, "tray-tickets?siteId="+h.site.String()+"&date=2026-03-02&dayPart="+dayPart).Do().Expect(http.StatusOK).Decode(&out)
	return out
}

// foodRecipe makes an organization food of per100g, an item of it weighed in grams, and a
// recipe of 1000 g of the item in 10 portions of 100 g: a portion carries per100g exactly.
func (h *hospital) foodRecipe(name string, per100g map[string]string, extra map[string]any) uuid.UUID {
	h.t.Helper()
	var f struct {
		ID uuid.UUID `json:"id"`
	}
	h.call(http.MethodPost, "foods").JSON(map[string]any{"name": name, "per100g": per100g}).Do().Expect(http.StatusCreated).Decode(&f)
	var it struct {
		ID uuid.UUID `json:"id"`
	}
	all := map[string]string{}
	for _, a := range []string{"milk", "egg", "fish", "crustacean_shellfish", "tree_nuts", "peanuts", "wheat", "soy", "sesame"} {
		all[a] = "free"
	}
	h.call(http.MethodPost, "inventory-items").JSON(map[string]any{"name": name, "category": "test", "baseUnit": "g", "allergens": all, "foodId": f.ID}).
		Do().Expect(http.StatusCreated).Decode(&it)
	return h.recipe(name, "entree", it.ID, extra)
}

// patient puts a patient in house on diets (straight into the census, as the benchmark does).
func (h *hospital) patient(mrn string, diets ...string) uuid.UUID {
	h.t.Helper()
	id := uuid.New()
	orders, _ := json.Marshal([]any{map[string]any{"codes": []any{map[string]any{"diets": diets}}}})
	if _, err := h.env.Pool.Exec(h.t.Context(), `
		INSERT INTO patients (id, org_id, site_id, mrn, mrn_source, encounter_id, unit, room, bed, admitted_at, allergies, diet_orders, created_at, updated_at)
		VALUES ($1, $2, $3, $4, 'pid3_mr', gen_random_uuid(), '5N', '501', 'A', now(), '[]', $5, now(), now())`, id, h.org, h.site, mrn, orders); err != nil {
		h.t.Fatal(err)
	}
	return id
}

// dayMenu serves breakfast and lunch on 2 March 2026 (a Monday: week 1, weekday 1).
func (h *hospital) dayMenu(breakfast, lunch []uuid.UUID) {
	h.t.Helper()
	h.dayPartsMenu(map[string][]uuid.UUID{"breakfast": breakfast, "lunch": lunch})
}

// dayPartsMenu serves recipes by day part on 2 March 2026, each day part's in the order given.
func (h *hospital) dayPartsMenu(parts map[string][]uuid.UUID) {
	h.t.Helper()
	var items []map[string]any
	for dp, ids := range parts {
		for _, r := range ids {
			items = append(items, map[string]any{"week": 1, "weekday": 1, "dayPart": dp, "recipeId": r, "portionsPerCover": "1"})
		}
	}
	h.call(http.MethodPost, "menus").JSON(map[string]any{"siteId": h.site, "name": "Patient menu", "startsOn": "2026-03-02", "cycleWeeks": 1, "items": items}).
		Do().Expect(http.StatusCreated)
}

func itemChecks(t nutrientTicket) map[string]string {
	out := map[string]string{}
	for _, it := range t.Items {
		out[it.Name] = it.Check
	}
	return out
}

// renal: potassium ≤ 2,000 mg and phosphorus ≤ 1,000 mg a day, computed from foods.
// Breakfast: banana pudding 1,200 mg K (100 g at 1,200 mg per 100 g). Lunch: baked potato
// 500 mg, banana pudding 1,200 mg. The day: 1,200 + 500 = 1,700 ≤ 2,000, the potato passes;
// 1,700 + 1,200 = 2,900 > 2,000, the pudding is refused (conflict, nutrient_limit).
func renalDay(t *testing.T) (*hospital, uuid.UUID, map[string]uuid.UUID) {
	h := newHospital(t)
	r := map[string]uuid.UUID{
		"pudding": h.foodRecipe("Banana pudding", map[string]string{"potassiumMg": "1200", "phosphorusMg": "100"}, map[string]any{"iddsiLevel": 7}),
		"potato":  h.foodRecipe("Baked potato", map[string]string{"potassiumMg": "500", "phosphorusMg": "50"}, map[string]any{"iddsiLevel": 7}),
		"rice":    h.foodRecipe("Plain rice", map[string]string{"potassiumMg": "30", "phosphorusMg": "40"}, map[string]any{"iddsiLevel": 7}),
	}
	h.dayMenu([]uuid.UUID{r["pudding"]}, []uuid.UUID{r["potato"], r["pudding"]})
	h.call(http.MethodPut, "clinical/diets/renal/rules").JSON(map[string]any{"limits": map[string]any{"nutrients": map[string]any{
		"potassiumMg": map[string]string{"max": "2000", "per": "day"}, "phosphorusMg": map[string]string{"max": "1000", "per": "day"}}}}).
		Do().Expect(http.StatusOK)
	p := h.patient("R1", "renal")
	h.generate("breakfast")
	return h, p, r
}

func TestRenalTrayRefusedOnPotassium(t *testing.T) {
	t.Parallel()
	h, _, r := renalDay(t)
	var rules struct {
		Limits struct {
			Nutrients map[string]struct{ Max, Per string } `json:"nutrients"`
		} `json:"limits"`
	}
	h.call(http.MethodGet, "clinical/diets/renal/rules").Do().Expect(http.StatusOK).Decode(&rules)
	if l := rules.Limits.Nutrients["potassiumMg"]; l.Max != "2000" || l.Per != "day" {
		t.Fatalf("rules %+v", rules)
	}
	b := h.nutrientTickets("breakfast")
	if len(b) != 1 || itemChecks(b[0])["Banana pudding"] != "ok" || b[0].Nutrients["potassiumMg"].Value != "1200" {
		t.Fatalf("breakfast %+v", b)
	}
	h.generate("lunch")
	l := h.nutrientTickets("lunch")[0]
	c := itemChecks(l)
	if c["Baked potato"] != "ok" || c["Banana pudding"] != "conflict" || !l.Conflict {
		t.Fatalf("lunch %+v", l)
	}
	pud := l.Items[1]
	if len(pud.ReasonCodes) != 1 || pud.ReasonCodes[0] != "nutrient_limit" || pud.Reasons[0] !=
		"Banana pudding brings the day's potassium to 2900 mg, over the renal diet's 2000 mg a day" {
		t.Fatalf("pudding %+v", pud)
	}
	// The tray as planned: 500 + 1,200 = 1,700 mg; the day 1,200 + 1,700 = 2,900 mg, over.
	// Phosphorus: the day 100 + 50 + 100 = 250 mg, within 1,000.
	if l.Nutrients["potassiumMg"].Value != "1700" || l.DaySoFar["potassiumMg"].Value != "2900" || l.DaySoFar["phosphorusMg"].Value != "250" {
		t.Fatalf("totals %+v / %+v", l.Nutrients, l.DaySoFar)
	}
	if len(l.Checks) != 2 || l.Checks[0].Status != "over" || l.Checks[1].Status != "ok" {
		t.Fatalf("checks %+v", l.Checks)
	}
	// The tray cannot be assembled until someone changes it.
	h.status(h.owner, l.ID, "assembled").ExpectCode(http.StatusConflict, "conflict")
	// Selecting the pudding is refused with the reason; nothing changes.
	h.call(http.MethodPut, "tray-tickets/"+l.ID.String()+"/selections").JSON(map[string]any{"recipeIds": []uuid.UUID{r["pudding"]}}).Do().
		ExpectCode(http.StatusBadRequest, "validation_failed")
	// With a substitute that fits (rice: 1,700 + 30 = 1,730 ≤ 2,000) the pudding is replaced.
	h.call(http.MethodPut, "clinical/diets/renal/rules").JSON(map[string]any{"substituteRecipeId": r["rice"], "limits": map[string]any{"nutrients": map[string]any{
		"potassiumMg": map[string]string{"max": "2000", "per": "day"}}}}).Do().Expect(http.StatusOK)
	h.generate("lunch")
	l = h.nutrientTickets("lunch")[0]
	if c := itemChecks(l); c["Plain rice"] != "substituted" || l.Conflict {
		t.Fatalf("substituted %+v", l)
	}
	// Breakfast 1,200 + potato 500 + rice 30 = 1,730 mg.
	if l.DaySoFar["potassiumMg"].Value != "1730" {
		t.Fatalf("day %+v", l.DaySoFar)
	}
}

// Bad limits are refused with the field named, and nothing is stored.
func TestNutrientLimitsRefused(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	for _, body := range []map[string]any{
		{"potassiumMg": map[string]string{"per": "day"}},
		{"potassiumMg": map[string]string{"min": "3000", "max": "2000", "per": "day"}},
		{"potassiumMg": map[string]string{"max": "2000", "per": "week"}},
		{"vitaminCMg": map[string]string{"max": "2000", "per": "day"}},
		{"sodiumMg": map[string]string{"max": "-5", "per": "meal"}},
	} {
		h.call(http.MethodPut, "clinical/diets/renal/rules").JSON(map[string]any{"limits": map[string]any{"nutrients": body}}).Do().
			ExpectCode(http.StatusBadRequest, "validation_failed")
	}
	if n := h.count(`SELECT count(*) FROM diet_rules WHERE org_id = $1`, h.org); n != 0 {
		t.Fatalf("%d rules stored", n)
	}
	h.env.SetPlan(h.org, "free", nil)
	h.call(http.MethodPut, "clinical/diets/renal/rules").JSON(map[string]any{"limits": map[string]any{"nutrients": map[string]any{
		"potassiumMg": map[string]string{"max": "2000", "per": "day"}}}}).Do().Expect(http.StatusPaymentRequired)
}

// Consistent carbohydrate: 45–75 g a meal. Stated carbohydrate per portion: bread 30 g, soup
// 25 g, cake 40 g. Bread + soup = 55 g, within; + cake = 95 g > 75, the cake conflicts and the
// tray stays at 55 g. Bread alone = 30 g < 45: under.
func TestConsistentCarbohydrateMeal(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	item := h.item("Flour", map[string]string{})
	carb := func(name, g string) uuid.UUID {
		return h.recipe(name, "entree", item, map[string]any{"nutrition": map[string]string{"carbohydrateG": g}, "iddsiLevel": 7})
	}
	bread, soup, cake := carb("Bread", "30"), carb("Soup", "25"), carb("Cake", "40")
	h.dayMenu([]uuid.UUID{bread}, []uuid.UUID{bread, soup, cake})
	h.call(http.MethodPut, "clinical/diets/consistent_carbohydrate/rules").JSON(map[string]any{"limits": map[string]any{"nutrients": map[string]any{
		"carbohydrateG": map[string]string{"min": "45", "max": "75", "per": "meal"}}}}).Do().Expect(http.StatusOK)
	h.patient("C1", "consistent_carbohydrate")
	h.generate("breakfast")
	h.generate("lunch")
	b := h.nutrientTickets("breakfast")[0]
	if b.Nutrients["carbohydrateG"].Value != "30" || b.Checks[0].Status != "under" || itemChecks(b)["Bread"] != "ok" {
		t.Fatalf("breakfast %+v", b)
	}
	l := h.nutrientTickets("lunch")[0]
	c := itemChecks(l)
	if c["Bread"] != "ok" || c["Soup"] != "ok" || c["Cake"] != "conflict" {
		t.Fatalf("lunch %+v", l)
	}
	if l.Items[2].Reasons[0] != "Cake brings the meal's carbohydrate to 95 g, over the consistent_carbohydrate diet's 75 g a meal" {
		t.Fatalf("reason %q", l.Items[2].Reasons[0])
	}
	// The tray as planned keeps the cake until someone acts: 30 + 25 + 40 = 95 g, over.
	if l.Nutrients["carbohydrateG"].Value != "95" || l.Checks[0].Status != "over" {
		t.Fatalf("lunch totals %+v %+v", l.Nutrients["carbohydrateG"], l.Checks)
	}
	// Bread and soup selected: 55 g, within 45–75.
	h.call(http.MethodPut, "tray-tickets/"+l.ID.String()+"/selections").JSON(map[string]any{"recipeIds": []uuid.UUID{bread, soup}}).Do().Expect(http.StatusOK)
	l = h.nutrientTickets("lunch")[0]
	if l.Nutrients["carbohydrateG"].Value != "55" || l.Checks[0].Status != "ok" || l.Conflict {
		t.Fatalf("within %+v", l)
	}
}

// A FHIR NutritionOrder's sodium modifier (0.6 g) becomes the patient's own limit: 600 mg a
// day. Soup 500 mg passes; chicken 500 + 300 = 800 > 600 is replaced by rice (500 + 10 = 510);
// satay states no sodium and names no food: its sodium is unknown, so its check is `unknown`
// and the ticket lists sodiumMg, never ok.
func TestFHIRSodiumOrderFlowsToTrayCheck(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	h.lunch()
	h.adt("A01", "1", "2001", "4W", "412", "A")
	order := map[string]any{
		"resourceType": "NutritionOrder", "status": "active", "intent": "order",
		"identifier": []any{map[string]any{"value": "NO-1"}},
		"patient":    map[string]any{"reference": "Patient?identifier=2001"},
		"oralDiet": map[string]any{
			"type":     []any{map[string]any{"coding": []any{map[string]any{"system": "http://snomed.info/sct", "code": "386619000", "display": "Low sodium diet"}}}},
			"nutrient": []any{map[string]any{"modifier": map[string]any{"text": "Sodium"}, "amount": map[string]any{"value": 0.6, "unit": "grams"}}},
		},
	}
	raw, _ := json.Marshal(map[string]any{"resourceType": "Bundle", "type": "batch", "entry": []any{map[string]any{"resource": order}}})
	h.env.Call(http.MethodPost, "orgs/"+h.org.String()+"/fhir?siteId="+h.site.String()).Raw("application/fhir+json", raw).
		Header("x-api-key", h.key).Do().Expect(http.StatusOK)
	h.generate("lunch")
	l := h.nutrientTickets("lunch")[0]
	c := itemChecks(l)
	if c["Chicken soup"] != "ok" || c["Plain rice"] != "substituted" || c["Chicken satay"] != "unknown" || l.Conflict {
		t.Fatalf("lunch %+v", l)
	}
	if l.Items[1].ReasonCodes[0] != "nutrient_limit" ||
		l.Items[1].Reasons[0] != "Roast chicken brings the day's sodium to 800 mg, over the patient's diet order's 600 mg a day" {
		t.Fatalf("substitution %+v", l.Items[1])
	}
	if l.Items[2].ReasonCodes[0] != "nutrient_unknown" {
		t.Fatalf("satay %+v", l.Items[2])
	}
	// 500 + 10 + unknown: at least 510 mg, not complete; the check is unknown, listed.
	if s := l.Nutrients["sodiumMg"]; s.Value != "510" || s.Complete {
		t.Fatalf("sodium %+v", s)
	}
	if len(l.Checks) != 1 || l.Checks[0].Source != "order" || l.Checks[0].Status != "unknown" || len(l.UnknownNutrients) != 1 || l.UnknownNutrients[0] != "sodiumMg" {
		t.Fatalf("checks %+v unknown %v", l.Checks, l.UnknownNutrients)
	}
}

// Cardiac: sodium ≤ 2,000 mg a day, computed from foods (a portion is 100 g at the food's
// sodium per 100 g). Breakfast: oatmeal 300 mg. Lunch: turkey sandwich 1,100 mg. The day so far:
// 300 + 1,100 = 1,400 ≤ 2,000. Dinner: green beans 1,400 + 200 = 1,600, within; baked ham
// 1,600 + 800 = 2,400 > 2,000, conflict (nutrient_limit); steamed fish, judged after the items
// served (the ham is not): 1,600 + 400 = 2,000, not over 2,000, passes.
func TestCardiacSodiumDayLimit(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	sodium := func(name, mg string) uuid.UUID {
		return h.foodRecipe(name, map[string]string{"sodiumMg": mg}, map[string]any{"iddsiLevel": 7})
	}
	oatmeal, sandwich := sodium("Oatmeal", "300"), sodium("Turkey sandwich", "1100")
	beans, ham, fish := sodium("Green beans", "200"), sodium("Baked ham", "800"), sodium("Steamed fish", "400")
	h.dayPartsMenu(map[string][]uuid.UUID{"breakfast": {oatmeal}, "lunch": {sandwich}, "dinner": {beans, ham, fish}})
	h.call(http.MethodPut, "clinical/diets/cardiac/rules").JSON(map[string]any{"limits": map[string]any{"nutrients": map[string]any{
		"sodiumMg": map[string]string{"max": "2000", "per": "day"}}}}).Do().Expect(http.StatusOK)
	h.patient("H1", "cardiac")
	h.generate("breakfast")
	h.generate("lunch")
	// Breakfast and lunch within: the day so far 300 + 1,100 = 1,400 mg.
	b := h.nutrientTickets("breakfast")[0]
	if itemChecks(b)["Oatmeal"] != "ok" || b.Conflict || b.Nutrients["sodiumMg"].Value != "300" {
		t.Fatalf("breakfast %+v", b)
	}
	l := h.nutrientTickets("lunch")[0]
	if itemChecks(l)["Turkey sandwich"] != "ok" || l.Conflict || l.DaySoFar["sodiumMg"].Value != "1400" || !l.DaySoFar["sodiumMg"].Complete {
		t.Fatalf("lunch %+v", l)
	}
	if len(l.Checks) != 1 || l.Checks[0].Nutrient != "sodiumMg" || l.Checks[0].Per != "day" || l.Checks[0].Source != "cardiac" ||
		l.Checks[0].Total != "1400" || l.Checks[0].Status != "ok" {
		t.Fatalf("lunch checks %+v", l.Checks)
	}
	h.generate("dinner")
	d := h.nutrientTickets("dinner")[0]
	c := itemChecks(d)
	if c["Green beans"] != "ok" || c["Baked ham"] != "conflict" || c["Steamed fish"] != "ok" || !d.Conflict {
		t.Fatalf("dinner %+v", d)
	}
	hamItem := d.Items[1]
	if len(hamItem.ReasonCodes) != 1 || hamItem.ReasonCodes[0] != "nutrient_limit" || hamItem.Reasons[0] !=
		"Baked ham brings the day's sodium to 2400 mg, over the cardiac diet's 2000 mg a day" {
		t.Fatalf("ham %+v", hamItem)
	}
	// The tray as planned keeps the ham until someone acts: 200 + 800 + 400 = 1,400 mg; the day
	// 1,400 + 1,400 = 2,800 mg, over.
	if d.Nutrients["sodiumMg"].Value != "1400" || d.DaySoFar["sodiumMg"].Value != "2800" || !d.DaySoFar["sodiumMg"].Complete {
		t.Fatalf("dinner totals %+v / %+v", d.Nutrients["sodiumMg"], d.DaySoFar["sodiumMg"])
	}
	if len(d.Checks) != 1 || d.Checks[0].Total != "2800" || d.Checks[0].Status != "over" || len(d.UnknownNutrients) != 0 {
		t.Fatalf("dinner checks %+v unknown %v", d.Checks, d.UnknownNutrients)
	}
	h.status(h.owner, d.ID, "assembled").ExpectCode(http.StatusConflict, "conflict")
	// Selecting the ham again is refused: 1,400 + 800 = 2,200 > 2,000.
	h.call(http.MethodPut, "tray-tickets/"+d.ID.String()+"/selections").JSON(map[string]any{"recipeIds": []uuid.UUID{ham}}).Do().
		ExpectCode(http.StatusBadRequest, "validation_failed")
	// Beans and fish: 1,400 + 200 + 400 = 2,000 mg, at the limit and not over it.
	h.call(http.MethodPut, "tray-tickets/"+d.ID.String()+"/selections").JSON(map[string]any{"recipeIds": []uuid.UUID{beans, fish}}).Do().Expect(http.StatusOK)
	d = h.nutrientTickets("dinner")[0]
	if c := itemChecks(d); len(c) != 2 || c["Green beans"] != "ok" || c["Steamed fish"] != "ok" || d.Conflict {
		t.Fatalf("selected %+v", d)
	}
	if d.Nutrients["sodiumMg"].Value != "600" || d.DaySoFar["sodiumMg"].Value != "2000" || d.Checks[0].Total != "2000" || d.Checks[0].Status != "ok" {
		t.Fatalf("selected totals %+v / %+v / %+v", d.Nutrients["sodiumMg"], d.DaySoFar["sodiumMg"], d.Checks)
	}
	h.status(h.owner, d.ID, "assembled").Expect(http.StatusOK)
}

// Fluid restriction: fluid ≤ 1,500 ml a day, from what recipes state (fluidMl per portion).
// Breakfast: orange juice 250 ml, dry toast 0 ml. Lunch: broth 500 ml. The day so far:
// 250 + 0 + 500 = 750 ml. Dinner: orange juice 750 + 250 = 1,000, within; dry toast 1,000 + 0,
// within; milkshake 1,000 + 800 = 1,800 > 1,500, conflict; beef stew states no fluid: unknown,
// never ok.
func TestFluidRestrictionDayLimit(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	base := h.item("Base", map[string]string{})
	fluid := func(name string, ml *string) uuid.UUID {
		extra := map[string]any{"iddsiLevel": 7}
		if ml != nil {
			extra["nutrition"] = map[string]string{"fluidMl": *ml}
		}
		return h.recipe(name, "entree", base, extra)
	}
	ml := func(s string) *string { return &s }
	juice, toast, broth := fluid("Orange juice", ml("250")), fluid("Dry toast", ml("0")), fluid("Broth", ml("500"))
	shake, stew := fluid("Milkshake", ml("800")), fluid("Beef stew", nil)
	h.dayPartsMenu(map[string][]uuid.UUID{"breakfast": {juice, toast}, "lunch": {broth}, "dinner": {juice, toast, shake, stew}})
	h.call(http.MethodPut, "clinical/diets/fluid_restriction/rules").JSON(map[string]any{"limits": map[string]any{"nutrients": map[string]any{
		"fluidMl": map[string]string{"max": "1500", "per": "day"}}}}).Do().Expect(http.StatusOK)
	h.patient("F1", "fluid_restriction")
	h.generate("breakfast")
	h.generate("lunch")
	b := h.nutrientTickets("breakfast")[0]
	if c := itemChecks(b); c["Orange juice"] != "ok" || c["Dry toast"] != "ok" || b.Nutrients["fluidMl"].Value != "250" || !b.Nutrients["fluidMl"].Complete {
		t.Fatalf("breakfast %+v", b)
	}
	l := h.nutrientTickets("lunch")[0]
	if itemChecks(l)["Broth"] != "ok" || l.Conflict || l.DaySoFar["fluidMl"].Value != "750" || !l.DaySoFar["fluidMl"].Complete ||
		len(l.Checks) != 1 || l.Checks[0].Nutrient != "fluidMl" || l.Checks[0].Status != "ok" {
		t.Fatalf("lunch %+v", l)
	}
	h.generate("dinner")
	d := h.nutrientTickets("dinner")[0]
	c := itemChecks(d)
	if c["Orange juice"] != "ok" || c["Dry toast"] != "ok" || c["Milkshake"] != "conflict" || c["Beef stew"] != "unknown" || !d.Conflict {
		t.Fatalf("dinner %+v", d)
	}
	if it := d.Items[2]; len(it.ReasonCodes) != 1 || it.ReasonCodes[0] != "nutrient_limit" ||
		it.Reasons[0] != "Milkshake brings the day's fluid to 1800 ml, over the fluid_restriction diet's 1500 ml a day" {
		t.Fatalf("milkshake %+v", it)
	}
	if it := d.Items[3]; len(it.ReasonCodes) != 1 || it.ReasonCodes[0] != "nutrient_unknown" ||
		it.Reasons[0] != "Beef stew's fluid is not known; the fluid_restriction diet allows 1500 ml a day at most" {
		t.Fatalf("stew %+v", it)
	}
	// The tray as planned: 250 + 0 + 800 + unknown = at least 1,050 ml; the day at least
	// 750 + 1,050 = 1,800 ml: over whatever the stew holds.
	if f := d.Nutrients["fluidMl"]; f.Value != "1050" || f.Complete {
		t.Fatalf("dinner fluid %+v", f)
	}
	if f := d.DaySoFar["fluidMl"]; f.Value != "1800" || f.Complete {
		t.Fatalf("day fluid %+v", f)
	}
	if len(d.Checks) != 1 || d.Checks[0].Total != "1800" || d.Checks[0].Complete || d.Checks[0].Status != "over" {
		t.Fatalf("dinner checks %+v", d.Checks)
	}
	// Juice, stew and toast: the stew is taken but unknown, never ok; the toast states 0 ml and
	// passes even after it. The day: 750 + 250 + unknown + 0 = at least 1,000 ml, unknown.
	h.call(http.MethodPut, "tray-tickets/"+d.ID.String()+"/selections").JSON(map[string]any{"recipeIds": []uuid.UUID{juice, stew, toast}}).Do().Expect(http.StatusOK)
	d = h.nutrientTickets("dinner")[0]
	if c := itemChecks(d); len(c) != 3 || c["Orange juice"] != "ok" || c["Beef stew"] != "unknown" || c["Dry toast"] != "ok" || d.Conflict {
		t.Fatalf("selected %+v", d)
	}
	if f := d.DaySoFar["fluidMl"]; f.Value != "1000" || f.Complete {
		t.Fatalf("selected day fluid %+v", f)
	}
	if len(d.Checks) != 1 || d.Checks[0].Status != "unknown" || len(d.UnknownNutrients) != 1 || d.UnknownNutrients[0] != "fluidMl" {
		t.Fatalf("selected checks %+v unknown %v", d.Checks, d.UnknownNutrients)
	}
	// Juice and toast only: 750 + 250 + 0 = 1,000 ml, known and within.
	h.call(http.MethodPut, "tray-tickets/"+d.ID.String()+"/selections").JSON(map[string]any{"recipeIds": []uuid.UUID{juice, toast}}).Do().Expect(http.StatusOK)
	d = h.nutrientTickets("dinner")[0]
	if f := d.DaySoFar["fluidMl"]; f.Value != "1000" || !f.Complete || d.Checks[0].Status != "ok" || len(d.UnknownNutrients) != 0 {
		t.Fatalf("within %+v / %+v / %v", f, d.Checks, d.UnknownNutrients)
	}
	// Selecting the milkshake is refused: 750 + 800 = 1,550 > 1,500.
	h.call(http.MethodPut, "tray-tickets/"+d.ID.String()+"/selections").JSON(map[string]any{"recipeIds": []uuid.UUID{shake}}).Do().
		ExpectCode(http.StatusBadRequest, "validation_failed")
}

// A planned day over a per-day limit opens nutrition_risk about the patient once: eight
// generations of the lunch at the same time open one alert; generating again after a member
// resolves it opens none for the same day; the NPO check does not close it.
func TestDayOverLimitOpensNutritionRiskOnce(t *testing.T) {
	t.Parallel()
	h, patient, _ := renalDay(t)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.call(http.MethodPost, "tray-tickets/generate").JSON(map[string]any{"siteId": h.site, "date": "2026-03-02", "dayPart": "lunch"}).
				Do().Expect(http.StatusOK)
		}()
	}
	wg.Wait()
	q := `SELECT count(*) FROM alerts WHERE org_id = $1 AND kind = 'nutrition_risk' AND subject_id = $2 AND cause = 'nutrient_limit'`
	if n := h.count(q, h.org, patient); n != 1 {
		t.Fatalf("%d alerts", n)
	}
	var msg string
	if err := h.env.Pool.QueryRow(t.Context(), `SELECT message FROM alerts WHERE org_id = $1 AND subject_id = $2`, h.org, patient).Scan(&msg); err != nil {
		t.Fatal(err)
	}
	if msg != "Patient in 5N 501-A: planned potassium 2900 mg is over the renal diet's 2000 mg a day on 2026-03-02; dietitian review due" {
		t.Fatalf("message %q", msg)
	}
	if err := clinical.NutritionRiskTask(h.env.Pool, h.env.Clock).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := h.count(q+` AND resolved_at IS NULL`, h.org, patient); n != 1 {
		t.Fatal("the NPO check closed the nutrient alert")
	}
	if _, err := h.env.Pool.Exec(t.Context(), `UPDATE alerts SET resolved_at = now() WHERE org_id = $1 AND subject_id = $2`, h.org, patient); err != nil {
		t.Fatal(err)
	}
	h.generate("lunch")
	if n := h.count(q, h.org, patient); n != 1 {
		t.Fatalf("%d alerts after resolving", n)
	}
}

// The menu's daily nutrient summary: breakfast pudding 1,200 mg K; lunch potato 500 + pudding
// 1,200 = 1,700; the day 2,900. The renal diet may eat everything (no category limits); the
// iddsi_food_5 texture none (every recipe is level 7). Nothing states fluid: not complete.
func TestMenuNutritionSummary(t *testing.T) {
	t.Parallel()
	h, _, _ := renalDay(t)
	var m struct {
		DayParts []struct {
			DayPart string
			Items   []struct{ RecipeName string }
			Totals  map[string]struct {
				Value    string
				Complete bool
			}
		}
		Day map[string]struct {
			Value    string
			Complete bool
		}
		Diets []struct {
			Diet    string
			Texture *int
			Day     map[string]struct {
				Value    string
				Complete bool
			}
		}
	}
	h.call(http.MethodGet, "menus/effective/nutrition?siteId="+h.site.String()+"&date=2026-03-02").Do().Expect(http.StatusOK).Decode(&m)
	if len(m.DayParts) != 2 || m.DayParts[0].DayPart != "breakfast" || m.DayParts[1].Totals["potassiumMg"].Value != "1700" ||
		m.Day["potassiumMg"].Value != "2900" || !m.Day["potassiumMg"].Complete || m.Day["fluidMl"].Complete {
		t.Fatalf("summary %+v", m)
	}
	var renal, soft bool
	for _, d := range m.Diets {
		if d.Diet == "renal" && d.Texture == nil && d.Day["potassiumMg"].Value == "2900" {
			renal = true
		}
		if d.Diet == "renal" && d.Texture != nil && *d.Texture == 5 && d.Day["potassiumMg"].Value == "0" {
			soft = true
		}
	}
	if !renal || !soft {
		t.Fatalf("diets %+v", m.Diets)
	}
	// Another organization's owner, and a site that is not the organization's: 404.
	stranger, _ := h.env.NewOwner("Elsewhere")
	h.env.Call(http.MethodGet, "orgs/"+h.org.String()+"/menus/effective/nutrition?siteId="+h.site.String()+"&date=2026-03-02").Token(stranger.AccessToken).Do().
		Expect(http.StatusNotFound)
	h.call(http.MethodGet, "menus/effective/nutrition?siteId="+uuid.NewString()+"&date=2026-03-02").Do().Expect(http.StatusNotFound)
	h.call(http.MethodGet, "menus/effective/nutrition?siteId="+h.site.String()+"&date=March").Do().Expect(http.StatusBadRequest)
}

// TestBenchTrayNutrients measures, when SOUS_BENCH_TRAYLINE is set, the generation of 500
// patients' lunch trays with nutrient checks through the HTTP API: every patient renal (per-day
// potassium and phosphorus, so each reads the rest of the day) or consistent carbohydrate (per
// meal), recipes analysed from their foods, the breakfast trays already planned.
func TestBenchTrayNutrients(t *testing.T) {
	if os.Getenv("SOUS_BENCH_TRAYLINE") == "" {
		t.Skip("set SOUS_BENCH_TRAYLINE=1 to run")
	}
	h, _, _ := renalDay(t)
	h.call(http.MethodPut, "clinical/diets/consistent_carbohydrate/rules").JSON(map[string]any{"limits": map[string]any{"nutrients": map[string]any{
		"carbohydrateG": map[string]string{"min": "45", "max": "75", "per": "meal"}}}}).Do().Expect(http.StatusOK)
	if _, err := h.env.Pool.Exec(t.Context(), `
		INSERT INTO patients (id, org_id, site_id, mrn, mrn_source, encounter_id, unit, room, bed, admitted_at, allergies, diet_orders, created_at, updated_at)
		SELECT gen_random_uuid(), $1, $2, 'N' || i, 'pid3_mr', gen_random_uuid(), 'U' || (i % 12), lpad((i / 2)::text, 4, '0'), CASE WHEN i % 2 = 0 THEN 'A' ELSE 'B' END, now(),
		       '[]'::json,
		       CASE WHEN i % 2 = 0 THEN '[{"codes":[{"diets":["renal"]}]}]'::json ELSE '[{"codes":[{"diets":["consistent_carbohydrate"]}]}]'::json END,
		       now(), now()
		FROM generate_series(1, 499) AS i`, h.org, h.site); err != nil {
		t.Fatal(err)
	}
	h.generate("breakfast")
	for i := 0; i < 3; i++ {
		start := time.Now()
		r := h.generate("lunch")
		t.Logf("500 patients' lunch with nutrient checks, generation %d: %v (%+v)", i+1, time.Since(start), r)
	}
}
