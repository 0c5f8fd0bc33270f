package clinical_test

import (
	"slices"
	"testing"
)

// A transaction of the official examples: the patient, their inpatient encounter, three
// allergies and the cardiac diet, referring to each other as Patient/example.
func TestFHIRTransactionOfOfficialExamples(t *testing.T) {
	h := newHospital(t)
	pt := example(t, "Patient-example")
	a := h.fhir(bundleOf("transaction",
		post("http://hospital.example/fhir/Patient/example", pt),
		post("", example(t, "Encounter-example")),
		post("", example(t, "AllergyIntolerance-fishallergy")),
		post("", example(t, "AllergyIntolerance-example")),
		post("", example(t, "AllergyIntolerance-medication")),
		post("", example(t, "NutritionOrder-cardiacdiet")),
	))
	t.Logf("%+v", a)
	if a.Type != "transaction-response" || !slices.Equal(a.statuses(), []string{"201 Created", "200 OK", "200 OK", "200 OK", "200 OK", "201 Created"}) {
		t.Fatalf("answer %s %v", a.Type, a.statuses())
	}
	p := h.patientByMRN("12345")
	t.Logf("%+v", p)
}
