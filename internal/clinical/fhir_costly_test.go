package clinical_test

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// repeated is pre, then item n times separated by commas, then post.
func repeated(pre, item, post string, n int) []byte {
	var b bytes.Buffer
	b.Grow(len(pre) + (len(item)+1)*n + len(post))
	b.WriteString(pre)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(item)
	}
	b.WriteString(post)
	return b.Bytes()
}

// costlyPatient is a bundle within the byte and entry limits whose one Patient holds n empty
// extensions: cheap to send, costly to decode into generic values.
func costlyPatient(n int) []byte {
	return repeated(`{"resourceType":"Bundle","type":"batch","entry":[{"resource":{"resourceType":"Patient","extension":[`, "{}", `]}}]}`, n)
}

// tinyEntries is a batch of n entries of two bytes each.
func tinyEntries(n int) []byte {
	return repeated(`{"resourceType":"Bundle","type":"batch","entry":[`, "{}", `]}`, n)
}

func (h *hospital) fhirRaw(contentType string, body []byte) *apitest.Request {
	return h.env.Call(http.MethodPost, orgPath(h.orgID, "fhir")+"?siteId="+h.siteID.String()).Raw(contentType, body).Header("x-api-key", h.key)
}

// Bodies whose cost is in their shape, not their size, are refused with the FHIR endpoint's
// 422 too-costly before they are decoded (issue 40, N1 and N8).
func TestFHIRCostlyShapesAreTooCostly(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	tooCostly := func(name string, body []byte) {
		t.Helper()
		for _, ct := range []string{fhirJSON, "application/json"} {
			var oo fhirOutcome
			h.fhirRaw(ct, body).Do().Expect(http.StatusUnprocessableEntity).Decode(&oo)
			if oo.ResourceType != "OperationOutcome" || len(oo.Issue) != 1 || oo.Issue[0].Code != "too-costly" {
				t.Errorf("%s as %s: %+v", name, ct, oo)
			}
		}
	}
	tooCostly("2.6 million extensions", costlyPatient(2_600_000))
	tooCostly("207,894 entries", tinyEntries(207_894))
	tooCostly("10,001 levels", []byte(`{"resourceType":"Bundle","type":"batch","entry":[{"resource":{"resourceType":"Patient","extension":`+
		strings.Repeat("[", 10_001)+strings.Repeat("]", 10_001)+`}}]}`))
	if n := count(h.env, "SELECT count(*) FROM hl7_messages WHERE org_id = $1", h.orgID); n != 0 {
		t.Fatalf("refused bodies left %d trail rows", n)
	}
}

// An escaped lone surrogate is not UTF-8 text: refused as raw invalid bytes are (issue 40, N6).
func TestFHIRLoneSurrogateIsRefused(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	body := []byte(`{"resourceType":"Bundle","type":"batch","entry":[{"resource":{"resourceType":"Patient","identifier":[{"type":{"coding":[{"code":"MR"}]},"value":"a\ud800b"}]}}]}`)
	e := h.fhirRaw(fhirJSON, body).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	if len(e.Details) != 1 || e.Details[0].Field != "entry.0.resource.identifier.0.value" || e.Details[0].Message != "must be valid UTF-8" {
		t.Fatalf("details %+v", e.Details)
	}
}

// FHIR servers answer application/json as they answer application/fhir+json (issue 39).
func TestFHIRAnswersAcceptApplicationJSON(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	for _, accept := range []string{"application/json", "application/fhir+json", "application/*", "*/*"} {
		res := h.fhirPost(h.siteID, admitBundle("batch", "400000001")).Header("Accept", accept).Do().Expect(http.StatusOK)
		var a fhirAnswer
		res.Decode(&a)
		if a.ResourceType != "Bundle" || a.Type != "batch-response" {
			t.Errorf("Accept %s: %+v", accept, a)
		}
		h.env.Call(http.MethodGet, orgPath(h.orgID, "fhir/metadata")).Header("x-api-key", h.key).Header("Accept", accept).Do().Expect(http.StatusOK)
	}
	for _, accept := range []string{"text/csv", "application/xml", "application/fhir+xml"} {
		h.fhirPost(h.siteID, admitBundle("batch", "400000001")).Header("Accept", accept).Do().Expect(http.StatusNotAcceptable)
	}
}

// The HL7 ingest's JSON body with an array where its message (a string) belongs is refused as
// the 400 it is, at the array, not after decoding a million objects (issue 40, N1).
func TestHL7MessageOfTheWrongTypeIsRefused(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	body := repeated(`{"siteId":"`+h.siteID.String()+`","message":[`, "{}", `]}`, 1_300_000)
	e := h.env.Call(http.MethodPost, orgPath(h.orgID, "adt/hl7")).Raw("application/json", body).Header("x-api-key", h.key).
		Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	if len(e.Details) != 1 || e.Details[0].Field != "message" || e.Details[0].Message != "value must be a string" {
		t.Fatalf("details %+v", e.Details)
	}
	// So is one nested 10,001 levels deep: at its first bracket.
	deep := []byte(`{"siteId":"` + h.siteID.String() + `","message":` + strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001) + `}`)
	e = h.env.Call(http.MethodPost, orgPath(h.orgID, "adt/hl7")).Raw("application/json", deep).Header("x-api-key", h.key).
		Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	if len(e.Details) != 1 || e.Details[0].Field != "message" {
		t.Fatalf("details %+v", e.Details)
	}
}

// Eight costly bodies at once, each at its endpoint's byte limit in its worst shape, cost the
// heap a bounded multiple of what was sent (docs/reference/http-conventions.md). Not parallel, so that
// other tests' allocations stay out of the measure.
func TestCostlyBodiesMemoryIsBounded(t *testing.T) {
	h := newHospital(t)
	const eight = 8
	for _, tc := range []struct {
		name   string
		ct     string
		path   string
		body   []byte
		status int
	}{
		{"FHIR entries", fhirJSON, "fhir?siteId=" + h.siteID.String(), tinyEntries(2_600_000), http.StatusUnprocessableEntity},
		{"FHIR extensions", fhirJSON, "fhir?siteId=" + h.siteID.String(), costlyPatient(2_600_000), http.StatusUnprocessableEntity},
		{"FHIR as JSON", "application/json", "fhir?siteId=" + h.siteID.String(), costlyPatient(2_600_000), http.StatusUnprocessableEntity},
		{"HL7 message array", "application/json", "adt/hl7", repeated(`{"siteId":"`+h.siteID.String()+`","message":[`, "{}", `]}`, 1_300_000), http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := h.env.With(t)
			reqs := make([]*apitest.Request, eight)
			for i := range reqs {
				reqs[i] = env.Call(http.MethodPost, orgPath(h.orgID, tc.path)).Raw(tc.ct, tc.body).Header("x-api-key", h.key)
			}
			mem := apitest.MeasureMemory(func() {
				var wg sync.WaitGroup
				for _, r := range reqs {
					wg.Go(func() { r.Do().Expect(tc.status) })
				}
				wg.Wait()
			})
			sent := uint64(eight * len(tc.body))
			t.Logf("%s: 8 × %d bytes: heap peak +%d MB (%.1f× what was sent), allocated %d MB (%.1f×)", tc.name, len(tc.body),
				mem.PeakGrowth>>20, float64(mem.PeakGrowth)/float64(sent), mem.Allocated>>20, float64(mem.Allocated)/float64(sent))
			if mem.PeakGrowth > maxBodyMemory*sent {
				t.Errorf("heap peak grew %d MB for %d MB sent: more than %d× (docs/reference/http-conventions.md)", mem.PeakGrowth>>20, sent>>20, maxBodyMemory)
			}
		})
	}
}

// maxBodyMemory is the documented bound: the heap grows by at most this multiple of the bytes of
// the bodies being read (docs/reference/http-conventions.md).
const maxBodyMemory = 6
