package clinical_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

const fhirJSON = "application/fhir+json"

// example reads an official FHIR R4 example (testdata/fhir, see its README).
func example(t *testing.T, name string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "fhir", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// forMRN points a resource's patient (or subject) at a patient by MRN, with a conditional
// reference.
func forMRN(r map[string]any, mrn string) map[string]any {
	ref := map[string]any{"reference": "Patient?identifier=" + mrn}
	if r["resourceType"] == "Encounter" {
		r["subject"] = ref
	} else {
		r["patient"] = ref
	}
	return r
}

type entry struct {
	FullURL  string         `json:"fullUrl,omitempty"`
	Resource map[string]any `json:"resource"`
	Request  map[string]any `json:"request"`
}

func post(fullURL string, r map[string]any) entry {
	return entry{FullURL: fullURL, Resource: r, Request: map[string]any{"method": "POST", "url": r["resourceType"]}}
}

func bundleOf(typ string, entries ...entry) map[string]any {
	return map[string]any{"resourceType": "Bundle", "type": typ, "entry": entries}
}

type fhirIssue struct {
	Severity    string   `json:"severity"`
	Code        string   `json:"code"`
	Diagnostics string   `json:"diagnostics"`
	Expression  []string `json:"expression"`
}

type fhirOutcome struct {
	ResourceType string      `json:"resourceType"`
	Issue        []fhirIssue `json:"issue"`
}

type fhirAnswer struct {
	ResourceType string `json:"resourceType"`
	Type         string `json:"type"`
	Entry        []struct {
		FullURL  string `json:"fullUrl"`
		Response struct {
			Status   string       `json:"status"`
			Location string       `json:"location"`
			Outcome  *fhirOutcome `json:"outcome"`
		} `json:"response"`
	} `json:"entry"`
}

func (a fhirAnswer) statuses() []string {
	out := make([]string, 0, len(a.Entry))
	for _, e := range a.Entry {
		out = append(out, e.Response.Status)
	}
	return out
}

// fhirPost builds a FHIR request with the hospital's API key.
func (h *hospital) fhirPost(siteID uuid.UUID, body any) *apitest.Request {
	raw, err := json.Marshal(body)
	if err != nil {
		h.env.T.Fatal(err)
	}
	return h.env.Call(http.MethodPost, orgPath(h.orgID, "fhir")+"?siteId="+siteID.String()).Raw(fhirJSON, raw).Header("x-api-key", h.key)
}

// fhir posts a bundle to the hospital's site and expects 200.
func (h *hospital) fhir(body any) fhirAnswer {
	h.env.T.Helper()
	var a fhirAnswer
	h.fhirPost(h.siteID, body).Do().Expect(http.StatusOK).Decode(&a)
	return a
}

// patientByMRN reads a patient of the census (in house or not) by MRN.
func (h *hospital) patientByMRN(mrn string) patient {
	h.env.T.Helper()
	var id uuid.UUID
	if err := h.env.Pool.QueryRow(h.env.T.Context(), "SELECT id FROM patients WHERE org_id = $1 AND mrn = $2", h.orgID, mrn).Scan(&id); err != nil {
		h.env.T.Fatalf("patient %s: %v", mrn, err)
	}
	return h.patient(h.owner.AccessToken, id)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// ordersOfType returns the patient's orders of a type.
func ordersOfType(p patient, typ string) []dietOrder {
	var out []dietOrder
	for _, o := range p.DietOrders {
		if o.Type == typ {
			out = append(out, o)
		}
	}
	return out
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
