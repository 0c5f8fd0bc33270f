package clinical_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// A transaction of the official examples: the patient, their inpatient encounter, three
// allergies and the cardiac diet, referring to each other as Patient/example.
func TestFHIRTransactionOfOfficialExamples(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	a := h.fhir(bundleOf("transaction",
		post("http://hospital.example/fhir/Patient/example", example(t, "Patient-example")),
		post("", example(t, "Encounter-example")),
		post("", example(t, "AllergyIntolerance-fishallergy")),
		post("", example(t, "AllergyIntolerance-example")),
		post("", example(t, "AllergyIntolerance-medication")),
		post("", example(t, "NutritionOrder-cardiacdiet")),
	))
	if a.ResourceType != "Bundle" || a.Type != "transaction-response" ||
		!slices.Equal(a.statuses(), []string{"201 Created", "200 OK", "200 OK", "200 OK", "200 OK", "201 Created"}) {
		t.Fatalf("answer %s %v", a.Type, a.statuses())
	}
	if a.Entry[0].FullURL != "http://hospital.example/fhir/Patient/example" {
		t.Errorf("fullUrl not echoed: %q", a.Entry[0].FullURL)
	}
	p := h.patientByMRN("12345")
	for i, e := range a.Entry {
		if e.Response.Location != "/v1/"+orgPath(h.orgID, "patients", p.ID.String()) {
			t.Errorf("entry %d location %q", i, e.Response.Location)
		}
	}
	// Encounter-example has no location: admitted, with the warning HL7 gives, in FHIR's words.
	if o := a.Entry[1].Response.Outcome; o == nil || o.Issue[0].Severity != "warning" || o.Issue[0].Diagnostics != "no location in Encounter.location" {
		t.Errorf("encounter outcome %+v", o)
	}
	if p.Name.Family != "Chalmers" || p.Name.Given != "Peter" || p.Name.Middle != "James" || *p.DateOfBirth != "1974-12-25" ||
		p.Sex != "M" || p.MRNSource != "pid3_mr" || !p.InHouse || p.Encounters[0].PatientClass != "I" {
		t.Errorf("patient %+v", p)
	}
	if !slices.Equal(sorted(p.Allergens), []string{"fish", "tree_nuts"}) || len(p.Allergies) != 3 {
		t.Fatalf("allergens %v allergies %+v", p.Allergens, p.Allergies)
	}
	// Cashew by its SNOMED CT code: tree nuts only (the words "cashew nuts" would add peanuts);
	// the reaction's severity; penicillin kept, not the kitchen's.
	cashew, drug := p.Allergies[1], p.Allergies[2]
	if cashew.Code != "227493005" || !slices.Equal(cashew.Allergens, []string{"tree_nuts"}) || cashew.Severity != "severe" ||
		!slices.Equal(cashew.Reactions, []string{"Anaphylactic reaction", "Urticaria"}) {
		t.Errorf("cashew %+v", cashew)
	}
	if drug.Category != "drug" || drug.Status != "not_applicable" || drug.Code != "7980" {
		t.Errorf("penicillin %+v", drug)
	}
	if !slices.Contains(p.Flags, "severe_allergy") {
		t.Errorf("flags %v", p.Flags)
	}
	diet := ordersOfType(p, "diet")
	if len(diet) != 1 || !slices.Equal(diet[0].Diets, []string{"low_sodium", "fluid_restriction"}) || diet[0].Source != "fhir" ||
		diet[0].Status != "active" || !slices.Equal(diet[0].Exclusions, []string{"Cashew Nut"}) || len(diet[0].Nutrients) != 2 ||
		diet[0].Nutrients[0].Nutrient != "Sodium" || diet[0].Nutrients[0].Amount != 2 || diet[0].Nutrients[1].Amount != 1500 ||
		!slices.Contains(diet[0].Instructions, "Limit Sodium: 2 grams") || *diet[0].Placer != "http://goodhealthhospital.org/nutrition-requests|123" {
		t.Errorf("diet %+v", diet)
	}
	if pref := ordersOfType(p, "preference"); len(pref) != 1 || !slices.Equal(pref[0].Diets, []string{"dairy_free"}) {
		t.Errorf("preference %+v", pref)
	}
	// The trail keeps every entry, as it keeps every HL7 message.
	if n := count(h.env, "SELECT count(*) FROM hl7_messages WHERE org_id = $1 AND message_type LIKE 'FHIR %' AND outcome = 'applied'", h.orgID); n != 6 {
		t.Errorf("trail rows %d", n)
	}
	var trail []struct {
		Type    string `json:"type"`
		Outcome string `json:"outcome"`
		Raw     string `json:"raw"`
	}
	h.env.Call(http.MethodGet, orgPath(h.orgID, "adt/messages")).Token(h.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&trail)
	if len(trail) != 6 || !strings.HasPrefix(trail[5].Raw, `{"id":"example"`) && !strings.Contains(trail[5].Raw, `"resourceType":"Patient"`) {
		t.Errorf("trail %+v", trail)
	}
	// The same transaction again restates it: nothing is new.
	again := h.fhir(bundleOf("transaction",
		post("http://hospital.example/fhir/Patient/example", example(t, "Patient-example")),
		post("", example(t, "NutritionOrder-cardiacdiet")),
	))
	if !slices.Equal(again.statuses(), []string{"200 OK", "200 OK"}) {
		t.Errorf("restated %v", again.statuses())
	}
	if q := h.patientByMRN("12345"); q.ID != p.ID || len(q.DietOrders) != 2 || q.DietOrders[0].ID != p.DietOrders[0].ID {
		t.Errorf("restated patient %+v", q.DietOrders)
	}
}

// Every official NutritionOrder example in one batch, each for its own patient, and what each
// does to the census.
func TestFHIRNutritionOrderExamples(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	type want struct {
		example   string
		types     []string // order types, in order
		diets     []string // the patient's diets, sorted
		product   string   // of the first supplement or enteral order
		unmapped  bool
		nutrients []string
	}
	cases := []want{
		{"NutritionOrder-cardiacdiet", []string{"diet", "preference"}, []string{"dairy_free", "fluid_restriction", "low_sodium"}, "", false, []string{"Sodium", "Fluid"}},
		{"NutritionOrder-diabeticdiet", []string{"diet", "preference"}, []string{"consistent_carbohydrate", "dairy_free"}, "", false, []string{"Carbohydrate"}},
		{"NutritionOrder-renaldiet", []string{"diet", "preference"}, []string{"dairy_free", "renal"}, "", false, []string{"Sodium", "Phosphorus", "Potassium"}},
		{"NutritionOrder-fiberrestricteddiet", []string{"diet", "preference"}, []string{"dairy_free", "low_fat", "low_fiber"}, "", false, []string{"Fat"}},
		// Pureed diet, pureed texture, nectar-thick liquids (IDDSI 4 and 2), and a high energy
		// pudding the vocabulary does not know, kept for review.
		{"NutritionOrder-pureeddiet", []string{"diet", "preference"}, []string{"dairy_free", "iddsi_drink_2", "iddsi_food_4"}, "", false, nil},
		{"NutritionOrder-pureeddiet-simple", []string{"diet", "supplement"}, []string{"iddsi_drink_2", "iddsi_food_4"}, "Ensure Pudding 4 oz container", true, nil},
		// "Texture modified diet" names no level (kept for review); its chopped-meat texture is
		// IDDSI 6.
		{"NutritionOrder-texturemodified", []string{"diet"}, []string{"iddsi_food_6"}, "", true, nil},
		{"NutritionOrder-diabeticsupplement", []string{"supplement", "preference"}, []string{"consistent_carbohydrate", "kosher"}, "Glucerna", false, nil},
		{"NutritionOrder-energysupplement", []string{"supplement", "preference"}, []string{"kosher"}, "Ensure", true, nil},
		{"NutritionOrder-proteinsupplement", []string{"supplement"}, []string{"high_protein"}, "Beneprotein", false, nil},
		// Tube feedings are recorded and shown, never mapped to a diet.
		{"NutritionOrder-enteralbolus", []string{"enteral", "preference"}, []string{"dairy_free"}, "Acme High Protein Formula", false, nil},
		{"NutritionOrder-enteralcontinuous", []string{"enteral"}, []string{}, "Acme Diabetes Formula", false, nil},
		{"NutritionOrder-infantenteral", []string{"enteral"}, []string{}, "Acme Infant Formula + Iron", false, nil},
	}
	entries := make([]entry, 0, len(cases))
	for i, c := range cases {
		entries = append(entries, post("", forMRN(example(t, c.example), fmt.Sprintf("NO-%02d", i))))
	}
	a := h.fhir(bundleOf("batch", entries...))
	if a.Type != "batch-response" {
		t.Fatalf("type %s", a.Type)
	}
	for i, c := range cases {
		if a.Entry[i].Response.Status != "201 Created" {
			t.Errorf("%s: %s %+v", c.example, a.Entry[i].Response.Status, a.Entry[i].Response.Outcome)
			continue
		}
		p := h.patientByMRN(fmt.Sprintf("NO-%02d", i))
		var types []string
		for _, o := range p.DietOrders {
			types = append(types, o.Type)
		}
		if !slices.Equal(types, c.types) || !slices.Equal(sorted(p.Diets), c.diets) {
			t.Errorf("%s: types %v diets %v, want %v %v", c.example, types, sorted(p.Diets), c.types, c.diets)
		}
		if c.product != "" {
			i := slices.IndexFunc(p.DietOrders, func(o dietOrder) bool { return o.Type == "supplement" || o.Type == "enteral" })
			if i < 0 || strings.TrimSpace(p.DietOrders[i].Product) != c.product {
				t.Errorf("%s: product of %+v", c.example, p.DietOrders)
			}
		}
		var nutrients []string
		for _, n := range p.DietOrders[0].Nutrients {
			nutrients = append(nutrients, n.Nutrient)
		}
		if !slices.Equal(nutrients, c.nutrients) {
			t.Errorf("%s: nutrients %v", c.example, nutrients)
		}
		if got := slices.Contains(p.Flags, "unmapped_diet"); got != c.unmapped {
			t.Errorf("%s: flags %v", c.example, p.Flags)
		}
		// An unmapped code is a warning on the entry, as it is a result detail in HL7.
		warned := a.Entry[i].Response.Outcome != nil && a.Entry[i].Response.Outcome.Issue[0].Code == "code-invalid"
		if warned != c.unmapped {
			t.Errorf("%s: outcome %+v", c.example, a.Entry[i].Response.Outcome)
		}
	}
	// The cardiac order's allergyIntolerance reference is not an entry of this batch: its
	// display is recorded as a food allergy, so the tray line avoids it.
	if p := h.patientByMRN("NO-00"); len(p.Allergies) != 1 || p.Allergies[0].Text != "Cashew Nuts" ||
		!slices.Contains(p.Allergens, "tree_nuts") {
		t.Errorf("referenced allergy %+v", p.Allergies)
	}
	enteral := h.patientByMRN("NO-10").DietOrders[0]
	if enteral.Codes[0].Status != "not_applicable" || !slices.Contains(enteral.Instructions, "Route: Instillation, gastrostomy tube") ||
		!slices.Contains(enteral.Instructions, "Caloric density: 1.5 calories per milliliter") {
		t.Errorf("enteral %+v", enteral)
	}
	texture := h.patientByMRN("NO-06").DietOrders[0]
	if !slices.Contains(texture.Instructions, "Texture: Regular, Chopped Meat (Regular, Chopped Meat)") {
		t.Errorf("texture instructions %v", texture.Instructions)
	}
	// The unknown codes await review like HL7's, with their occurrences.
	codes := h.unmappedCodes(h.owner.AccessToken, "kind=diet")
	var keys []string
	for _, c := range codes {
		keys = append(keys, c.Code)
	}
	if !slices.Contains(keys, "435801000124108") || !slices.Contains(keys, "442971000124100") {
		t.Errorf("unmapped %v", keys)
	}
}

// Oracle Health sends oral diets as text only; they map as HL7 diet text does, an unknown one is
// kept for review, and the organization's mapping applies to the next order.
func TestFHIRTextOnlyDiets(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	order := func(mrn, id string, texts ...string) map[string]any {
		types := make([]any, 0, len(texts))
		for _, s := range texts {
			types = append(types, map[string]any{"text": s})
		}
		return forMRN(map[string]any{
			"resourceType": "NutritionOrder", "status": "active", "intent": "order",
			"identifier": []any{map[string]any{"system": "urn:oid:2.16.840.1.113883.3.13.6", "value": id}},
			"dateTime":   "2026-03-02T09:00:00-06:00",
			"oralDiet":   map[string]any{"type": types},
		}, mrn)
	}
	a := h.fhir(bundleOf("batch",
		post("", order("OH-1", "55001", "Cardiac Diet 2gm Sodium")),
		post("", order("OH-2", "55002", "NPO")),
		post("", order("OH-3", "55003", "Consistent Carbohydrate Diet 1800 Calorie", "Mechanical Soft Diet")),
		post("", forMRN(example(t, "Encounter-example"), "OH-4")),
		post("", order("OH-4", "55004", "Bistro Selections")),
	))
	if !slices.Equal(a.statuses(), []string{"201 Created", "201 Created", "201 Created", "201 Created", "201 Created"}) {
		t.Fatalf("statuses %v", a.statuses())
	}
	for mrn, want := range map[string][]string{
		"OH-1": {"cardiac", "low_sodium"}, "OH-2": {"npo"}, "OH-3": {"consistent_carbohydrate", "iddsi_food_6"}, "OH-4": {},
	} {
		if p := h.patientByMRN(mrn); !slices.Equal(sorted(p.Diets), want) {
			t.Errorf("%s: diets %v want %v", mrn, p.Diets, want)
		}
	}
	p := h.patientByMRN("OH-4")
	if !slices.Contains(p.Flags, "unmapped_diet") || p.DietOrders[0].Codes[0].Text != "Bistro Selections" {
		t.Fatalf("unmapped %+v", p)
	}
	m := h.mapCode(h.owner.AccessToken, "BISTRO SELECTIONS", map[string]any{"kind": "diet", "diets": []string{"cardiac"}})
	if m.ReappliedTo != 1 {
		t.Errorf("mapping reapplied to %d", m.ReappliedTo)
	}
	h.fhir(bundleOf("batch", post("", order("OH-5", "55005", "Bistro Selections"))))
	if p := h.patientByMRN("OH-5"); !slices.Equal(p.Diets, []string{"cardiac"}) || p.DietOrders[0].Codes[0].MappedBy != "organization" {
		t.Errorf("mapped by the organization %+v", p.DietOrders)
	}
}

// One MRN fed by both: HL7 admits, FHIR orders the diet and updates the patient, HL7 discharges.
func TestFHIRAndHL7FeedOnePatient(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	const mrn = "100777001"
	r := h.ingest(visit{Event: "A01", Control: "MIX-1", MRN: mrn, Unit: "4W", Room: "412", Bed: "A"}.epic())
	if r.Results[0].Outcome != "applied" {
		t.Fatalf("A01 %+v", r.Results[0])
	}
	admitted := *r.Results[0].Detail.PatientID
	pt := example(t, "Patient-example")
	pt["identifier"] = []any{map[string]any{"type": map[string]any{"coding": []any{map[string]any{"code": "MR"}}}, "value": mrn}}
	a := h.fhir(bundleOf("transaction",
		post("urn:uuid:6a0b1c52-3a56-4d55-9d0a-0b1e4c5f1a01", pt),
		post("", forMRN(example(t, "NutritionOrder-renaldiet"), mrn)),
	))
	if !slices.Equal(a.statuses(), []string{"200 OK", "201 Created"}) {
		t.Fatalf("statuses %v", a.statuses())
	}
	p := h.patientByMRN(mrn)
	if p.ID != admitted || !p.InHouse || p.Unit != "4W" || p.Room != "412" || p.Name.Family != "Chalmers" ||
		!slices.Contains(p.Diets, "renal") || slices.Contains(p.Flags, "no_diet_order") {
		t.Fatalf("after FHIR %+v", p)
	}
	r = h.ingest(visit{Event: "A03", Control: "MIX-2", MRN: mrn, Unit: "4W", Room: "412", Bed: "A"}.epic())
	if r.Results[0].Detail.Action != "discharged" || *r.Results[0].Detail.PatientID != admitted {
		t.Fatalf("A03 %+v", r.Results[0])
	}
	if p := h.patientByMRN(mrn); p.InHouse || len(p.DietOrders) != 0 || len(p.Encounters) != 1 {
		t.Errorf("after A03 %+v", p)
	}
}

// Encounters admit, transfer and discharge; allergies are added, removed and ignored.
func TestFHIREncounterAndAllergyLifecycle(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	const mrn = "200888001"
	enc := func(status, location string) map[string]any {
		e := map[string]any{"resourceType": "Encounter", "status": status, "identifier": []any{map[string]any{"value": "V-88"}},
			"class": map[string]any{"code": "IMP"}, "period": map[string]any{"start": "2026-03-02T08:25:00-06:00"}}
		if location != "" {
			e["location"] = []any{map[string]any{"location": map[string]any{"display": location}}}
		}
		return forMRN(e, mrn)
	}
	a := h.fhir(bundleOf("batch", post("", enc("in-progress", "4W 412-A"))))
	p := h.patientByMRN(mrn)
	if a.Entry[0].Response.Status != "201 Created" || !p.InHouse || p.Unit != "4W" || p.Room != "412" || p.Bed != "A" ||
		p.Encounters[0].VisitNumber != "V-88" || !p.AdmittedAt.Equal(mustTime(t, "2026-03-02T14:25:00Z")) {
		t.Fatalf("admitted %+v %v", p, a.statuses())
	}
	h.fhir(bundleOf("batch", post("", enc("in-progress", "5E^510^B"))))
	if p := h.patientByMRN(mrn); p.Unit != "5E" || p.Room != "510" || p.Bed != "B" || p.Encounters[0].Movements[0].Action != "transferred" {
		t.Fatalf("transferred %+v", p)
	}
	// Restating where the patient is changes nothing.
	h.fhir(bundleOf("batch", post("", enc("in-progress", "5E^510^B"))))
	if p := h.patientByMRN(mrn); len(p.Encounters) != 1 || !p.AdmittedAt.Equal(mustTime(t, "2026-03-02T14:25:00Z")) {
		t.Fatalf("restated %+v", p)
	}
	peanut := forMRN(map[string]any{"resourceType": "AllergyIntolerance", "category": []any{"food"},
		"clinicalStatus": map[string]any{"coding": []any{map[string]any{"code": "active"}}},
		"code":           map[string]any{"coding": []any{map[string]any{"system": "http://snomed.info/sct", "code": "762952008", "display": "Peanut"}}},
	}, mrn)
	nka := forMRN(example(t, "AllergyIntolerance-nka"), mrn)
	nkla := forMRN(example(t, "AllergyIntolerance-nkla"), mrn)
	a = h.fhir(bundleOf("batch", post("", nka), post("", nkla)))
	p = h.patientByMRN(mrn)
	if len(p.Allergies) != 2 || p.Allergies[0].Status != "none_known" || p.Allergies[1].Status != "not_applicable" || len(p.Allergens) != 0 {
		t.Fatalf("no known allergies %+v", p.Allergies)
	}
	h.fhir(bundleOf("batch", post("", peanut)))
	p = h.patientByMRN(mrn)
	if !slices.Equal(p.Allergens, []string{"peanuts"}) || slices.ContainsFunc(p.Allergies, func(a allergy) bool { return a.Status == "none_known" }) {
		t.Fatalf("peanut replaces NKA %+v", p.Allergies)
	}
	refuted := forMRN(example(t, "AllergyIntolerance-fishallergy"), mrn)
	refuted["verificationStatus"] = map[string]any{"coding": []any{map[string]any{"code": "refuted"}}}
	resolved := forMRN(map[string]any{"resourceType": "AllergyIntolerance", "category": []any{"food"},
		"clinicalStatus": map[string]any{"coding": []any{map[string]any{"code": "resolved"}}},
		"code":           map[string]any{"coding": []any{map[string]any{"system": "http://snomed.info/sct", "code": "762952008"}}},
	}, mrn)
	a = h.fhir(bundleOf("batch", post("", refuted), post("", resolved)))
	if o := a.Entry[0].Response.Outcome; a.Entry[0].Response.Status != "200 OK" || o == nil || o.Issue[0].Severity != "information" ||
		!strings.Contains(o.Issue[0].Diagnostics, "refuted") {
		t.Errorf("refuted %+v", a.Entry[0])
	}
	if p := h.patientByMRN(mrn); len(p.Allergens) != 0 {
		t.Errorf("resolved peanut still there %+v", p.Allergies)
	}
	a = h.fhir(bundleOf("batch", post("", enc("finished", "5E^510^B")), post("", enc("finished", ""))))
	if !slices.Equal(a.statuses(), []string{"200 OK", "200 OK"}) || a.Entry[1].Response.Outcome == nil ||
		!strings.Contains(a.Entry[1].Response.Outcome.Issue[0].Diagnostics, "not in house") {
		t.Errorf("discharged %+v", a)
	}
	if p := h.patientByMRN(mrn); p.InHouse || p.Encounters[0].DischargedAt == nil {
		t.Errorf("discharged %+v", p)
	}
	// An ambulatory encounter is not a stay: ignored, with an informational outcome.
	amb := forMRN(example(t, "Encounter-f201"), "200888002")
	if a := h.fhir(bundleOf("batch", post("", amb))); a.Entry[0].Response.Outcome.Issue[0].Code != "informational" {
		t.Errorf("ambulatory %+v", a.Entry[0])
	}
	if n := count(h.env, "SELECT count(*) FROM patients WHERE org_id = $1 AND mrn = '200888002'", h.orgID); n != 0 {
		t.Errorf("ambulatory patient stored")
	}
}
