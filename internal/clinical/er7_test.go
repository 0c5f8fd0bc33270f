package clinical_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/clinical"
	"github.com/sous-app/sous/internal/hl7"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// er7 posts an ingest as an interface engine does: the raw messages, the site in the query.
func (h *hospital) er7(siteID uuid.UUID, body string) *apitest.Request {
	path := orgPath(h.orgID, "adt/hl7")
	if siteID != uuid.Nil {
		path += "?siteId=" + siteID.String()
	}
	return h.env.Call(http.MethodPost, path).Raw(clinical.ER7MediaType, []byte(body))
}

// acks parses an ACK response (its Content-Type checked) into messages.
func acks(t *testing.T, res *apitest.Response) []hl7.Message {
	t.Helper()
	res.Expect(http.StatusOK)
	if ct := res.Header.Get("Content-Type"); ct != clinical.ER7MediaType {
		t.Fatalf("Content-Type %q: %s", ct, res.Body)
	}
	if bytes.Contains(res.Body, []byte("\n")) {
		t.Fatalf("ACK segments must end with CR only: %q", res.Body)
	}
	b, err := hl7.ParseString(string(res.Body))
	if err != nil {
		t.Fatalf("ACKs do not parse: %v\n%q", err, res.Body)
	}
	return b.Messages
}

// The corpus of one batch: applied, duplicate, skipped (custom delimiters), rejected, each
// MLLP-framed as engines send them.
func er7Batch(prefix string) (body string, sent []string) {
	admit := visit{Event: "A01", Control: prefix + "-1", MRN: "610000001", Unit: "4W", Room: "401", Bed: "A"}.epic()
	custom := "MSH!@#$%!OLDADT!COMMUNITY!SOUS!KITCHEN!19990101120000!!ADT@A08!" + prefix + "-3!P!2.2\rEVN!A08!19990101120000\rPID!1!77665544!!!BROWN@ALICE@M!!1961!F\rPV1!1!I!ICU@7@2\r"
	broken := "MSH|^~|\rPID|1||999^^^HMC^MR||BROKEN^HEADER\r" // MSH-9 empty: rejected
	sent = []string{admit, admit, custom, broken}
	for _, m := range sent {
		body += mllp(m)
	}
	return body, sent
}

func TestER7IngestAnswersOneACKPerMessage(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	body, sent := er7Batch("ER7")
	res := h.er7(h.siteID, body).Header("x-api-key", h.key).Header("Accept", clinical.ER7MediaType).Do()
	got := acks(t, res)
	if len(got) != len(sent) {
		t.Fatalf("%d ACKs for %d messages:\n%q", len(got), len(sent), res.Body)
	}
	want := []struct{ code, note, err string }{
		{"AA", "", ""},
		{"AA", "Duplicate: already processed", ""},
		{"AE", "no MRN in PID-3", "no MRN in PID-3"},
		{"AR", "MSH-9", "MSH-9"},
	}
	for i, ack := range got {
		msg, _ := hl7.ParseString(sent[i]) // the broken one: ErrNoMessage, with the message
		in := &msg.Messages[0]
		if in.Err == nil && ack.Encoding != in.Encoding {
			t.Errorf("ACK %d delimiters %+v, message's %+v", i, ack.Encoding, in.Encoding)
		}
		h, ih := ack.Header(), in.Header()
		if in.Err == nil {
			for _, swap := range [][2]int{{3, 5}, {4, 6}, {5, 3}, {6, 4}} {
				if h.Field(swap[0]).Raw() != ih.Field(swap[1]).Raw() {
					t.Errorf("ACK %d MSH-%d %q, message's MSH-%d %q", i, swap[0], h.Field(swap[0]).Raw(), swap[1], ih.Field(swap[1]).Raw())
				}
			}
			if h.Field(9).Component(1) != "ACK" || h.Field(9).Component(2) != ih.Field(9).Component(2) {
				t.Errorf("ACK %d MSH-9 %q", i, h.Field(9).Raw())
			}
		}
		msa, ok := ack.Segment("MSA")
		if !ok || msa.Field(1).Value() != want[i].code || msa.Field(2).Value() != in.ControlID() ||
			!strings.Contains(msa.Field(3).Value(), want[i].note) {
			t.Errorf("ACK %d MSA %q, want %s for %q with %q", i, msa.Raw(), want[i].code, in.ControlID(), want[i].note)
		}
		e, hasErr := ack.Segment("ERR")
		if hasErr != (want[i].err != "") || (hasErr && !strings.Contains(e.Field(8).Value(), want[i].err)) {
			t.Errorf("ACK %d ERR %q, want %q", i, e.Raw(), want[i].err)
		}
	}
	// Same outcomes and trail as the JSON form.
	if c := h.census(h.owner.AccessToken, ""); len(c) != 1 || c[0].MRN != "610000001" {
		t.Fatalf("census %v", mrns(c))
	}
	if n := count(h.env, `SELECT count(*) FROM hl7_messages WHERE org_id = $1`, h.orgID); n != 4 {
		t.Fatalf("%d trail rows", n)
	}
}

func TestER7FormsAndNegotiation(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	// An ER7 body without Accept answers JSON; a JSON body with Accept answers ACKs.
	body, _ := er7Batch("NEG")
	var r ingestResult
	h.er7(h.siteID, body).Header("x-api-key", h.key).Do().Expect(http.StatusOK).Decode(&r)
	if got := strings.Join(r.outcomes(), ","); got != "applied,duplicate,skipped,rejected" {
		t.Fatalf("outcomes %s", got)
	}
	res := h.post(h.siteID, visit{Event: "A03", Control: "NEG-9", MRN: "610000001"}.epic()).
		Header("x-api-key", h.key).Header("Accept", "application/json;q=0.5, "+clinical.ER7MediaType).Do()
	if got := acks(t, res); len(got) != 1 {
		t.Fatalf("%d ACKs", len(got))
	} else if msa, _ := got[0].Segment("MSA"); msa.Field(1).Value() != "AA" || msa.Field(2).Value() != "NEG-9" {
		t.Fatalf("MSA %q", msa.Raw())
	}
	// JSON preferred: JSON.
	h.post(h.siteID, visit{Event: "A03", Control: "NEG-10", MRN: "610000002"}.epic()).Header("x-api-key", h.key).
		Header("Accept", "application/json, "+clinical.ER7MediaType+";q=0.1").Do().Expect(http.StatusOK).Decode(&r)

	// Failures of the whole request stay JSON, with the same credentials and checks.
	h.er7(uuid.Nil, body).Header("x-api-key", h.key).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	h.er7(uuid.New(), body).Header("x-api-key", h.key).Do().ExpectError(http.StatusNotFound, "Site not found")
	h.er7(h.siteID, body).Header("x-api-key", "sous_live_wrong").Do().ExpectCode(http.StatusUnauthorized, "invalid_api_key")
	h.er7(h.siteID, "not hl7 at all").Header("x-api-key", h.key).Header("Accept", clinical.ER7MediaType).Do().
		ExpectCode(http.StatusUnprocessableEntity, "no_hl7_message")
}

// An engine that retries with the same Idempotency-Key gets the same ACKs (not "duplicate"),
// for a body hashed as it streams.
func TestER7IdempotentRetry(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	var body strings.Builder
	for i := range 200 {
		body.WriteString(mllp(visit{Event: "A01", Control: controlID("IDEM", i), MRN: mrnOf(620000000, i), Unit: "4W", Room: "401", Bed: "A"}.epic()))
	}
	key := uuid.NewString()
	send := func() *apitest.Response {
		return h.er7(h.siteID, body.String()).Header("x-api-key", h.key).Header("Accept", clinical.ER7MediaType).
			Header("Idempotency-Key", key).Do()
	}
	first, again := send(), send()
	if len(acks(t, first)) != 200 || again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.Body, again.Body) {
		t.Fatalf("retry not replayed: %q", again.Header)
	}
	if bytes.Contains(again.Body, []byte("Duplicate")) {
		t.Fatal("replay re-ran the batch")
	}
	if n := count(h.env, `SELECT count(*) FROM hl7_messages WHERE org_id = $1`, h.orgID); n != 200 {
		t.Fatalf("%d trail rows, want 200", n)
	}
}
