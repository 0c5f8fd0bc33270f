package clinical_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/clinical"
	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// Byte limits of the two ingests: the FHIR endpoint's x-body-limit, and the HL7 ingest's default.
var fhirBodyLimit, hl7BodyLimit = size("8M"), size(config.DefaultHL7BodyLimit)

func size(s string) int {
	n, err := config.ParseSize(s)
	if err != nil {
		panic(err)
	}
	return int(n)
}

// fhirPatients is a batch at the FHIR endpoint's limits in its costliest accepted shape: 1,000
// entries (the most a bundle takes), each a Patient with as many given names as the 250,000
// values allow, its name's text filling the 8 MB. Each body has its own patients (prefix).
func fhirPatients(prefix int) []byte {
	const entries, given = 1000, 225
	entry := func(i int, text string) string {
		return fmt.Sprintf(`{"fullUrl":"urn:uuid:%s","resource":{"resourceType":"Patient","identifier":[{"type":{"coding":[{"code":"MR"}]},"value":"%d%06d"}],`+
			`"name":[{"family":"DOE","given":[%s],"text":"%s"}],"gender":"female","birthDate":"1950-01-01"},"request":{"method":"POST","url":"Patient"}}`,
			uuid.NewSHA1(uuid.NameSpaceOID, fmt.Appendf(nil, "%d-%d", prefix, i)), prefix, i, strings.Repeat(`"A",`, given-1)+`"A"`, text)
	}
	head, tail := `{"resourceType":"Bundle","type":"batch","entry":[`, `]}`
	one := len(entry(0, "")) + 1 // with its comma
	text := strings.Repeat("x", (fhirBodyLimit-len(head)-len(tail))/entries-one)
	var b strings.Builder
	b.Grow(fhirBodyLimit)
	b.WriteString(head)
	for i := range entries {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(entry(i, text))
	}
	b.WriteString(tail)
	return []byte(b.String())
}

// hl7Admits is n admissions filling size bytes of ER7, each its own patient (prefix), padded with
// a diagnosis text: the most messages a body takes at the byte limit.
func hl7Admits(prefix, n, size int) string {
	msg := func(i int, pad string) string {
		return fmt.Sprintf("MSH|^~\\&|EPIC|HMC|SOUS|SOUS|20260302083000||ADT^A01^ADT_A01|M%d-%d|P|2.5.1\r"+
			"PID|1||%d%06d^^^HMC^MR||DOE^JANE||19800412|F\rPV1|1|I|4W^412^A||||||||||||||||V%d%06d\rDG1|1||I21.4^%s^I10\r",
			prefix, i, prefix, i, prefix, i, pad)
	}
	pad := strings.Repeat("x", size/n-len(msg(n, "")))
	var b strings.Builder
	b.Grow(size)
	for i := range n {
		b.WriteString(msg(i, pad))
	}
	return b.String()
}

// The documented bounds of an accepted ingest's memory, over the 6× of other bodies
// (docs/reference/http-conventions.md): every FHIR entry and HL7 message becomes a census message
// (some 3.4 KB each, whatever its size), a trail row holding its text, and a result.
const (
	fhirAcceptedMemory = 14
	hl7AcceptedMemory  = 36
)

// Eight bodies at once, each at its ingest's byte limit in its costliest accepted shape, cost the
// heap at most the documented multiple of what was sent (docs/reference/http-conventions.md;
// issue 40, N1). Not parallel: it measures the process's heap.
func TestAcceptedIngestMemoryIsBounded(t *testing.T) {
	h := newHospital(t)
	const eight = 8
	t.Run("FHIR 1,000 patients", func(t *testing.T) {
		env := h.env.With(t)
		reqs := make([]*apitest.Request, eight)
		for i := range reqs {
			body := fhirPatients(i + 1)
			if len(body) > fhirBodyLimit || len(body) < fhirBodyLimit-4096 {
				t.Fatalf("body of %d bytes", len(body))
			}
			reqs[i] = env.Call(http.MethodPost, orgPath(h.orgID, "fhir")+"?siteId="+h.siteID.String()).Raw(fhirJSON, body).Header("x-api-key", h.key)
		}
		apitest.BodiesMemory(t, fhirAcceptedMemory, http.StatusOK, reqs...)
	})
	t.Run("HL7 ER7 10,000 admissions", func(t *testing.T) {
		env := h.env.With(t)
		reqs := make([]*apitest.Request, eight)
		for i := range reqs {
			body := hl7Admits(10+i, 10_000, hl7BodyLimit-64)
			reqs[i] = env.Call(http.MethodPost, orgPath(h.orgID, "adt/hl7")+"?siteId="+h.siteID.String()).
				Raw(clinical.ER7MediaType, []byte(body)).Header("x-api-key", h.key)
		}
		apitest.BodiesMemory(t, hl7AcceptedMemory, http.StatusOK, reqs...)
	})
	t.Run("HL7 JSON 10,000 admissions", func(t *testing.T) {
		env := h.env.With(t)
		reqs := make([]*apitest.Request, eight)
		for i := range reqs {
			// In JSON each segment's \r is two bytes, the \ of MSH-2 two and its & six.
			body, err := json.Marshal(map[string]any{"siteId": h.siteID, "message": hl7Admits(20+i, 10_000, hl7BodyLimit-10_000*10-128)})
			if err != nil {
				t.Fatal(err)
			}
			if len(body) > hl7BodyLimit {
				t.Fatalf("body of %d bytes", len(body))
			}
			reqs[i] = env.Call(http.MethodPost, orgPath(h.orgID, "adt/hl7")).Raw("application/json", body).Header("x-api-key", h.key)
		}
		apitest.BodiesMemory(t, hl7AcceptedMemory, http.StatusOK, reqs...)
	})
}
