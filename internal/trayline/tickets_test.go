package trayline_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

const (
	al1Sesame = "AL1|1|FA^Food Allergy^HL70127|^Sesame|SV^Severe^HL70128|Anaphylaxis"
	al1Peanut = "AL1|1|FA^Food Allergy^HL70127|762952008^Peanut^SCT|SV^Severe^HL70128|Anaphylaxis"
	odsNPO    = "ODS|D||NPO^NPO after midnight^EPICDIET"
	odsNa     = "ODS|D||2GNA^2 gram sodium^EPICDIET"
	odsReg    = "ODS|D||REG^Regular Diet^EPICDIET"
	odsDys6   = "ODS|D||DYS6^Dysphagia Soft \\T\\ Bite Sized^LOCAL"
)

// menuFixture: a lunch of soup (sesame unknown: an item that does not state it), chicken
// (sesame-free, peanut-free) and satay (contains peanuts); rice is the regular diet's substitute.
type menuFixture struct{ soup, chicken, satay, rice uuid.UUID }

func (h *hospital) lunch() menuFixture {
	h.t.Helper()
	all := map[string]string{}
	for _, a := range []string{"milk", "egg", "fish", "crustacean_shellfish", "tree_nuts", "peanuts", "wheat", "soy", "sesame"} {
		all[a] = "free"
	}
	stock := h.item("Chicken stock", map[string]string{"peanuts": "free"}) // sesame not stated: unknown
	chickenItem := h.item("Chicken breast", all)
	peanut := map[string]string{}
	for k, v := range all {
		peanut[k] = v
	}
	peanut["peanuts"] = "contains"
	satayItem := h.item("Satay sauce", peanut)
	riceItem := h.item("Rice", all)
	f := menuFixture{
		soup:    h.recipe("Chicken soup", "soup", stock, map[string]any{"nutrition": map[string]string{"sodiumMg": "500"}, "iddsiLevel": 7}),
		chicken: h.recipe("Roast chicken", "entree", chickenItem, map[string]any{"nutrition": map[string]string{"sodiumMg": "300"}, "iddsiLevel": 7}),
		satay:   h.recipe("Chicken satay", "entree", satayItem, map[string]any{"iddsiLevel": 7}),
		rice:    h.recipe("Plain rice", "side", riceItem, map[string]any{"nutrition": map[string]string{"sodiumMg": "10"}, "iddsiLevel": 6}),
	}
	h.menu(f.soup, f.chicken, f.satay)
	h.call(http.MethodPut, "clinical/diets/regular/rules").JSON(map[string]any{
		"defaultRecipeIds": []uuid.UUID{f.soup, f.chicken, f.satay}, "substituteRecipeId": f.rice}).Do().Expect(http.StatusOK)
	return f
}

func checks(items []trayItem) string {
	var out []string
	for _, it := range items {
		out = append(out, it.Name+":"+it.Check)
	}
	return strings.Join(out, ",")
}

func TestGenerationChecksEveryItem(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	f := h.lunch()
	h.adt("A01", "1", "1001", "4W", "412", "A", odsReg)            // no allergy: the defaults
	h.adt("A01", "2", "1002", "4W", "410", "B", al1Sesame, odsReg) // sesame: soup is unknown → refused
	h.adt("A01", "3", "1003", "3E", "301", "A", al1Peanut, odsReg) // peanuts: satay contains
	h.adt("A01", "4", "1004", "4W", "411", "A", odsNPO)            // NPO: no ticket

	r := h.generate("lunch")
	if r.Created != 3 || r.SkippedNpo != 1 || r.Updated+r.Cancelled+r.Untouched != 0 {
		t.Fatalf("generation %+v", r)
	}
	list := h.tickets(h.owner, "")
	var order []string
	for _, tk := range list {
		order = append(order, tk.Unit+"/"+tk.Room+"/"+tk.Bed)
	}
	if strings.Join(order, " ") != "3E/301/A 4W/410/B 4W/412/A" {
		t.Fatalf("order %v", order)
	}
	if got := checks(h.byMRN("1001").Items); got != "Chicken soup:ok,Roast chicken:ok,Chicken satay:ok" {
		t.Fatalf("1001 items %s", got)
	}
	// Unknown never passes as free: the soup is replaced by the substitute, marked, with why.
	sesame := h.byMRN("1002")
	if got := checks(sesame.Items); got != "Plain rice:substituted,Roast chicken:ok,Chicken satay:ok" {
		t.Fatalf("1002 items %s", got)
	}
	if it := sesame.Items[0]; it.Replaces == nil || *it.Replaces != f.soup || !strings.Contains(strings.Join(it.Reasons, ";"), "not known to be free of sesame") {
		t.Fatalf("substitute %+v", it)
	}
	if strings.Join(sesame.Allergens, ",") != "sesame" {
		t.Fatalf("allergens %v", sesame.Allergens)
	}
	// The substitute is used once; a second conflict with no other substitute is refused.
	peanut := h.byMRN("1003")
	if got := checks(peanut.Items); got != "Chicken soup:ok,Roast chicken:ok,Plain rice:substituted" {
		t.Fatalf("1003 items %s", got)
	}
	if n := h.count(`SELECT count(*) FROM tray_tickets t JOIN patients p ON p.id = t.patient_id WHERE p.mrn = '1004'`); n != 0 {
		t.Fatalf("NPO patient has %d tickets", n)
	}

	// Selections: an item the patient's allergen is unknown in is refused with the reason, and
	// nothing is written.
	res := h.call(http.MethodPut, "tray-tickets/"+sesame.ID.String()+"/selections").JSON(map[string]any{"recipeIds": []uuid.UUID{f.chicken, f.soup}}).Do()
	e := res.ExpectCode(http.StatusBadRequest, "validation_failed")
	if !strings.Contains(string(res.Body), "recipeIds[1]") || !strings.Contains(string(res.Body), "not known to be free of sesame") {
		t.Fatalf("refusal %+v %s", e, res.Body)
	}
	if got := checks(h.byMRN("1002").Items); got != "Plain rice:substituted,Roast chicken:ok,Chicken satay:ok" {
		t.Fatalf("after refusal %s", got)
	}
	// Not on the menu: 400.
	h.call(http.MethodPut, "tray-tickets/"+sesame.ID.String()+"/selections").JSON(map[string]any{"recipeIds": []uuid.UUID{f.rice}}).Do().
		ExpectCode(http.StatusBadRequest, "validation_failed")
	var sel ticket
	h.call(http.MethodPut, "tray-tickets/"+sesame.ID.String()+"/selections").JSON(map[string]any{"recipeIds": []uuid.UUID{f.chicken}, "notes": "No sauce"}).Do().
		Expect(http.StatusOK).Decode(&sel)
	if checks(sel.Items) != "Roast chicken:ok" {
		t.Fatalf("selection %s", checks(sel.Items))
	}

	// Idempotent: again, nothing new; the selection is kept.
	if r := h.generate("lunch"); r.Created != 0 || r.Updated != 3 || r.SkippedNpo != 1 || r.Cancelled != 0 {
		t.Fatalf("second generation %+v", r)
	}
	if got := checks(h.byMRN("1002").Items); got != "Roast chicken:ok" {
		t.Fatalf("selection after regeneration %s", got)
	}
	if n := h.count(`SELECT count(*) FROM tray_tickets WHERE org_id = $1`, h.org); n != 3 {
		t.Fatalf("%d tickets", n)
	}
	// A started ticket is never touched; a discharged patient's queued ticket is cancelled; a
	// new admission gets one.
	h.status(h.owner, h.byMRN("1001").ID, "assembled").Expect(http.StatusOK)
	h.adt("A03", "5", "1003", "3E", "301", "A")
	h.adt("A01", "6", "1005", "5N", "501", "A", odsReg)
	h.adt("A03", "7", "1001", "4W", "412", "A")
	if r := h.generate("lunch"); r.Created != 1 || r.Updated != 1 || r.Cancelled != 1 || r.Untouched != 1 {
		t.Fatalf("third generation %+v", r)
	}
	if got := h.tickets(h.owner, "&status=cancelled"); len(got) != 1 || *got[0].MRN != "1003" {
		t.Fatalf("cancelled %+v", got)
	}
	if got := h.tickets(h.owner, "&status=assembled"); len(got) != 1 || *got[0].MRN != "1001" {
		t.Fatalf("assembled %+v", got)
	}
	// An unknown day part is 400; a site of another organization 404.
	h.call(http.MethodPost, "tray-tickets/generate").JSON(map[string]any{"siteId": h.site, "date": "2026-03-02", "dayPart": "brunch"}).Do().
		ExpectCode(http.StatusBadRequest, "validation_failed")
	h.call(http.MethodPost, "tray-tickets/generate").JSON(map[string]any{"siteId": uuid.New(), "date": "2026-03-02", "dayPart": "lunch"}).Do().
		Expect(http.StatusNotFound)
}

func TestTwoPersonCheckAndDelivery(t *testing.T) {
	t.Parallel()
	h := newHospital(t, func(c *config.Config) { c.WebhookAllowPrivate = true })
	h.lunch()
	h.adt("A01", "1", "2001", "4W", "412", "A", odsReg)
	h.generate("lunch")
	var mu sync.Mutex
	var bodies []map[string]any
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		mu.Lock()
		bodies = append(bodies, m)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rcv.Close)
	h.call(http.MethodPost, "webhooks").JSON(map[string]any{"url": rcv.URL + "/hooks", "events": []string{"tray.delivered"}}).Do().Expect(http.StatusCreated)

	staffA := h.env.Member(h.org, "inspector")
	staffB := h.env.Member(h.org, "inspector")
	tk := h.tickets(h.owner, "")[0]
	// Staff see no names or MRNs (viewClinical is manager and up).
	if got := h.tickets(staffA, ""); got[0].PatientName != nil || got[0].MRN != nil {
		t.Fatalf("staff see %+v", got[0])
	}
	if tk.PatientName == nil || *tk.PatientName != "DOE, JANE" || tk.MRN == nil {
		t.Fatalf("owner sees %+v", tk)
	}
	// Staff may not generate (manageClinical).
	h.as(staffA, http.MethodPost, "tray-tickets/generate").JSON(map[string]any{"siteId": h.site, "date": "2026-03-02", "dayPart": "lunch"}).Do().
		Expect(http.StatusForbidden)
	// Steps cannot be skipped.
	h.status(staffA, tk.ID, "checked").ExpectCode(http.StatusConflict, "conflict")
	h.status(staffA, tk.ID, "assembled").Expect(http.StatusOK)
	// The assembler cannot check their own tray.
	h.status(staffA, tk.ID, "checked").ExpectCode(http.StatusConflict, "conflict")
	h.status(staffB, tk.ID, "delivered").ExpectCode(http.StatusConflict, "conflict")
	h.status(staffB, tk.ID, "checked").Expect(http.StatusOK)
	if n := h.count(`SELECT count(*) FROM events WHERE org_id = $1 AND name = 'tray.delivered'`, h.org); n != 0 {
		t.Fatalf("%d events before delivery", n)
	}
	var done ticket
	h.status(staffA, tk.ID, "delivered").Expect(http.StatusOK).Decode(&done)
	if done.Status != "delivered" || len(done.History) != 4 {
		t.Fatalf("delivered %+v", done)
	}
	h.status(staffA, tk.ID, "delivered").ExpectCode(http.StatusConflict, "conflict")
	h.env.DrainWebhooks()
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 1 || bodies[0]["event"] != "tray.delivered" {
		t.Fatalf("deliveries %+v", bodies)
	}
	data, _ := bodies[0]["data"].(map[string]any)
	if data["ticketId"] != tk.ID.String() || data["patientId"] != tk.PatientID.String() || data["dayPart"] != "lunch" || data["siteId"] != h.site.String() {
		t.Fatalf("data %+v", data)
	}
	if n := h.count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND target_id = $2`, h.org, tk.ID); n != 3 {
		t.Fatalf("%d audit rows for the ticket", n)
	}
}

func TestTwoPersonCheckRace(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	h.lunch()
	h.adt("A01", "1", "3001", "4W", "412", "A", odsReg)
	h.generate("lunch")
	tk := h.tickets(h.owner, "")[0]
	a := h.env.Member(h.org, "inspector")
	h.status(a, tk.ID, "assembled").Expect(http.StatusOK)
	var checkers []apitest.Session
	for i := 0; i < 4; i++ {
		checkers = append(checkers, h.env.Member(h.org, "inspector"))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := range checkers {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res := h.status(checkers[i], tk.ID, "checked")
			if res.Status == http.StatusOK {
				mu.Lock()
				won++
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	if won != 1 {
		t.Fatalf("%d checks won", won)
	}
}

func TestTrayLinePlanAndRules(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	var r struct {
		Diet   string         `json:"diet"`
		Npo    bool           `json:"npo"`
		Limits map[string]any `json:"limits"`
	}
	h.call(http.MethodGet, "clinical/diets/low_sodium/rules").Do().Expect(http.StatusOK).Decode(&r)
	if r.Diet != "low_sodium" || r.Npo {
		t.Fatalf("empty rules %+v", r)
	}
	h.call(http.MethodPut, "clinical/diets/low_sodium/rules").JSON(map[string]any{"limits": map[string]string{"sodiumMg": "600"}, "iddsiLevel": 6}).Do().
		Expect(http.StatusOK)
	h.call(http.MethodGet, "clinical/diets/low_sodium/rules").Do().Expect(http.StatusOK).Decode(&r)
	if r.Limits["sodiumMg"] != "600" {
		t.Fatalf("rules %+v", r)
	}
	h.call(http.MethodPut, "clinical/diets/low_sodium/rules").JSON(map[string]any{"defaultRecipeIds": []uuid.UUID{uuid.New()}}).Do().
		ExpectCode(http.StatusBadRequest, "validation_failed")
	staff := h.env.Member(h.org, "inspector")
	h.as(staff, http.MethodPut, "clinical/diets/low_sodium/rules").JSON(map[string]any{}).Do().Expect(http.StatusForbidden)
	if n := h.count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'setDietRules'`, h.org); n != 1 {
		t.Fatalf("%d audit rows", n)
	}
	// Recipes carry nutrition per portion and an IDDSI level, versioned with the recipe.
	soup := h.recipe("Broth", "soup", h.item("Bones", map[string]string{}), map[string]any{"nutrition": map[string]string{"sodiumMg": "480.5", "fluidMl": "250"}, "iddsiLevel": 0})
	var rec struct {
		Nutrition  map[string]any `json:"nutrition"` // perPortion is an object
		IddsiLevel *int           `json:"iddsiLevel"`
	}
	h.call(http.MethodGet, "recipes/"+soup.String()).Do().Expect(http.StatusOK).Decode(&rec)
	if rec.Nutrition["sodiumMg"] != "480.5" || rec.Nutrition["fluidMl"] != "250" || rec.IddsiLevel == nil || *rec.IddsiLevel != 0 {
		t.Fatalf("recipe %+v", rec)
	}
	h.call(http.MethodPost, "recipes").JSON(map[string]any{"name": "Bad", "category": "x", "yield": map[string]string{"quantity": "1", "unit": "g"},
		"portion": map[string]string{"quantity": "1", "unit": "g"}, "ingredients": []any{}, "iddsiLevel": 9}).Do().Expect(http.StatusBadRequest)
	h.env.SetPlan(h.org, "free", nil)
	h.call(http.MethodGet, "clinical/diets/low_sodium/rules").Do().Expect(http.StatusPaymentRequired)
	h.call(http.MethodPost, "tray-tickets/generate").JSON(map[string]any{"siteId": h.site, "date": "2026-03-02", "dayPart": "lunch"}).Do().
		Expect(http.StatusPaymentRequired)
}

// Generations racing for the same meal make one ticket per patient.
func TestConcurrentGenerations(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	h.lunch()
	for i, mrn := range []string{"6001", "6002", "6003"} {
		h.adt("A01", mrn, mrn, "4W", "41"+string(rune('0'+i)), "A", odsReg)
	}
	var wg sync.WaitGroup
	created := make(chan int, 6)
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r genResult
			res := h.call(http.MethodPost, "tray-tickets/generate").JSON(map[string]any{"siteId": h.site, "date": "2026-03-02", "dayPart": "lunch"}).Do()
			if res.Status == http.StatusOK {
				_ = json.Unmarshal(res.Body, &r)
				created <- r.Created
			}
		}()
	}
	wg.Wait()
	close(created)
	total, ok := 0, 0
	for c := range created {
		total += c
		ok++
	}
	if ok != 6 || total != 3 {
		t.Fatalf("%d generations succeeded creating %d tickets", ok, total)
	}
	if n := h.count(`SELECT count(*) FROM tray_tickets WHERE org_id = $1`, h.org); n != 3 {
		t.Fatalf("%d tickets", n)
	}
}
