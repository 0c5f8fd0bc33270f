package clinical_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
)

func admitBundle(typ, mrn string) map[string]any {
	return bundleOf(typ, post("", forMRN(map[string]any{"resourceType": "Encounter", "status": "in-progress",
		"location": []any{map[string]any{"location": map[string]any{"display": "4W 401-A"}}}}, mrn)))
}

func TestFHIRCredentialsAndScope(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	env := h.env
	other := newHospitalIn(env, "St. Brigid's")
	body := admitBundle("batch", "300000001")
	raw, _ := json.Marshal(body)
	path := orgPath(h.orgID, "fhir") + "?siteId=" + h.siteID.String()

	env.Call(http.MethodPost, path).Raw(fhirJSON, raw).Do().ExpectError(http.StatusUnauthorized, "Authentication required")
	env.Call(http.MethodPost, path).Raw(fhirJSON, raw).Header("x-api-key", other.key).Do().ExpectError(http.StatusUnauthorized, "Invalid API key")
	// A manager may read the census but not feed it.
	mgr := h.member("manager", nil)
	env.Call(http.MethodPost, path).Raw(fhirJSON, raw).Token(mgr.AccessToken).Do().Expect(http.StatusForbidden)
	// Another organization's site, and a site that does not exist.
	h.fhirPost(other.siteID, body).Do().ExpectError(http.StatusNotFound, "Site not found")
	h.fhirPost(uuid.Must(uuid.NewV7()), body).Do().ExpectError(http.StatusNotFound, "Site not found")
	env.Call(http.MethodPost, orgPath(h.orgID, "fhir")).Raw(fhirJSON, raw).Header("x-api-key", h.key).Do().Expect(http.StatusBadRequest)
	if n := count(env, "SELECT count(*) FROM hl7_messages WHERE org_id = $1", h.orgID); n != 0 {
		t.Fatalf("%d trail rows after refusals", n)
	}
	// An admin session, and application/json as well as application/fhir+json.
	var a fhirAnswer
	env.Call(http.MethodPost, path).JSON(body).Token(h.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&a)
	if a.Entry[0].Response.Status != "201 Created" {
		t.Fatalf("admin %+v", a)
	}
	// The plan: clinical is a Pro feature.
	env.SetPlan(h.orgID, "free", nil)
	h.fhirPost(h.siteID, body).Do().Expect(http.StatusPaymentRequired)
	env.Call(http.MethodGet, orgPath(h.orgID, "fhir/metadata")).Header("x-api-key", h.key).Do().Expect(http.StatusPaymentRequired)
}

func TestFHIRMetadata(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	var cs struct {
		ResourceType string   `json:"resourceType"`
		FhirVersion  string   `json:"fhirVersion"`
		Format       []string `json:"format"`
		Rest         []struct {
			Interaction []struct{ Code string } `json:"interaction"`
			Resource    []struct {
				Type        string                  `json:"type"`
				Interaction []struct{ Code string } `json:"interaction"`
			} `json:"resource"`
		} `json:"rest"`
	}
	res := h.env.Call(http.MethodGet, orgPath(h.orgID, "fhir/metadata")).Header("x-api-key", h.key).Do().Expect(http.StatusOK)
	res.Decode(&cs)
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, fhirJSON) {
		t.Errorf("content type %q", ct)
	}
	var types []string
	for _, r := range cs.Rest[0].Resource {
		types = append(types, r.Type)
	}
	if cs.ResourceType != "CapabilityStatement" || cs.FhirVersion != "4.0.1" ||
		!slices.Equal(types, []string{"Patient", "Encounter", "AllergyIntolerance", "NutritionOrder"}) ||
		cs.Rest[0].Interaction[0].Code != "transaction" || cs.Rest[0].Interaction[1].Code != "batch" {
		t.Errorf("capabilities %+v", cs)
	}
	h.env.Call(http.MethodGet, orgPath(h.orgID, "fhir/metadata")).Do().Expect(http.StatusUnauthorized)
}

// A transaction is all or nothing; a batch applies each entry alone. Both keep every entry in
// the trail.
func TestFHIRTransactionIsAllOrNothing(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	pt := example(t, "Patient-example")
	broken := forMRN(example(t, "Encounter-example"), "x")
	broken["subject"] = map[string]any{"reference": "urn:uuid:7f0a1c52-3a56-4d55-9d0a-0b1e4c5f1a09"}
	entries := []entry{
		post("urn:uuid:7f0a1c52-3a56-4d55-9d0a-0b1e4c5f1a01", pt),
		post("", broken),
		post("", example(t, "NutritionOrder-cardiacdiet")), // Patient/example: entry 0, by its id
	}
	var oo fhirOutcome
	h.fhirPost(h.siteID, bundleOf("transaction", entries...)).Do().Expect(http.StatusBadRequest).Decode(&oo)
	if oo.ResourceType != "OperationOutcome" || oo.Issue[0].Code != "not-found" ||
		!strings.Contains(oo.Issue[0].Diagnostics, "entry 1 (Encounter)") || !strings.Contains(oo.Issue[0].Diagnostics, "nothing was applied") ||
		!slices.Equal(oo.Issue[0].Expression, []string{"Bundle.entry[1].resource.subject"}) {
		t.Fatalf("outcome %+v", oo)
	}
	if n := count(h.env, "SELECT count(*) FROM patients WHERE org_id = $1", h.orgID); n != 0 {
		t.Fatalf("a failed transaction stored %d patients", n)
	}
	if n := count(h.env, "SELECT count(*) FROM hl7_messages WHERE org_id = $1 AND outcome = 'rejected'", h.orgID); n != 3 {
		t.Fatalf("trail holds %d rejected entries", n)
	}
	a := h.fhir(bundleOf("batch", entries...))
	if !slices.Equal(a.statuses(), []string{"201 Created", "400 Bad Request", "201 Created"}) ||
		a.Entry[1].Response.Outcome.Issue[0].Severity != "error" {
		t.Fatalf("batch %v %+v", a.statuses(), a.Entry[1].Response.Outcome)
	}
	if n := count(h.env, "SELECT count(*) FROM patients WHERE org_id = $1 AND mrn = '12345'", h.orgID); n != 1 {
		t.Fatalf("the batch's good entry was not applied")
	}
}

func TestFHIRHostileBundles(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	refuse := func(name string, body []byte, status int, code string) {
		t.Helper()
		res := h.env.Call(http.MethodPost, orgPath(h.orgID, "fhir")+"?siteId="+h.siteID.String()).Raw(fhirJSON, body).
			Header("x-api-key", h.key).Do().Expect(status)
		if code != "" {
			var oo fhirOutcome
			res.Decode(&oo)
			if oo.ResourceType != "OperationOutcome" || oo.Issue[0].Code != code {
				t.Errorf("%s: %s", name, res.Body)
			}
		}
	}
	// 10,000 entries: refused whole, before anything is decoded.
	var b bytes.Buffer
	b.WriteString(`{"resourceType":"Bundle","type":"batch","entry":[`)
	for i := range 10_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"resource":{"resourceType":"Basic","id":"b%d"}}`, i)
	}
	b.WriteString(`]}`)
	refuse("10,000 entries", b.Bytes(), http.StatusUnprocessableEntity, "too-costly")
	// Deep nesting inside a resource.
	deep := `{"resourceType":"Bundle","type":"batch","entry":[{"resource":{"resourceType":"Patient","extension":` +
		strings.Repeat(`[`, 200) + strings.Repeat(`]`, 200) + `}}]}`
	refuse("deep nesting", []byte(deep), http.StatusUnprocessableEntity, "too-costly")
	// Not a Bundle; a Bundle of another type; not JSON; NUL in a string.
	refuse("a Patient", []byte(`{"resourceType":"Patient","id":"x"}`), http.StatusUnprocessableEntity, "invalid")
	refuse("a document", []byte(`{"resourceType":"Bundle","type":"document","entry":[]}`), http.StatusUnprocessableEntity, "not-supported")
	refuse("not JSON", []byte(`{"resourceType":`), http.StatusBadRequest, "")
	refuse("an array", []byte(`[1,2]`), http.StatusBadRequest, "")
	refuse("NUL", []byte(`{"resourceType":"Bundle","type":"batch","entry":[{"resource":{"resourceType":"Patient","name":[{"family":"A\u0000B"}]}}]}`),
		http.StatusBadRequest, "")
	// Over the body limit.
	big := append([]byte(`{"resourceType":"Bundle","type":"batch","x":"`), bytes.Repeat([]byte("a"), 9<<20)...)
	big = append(big, `"}`...)
	refuse("9 MB", big, http.StatusRequestEntityTooLarge, "")
	if n := count(h.env, "SELECT count(*) FROM hl7_messages WHERE org_id = $1", h.orgID); n != 0 {
		t.Fatalf("refused bodies left %d trail rows", n)
	}

	// Entries that are wrong on their own are answered one by one.
	a := h.fhir(bundleOf("batch",
		entry{Resource: map[string]any{"resourceType": "Observation", "status": "final"}},
		entry{Resource: map[string]any{"resourceType": "Encounter", "status": "in-progress", "subject": map[string]any{"reference": "Patient/nowhere"}}},
		entry{Resource: map[string]any{"resourceType": "NutritionOrder", "status": "active"}},
		entry{Resource: map[string]any{"resourceType": "Patient", "identifier": []any{map[string]any{"value": strings.Repeat("9", 65)}}}},
		entry{Resource: map[string]any{"resourceType": "Patient", "name": "not a list"}},
		entry{Resource: map[string]any{"noType": true}},
		entry{},
		entry{Resource: map[string]any{"resourceType": "Patient", "identifier": []any{map[string]any{"value": "1"}}}, Request: map[string]any{"method": "DELETE"}},
	))
	want := []string{"200 OK", "400 Bad Request", "400 Bad Request", "422 Unprocessable Entity", "400 Bad Request",
		"400 Bad Request", "400 Bad Request", "405 Method Not Allowed"}
	if !slices.Equal(a.statuses(), want) {
		t.Fatalf("statuses %v", a.statuses())
	}
	if o := a.Entry[0].Response.Outcome.Issue[0]; o.Severity != "information" || !strings.Contains(o.Diagnostics, "Observation") {
		t.Errorf("unknown type %+v", o)
	}
	if o := a.Entry[3].Response.Outcome.Issue[0]; !strings.Contains(o.Diagnostics, "at most 64") {
		t.Errorf("long MRN %+v", o)
	}
	if n := count(h.env, "SELECT count(*) FROM patients WHERE org_id = $1", h.orgID); n != 0 {
		t.Errorf("%d patients from refused entries", n)
	}
	if n := count(h.env, "SELECT count(*) FROM hl7_messages WHERE org_id = $1", h.orgID); n != len(want) {
		t.Errorf("trail %d rows", n)
	}
}

// The organization's MRN system names the MRN, whatever the identifier's type.
func TestFHIRMRNSystemSetting(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	const sys = "urn:oid:1.2.840.114350.1.13.1.1"
	var s struct {
		FhirMrnSystem *string `json:"fhirMrnSystem"`
	}
	path := orgPath(h.orgID, "clinical/settings")
	h.env.Call(http.MethodGet, path).Token(h.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&s)
	if s.FhirMrnSystem != nil {
		t.Fatalf("default %v", *s.FhirMrnSystem)
	}
	pt := map[string]any{"resourceType": "Patient", "identifier": []any{
		map[string]any{"system": "http://hospital.example/insurance", "value": "INS-1"},
		map[string]any{"system": sys, "value": "400000001"},
	}}
	h.fhir(bundleOf("batch", post("", pt)))
	if p := h.patientByMRN("INS-1"); p.MRNSource != "pid3_first" || !slices.Contains(p.Flags, "mrn_untyped") {
		t.Fatalf("untyped %+v", p)
	}
	viewer := h.member("viewer", nil)
	h.env.Call(http.MethodGet, path).Token(viewer.AccessToken).Do().Expect(http.StatusForbidden)
	h.env.Call(http.MethodPut, path).Token(viewer.AccessToken).JSON(map[string]any{"fhirMrnSystem": sys}).Do().Expect(http.StatusForbidden)
	h.env.Call(http.MethodPut, path).Token(h.owner.AccessToken).JSON(map[string]any{"fhirMrnSystem": strings.Repeat("x", 501)}).Do().Expect(http.StatusBadRequest)
	h.env.Call(http.MethodPut, path).Token(h.owner.AccessToken).JSON(map[string]any{"fhirMrnSystem": sys}).Do().Expect(http.StatusOK).Decode(&s)
	if s.FhirMrnSystem == nil || *s.FhirMrnSystem != sys {
		t.Fatalf("set %+v", s)
	}
	h.fhir(bundleOf("batch", post("", pt)))
	if p := h.patientByMRN("400000001"); p.MRNSource != "pid3_mr" {
		t.Fatalf("by system %+v", p)
	}
	h.env.Call(http.MethodPut, path).Token(h.owner.AccessToken).JSON(map[string]any{"fhirMrnSystem": nil}).Do().Expect(http.StatusOK).Decode(&s)
	if s.FhirMrnSystem != nil {
		t.Fatalf("cleared %+v", s)
	}
}

// Bundles of one organization are applied one at a time: parallel orders for one patient all
// land, each replacing its own, and parallel admissions of other patients all land too.
func TestFHIRParallelBundles(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	const n = 8
	var wg sync.WaitGroup
	statuses := make([]string, 2*n)
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			a := h.fhir(admitBundle("batch", fmt.Sprintf("5000000%02d", i)))
			statuses[i] = a.Entry[0].Response.Status
		}()
		go func() {
			defer wg.Done()
			o := forMRN(example(t, "NutritionOrder-proteinsupplement"), "500000099")
			o["identifier"] = []any{map[string]any{"value": fmt.Sprintf("P-%d", i)}}
			a := h.fhir(bundleOf("transaction", post("", o)))
			statuses[n+i] = a.Entry[0].Response.Status
		}()
	}
	wg.Wait()
	for i, s := range statuses {
		if s != "201 Created" {
			t.Errorf("bundle %d: %s", i, s)
		}
	}
	if c := h.census(h.owner.AccessToken, ""); len(c) != n {
		t.Errorf("census holds %d", len(c))
	}
	if p := h.patientByMRN("500000099"); len(p.DietOrders) != n {
		t.Errorf("%d supplements, want %d", len(p.DietOrders), n)
	}
}
