package clinical_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/clinical"
)

// ingestAsync posts a body from a goroutine: the result, or the failure, arrives on the channel
// (t.Fatal must not run outside the test's goroutine).
func (h *hospital) ingestAsync(within time.Duration, messages ...string) <-chan ingestAnswer {
	out := make(chan ingestAnswer, 1)
	go func() {
		res := h.post(h.siteID, strings.Join(messages, "")).Header("x-api-key", h.key).Within(within).Do()
		a := ingestAnswer{status: res.Status, body: string(res.Body)}
		if res.Status == http.StatusOK {
			res.Decode(&a.result)
		}
		out <- a
	}()
	return out
}

type ingestAnswer struct {
	status int
	body   string
	result ingestResult
}

func (a ingestAnswer) ok(t *testing.T) ingestResult {
	t.Helper()
	if a.status != http.StatusOK {
		t.Fatalf("status %d: %s", a.status, a.body)
	}
	return a.result
}

// TestIngestBodiesOfOtherPatientsOverlap: while one body holds its locks, a body of another
// patient is applied to completion, and a body of the held patient waits and applies after it,
// in arrival order. With one lock per organization the second body would wait for the first.
func TestIngestBodiesOfOtherPatientsOverlap(t *testing.T) {
	h := newHospital(t)
	const held, other = "330000001", "330000002"
	hold, release := clinical.HoldIngestOf(held)
	defer release()

	first := h.ingestAsync(time.Minute, visit{Event: "A01", Control: "OVL-1", MRN: held, Unit: "4W", Room: "401", Bed: "A"}.epic())
	<-hold
	// The held patient's next message, sent while the first is held: it queues behind it.
	next := h.ingestAsync(time.Minute, visit{Event: "A02", Control: "OVL-3", MRN: held, Unit: "5E", Room: "501", Bed: "B", PriorUnit: "4W", At: "20260302093000"}.epic())
	// Another patient's body completes although the first still holds its locks (an answer
	// past the deadline fails the run).
	r := h.ingestAsync(30*time.Second, visit{Event: "A01", Control: "OVL-2", MRN: other, Unit: "4W", Room: "402", Bed: "A"}.epic())
	if got := (<-r).ok(t); got.Results[0].Outcome != "applied" {
		t.Fatalf("other patient %+v", got.Results)
	}
	release()
	if got := (<-first).ok(t); got.Results[0].Outcome != "applied" || got.Results[0].Detail.Action != "admitted" {
		t.Fatalf("first %+v", got.Results)
	}
	got := (<-next).ok(t).Results[0]
	if got.Outcome != "applied" || got.Detail.Action != "transferred" || len(got.Detail.Warnings) != 0 {
		t.Fatalf("the transfer ran before the admission it follows: %+v", got)
	}
	p, _ := byMRN(h.census(h.owner.AccessToken, ""), held)
	if p.Unit != "5E" || p.Room != "501" {
		t.Fatalf("held patient %+v", p)
	}
}

// TestIngestDisjointBodiesConcurrently: bodies of different patients sent at once all apply,
// and what they share — the unmapped codes' counts, the trail — adds up.
func TestIngestDisjointBodiesConcurrently(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	const bodies, per = 8, 5
	answers := make([]<-chan ingestAnswer, bodies)
	for b := range bodies {
		msgs := make([]string, per)
		for i := range per {
			n := b*per + i
			msgs[i] = visit{Event: "A01", Control: fmt.Sprintf("DIS-%d", n), MRN: fmt.Sprintf("34%07d", n), Unit: "4W",
				Room: fmt.Sprint(400 + n), Bed: "A", AL1: []string{al1Quinoa}, ODS: []string{odsModCho}}.epic()
		}
		answers[b] = h.ingestAsync(time.Minute, msgs...)
	}
	for _, a := range answers {
		if r := (<-a).ok(t); slices.ContainsFunc(r.outcomes(), func(o string) bool { return o != "applied" }) {
			t.Fatalf("outcomes %v", r.outcomes())
		}
	}
	census := h.census(h.owner.AccessToken, "limit=100")
	if len(census) != bodies*per {
		t.Fatalf("%d in census", len(census))
	}
	for _, c := range h.unmappedCodes(h.owner.AccessToken, "") {
		if c.Occurrences != bodies*per || c.PatientsAffected != bodies*per {
			t.Fatalf("code %+v", c)
		}
	}
	if n := count(h.env, `SELECT count(*) FROM hl7_messages WHERE org_id = $1 AND outcome = 'applied'`, h.orgID); n != bodies*per {
		t.Fatalf("%d applied in the trail", n)
	}
}

// TestIngestSamePatientSerially: bodies of one patient sent at once apply one after the other:
// every transfer applies against the stay the admission opened, the trail records them in the
// order they were applied, and the census is where the last of them put the patient. Sent one
// after the other, they apply in the order sent.
func TestIngestSamePatientSerially(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	const mrn, bodies = "350000001", 8
	h.ingest(visit{Event: "A01", Control: "SAME-0", MRN: mrn, Unit: "4W", Room: "400", Bed: "A"}.epic())
	answers := make([]<-chan ingestAnswer, bodies)
	for b := range bodies {
		answers[b] = h.ingestAsync(time.Minute, visit{Event: "A02", Control: fmt.Sprintf("SAME-%d", b+1), MRN: mrn,
			Unit: "5E", Room: fmt.Sprint(501 + b), Bed: "B", PriorUnit: "4W", At: "20260302093000"}.epic())
	}
	for _, a := range answers {
		r := (<-a).ok(t).Results[0]
		if r.Outcome != "applied" || r.Detail.Action != "transferred" || len(r.Detail.Warnings) != 0 {
			t.Fatalf("transfer %+v", r)
		}
	}
	// Trail ids are time-ordered, taken as each message is applied.
	var lastRoom string
	if err := h.env.Pool.QueryRow(t.Context(), `SELECT room FROM hl7_messages WHERE org_id = $1 AND mrn = $2 AND outcome = 'applied'
		ORDER BY id DESC LIMIT 1`, h.orgID, mrn).Scan(&lastRoom); err != nil {
		t.Fatal(err)
	}
	p, _ := byMRN(h.census(h.owner.AccessToken, ""), mrn)
	if p.Room != lastRoom || len(h.patient(h.owner.AccessToken, p.ID).Encounters) != 1 {
		t.Fatalf("census room %s, last applied %s", p.Room, lastRoom)
	}

	// One after the other: the trail in the order sent.
	var sent []string
	for b := range 4 {
		c := fmt.Sprintf("SEQ-%d", b)
		sent = append(sent, c)
		h.ingest(visit{Event: "A08", Control: c, MRN: mrn, Unit: "6N", Room: fmt.Sprint(601 + b), Bed: "A"}.epic())
	}
	rows, err := h.env.Pool.Query(t.Context(), `SELECT control_id FROM hl7_messages WHERE org_id = $1 AND control_id LIKE 'SEQ-%' ORDER BY id`, h.orgID)
	if err != nil {
		t.Fatal(err)
	}
	var trail []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		trail = append(trail, c)
	}
	if rows.Err() != nil || !slices.Equal(trail, sent) {
		t.Fatalf("trail %v, sent %v (%v)", trail, sent, rows.Err())
	}
}

// TestIngestDuplicateControlIDConcurrently: one control id sent at once in bodies of different
// patients is consumed once: exactly one body applies it, the others answer duplicate.
func TestIngestDuplicateControlIDConcurrently(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	const bodies = 6
	answers := make([]<-chan ingestAnswer, bodies)
	for b := range bodies {
		answers[b] = h.ingestAsync(time.Minute, visit{Event: "A01", Control: "DUP-1", MRN: fmt.Sprintf("36%07d", b), Unit: "4W", Room: "401", Bed: "A"}.epic())
	}
	outcomes := map[string]int{}
	for _, a := range answers {
		outcomes[(<-a).ok(t).Results[0].Outcome]++
	}
	if outcomes["applied"] != 1 || outcomes["duplicate"] != bodies-1 {
		t.Fatalf("outcomes %v", outcomes)
	}
	if n := len(h.census(h.owner.AccessToken, "")); n != 1 {
		t.Fatalf("%d in census", n)
	}
}

// TestMappingConcurrentWithIngest: a code mapped while bodies carrying it are ingested reaches
// every patient: those applied before it are re-mapped, those after it are mapped as they
// arrive, and none is applied against the mappings as they were and written after.
func TestMappingConcurrentWithIngest(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	manager := h.env.Member(h.orgID, "manager")
	const bodies, per = 6, 4
	answers := make([]<-chan ingestAnswer, bodies)
	var wg sync.WaitGroup
	for b := range bodies {
		msgs := make([]string, per)
		for i := range per {
			n := b*per + i
			msgs[i] = visit{Event: "A01", Control: fmt.Sprintf("MC-%d", n), MRN: fmt.Sprintf("37%07d", n), Unit: "4W",
				Room: fmt.Sprint(400 + n), Bed: "A", ODS: []string{odsModCho}}.epic()
		}
		answers[b] = h.ingestAsync(time.Minute, msgs...)
		if b == bodies/2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := h.env.Call(http.MethodPut, orgPath(h.orgID, "clinical/unmapped-codes/MODCHO")).Token(manager.AccessToken).
					JSON(map[string]any{"kind": "diet", "diets": []string{"consistent_carbohydrate"}}).Do()
				if res.Status != http.StatusOK {
					t.Errorf("mapping: %d %s", res.Status, res.Body)
				}
			}()
		}
	}
	for _, a := range answers {
		(<-a).ok(t)
	}
	wg.Wait()
	census := h.census(h.owner.AccessToken, "limit=100")
	if len(census) != bodies*per {
		t.Fatalf("%d in census", len(census))
	}
	for _, p := range census {
		if !slices.Equal(p.Diets, []string{"consistent_carbohydrate"}) || slices.Contains(p.Flags, "unmapped_diet") {
			t.Fatalf("%s not mapped: %+v", p.MRN, p)
		}
	}
	if c := h.unmappedCodes(h.owner.AccessToken, "status=mapped"); len(c) != 1 || c[0].Occurrences != bodies*per {
		t.Fatalf("mapped %+v", c)
	}
}

// TestIngestLargeBodyLocksTheOrganization: a body needing more locks than one body may take
// (here 130 patients and 130 control ids) locks its whole organization instead; it applies, and
// so do the bodies of other patients sent with it.
func TestIngestLargeBodyLocksTheOrganization(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	const large = 130
	msgs := make([]string, large)
	for i := range large {
		msgs[i] = visit{Event: "A01", Control: fmt.Sprintf("BIG-%d", i), MRN: fmt.Sprintf("38%07d", i), Unit: "4W", Room: fmt.Sprint(400 + i), Bed: "A"}.epic()
	}
	big := h.ingestAsync(time.Minute, msgs...)
	small := h.ingestAsync(time.Minute, visit{Event: "A01", Control: "SMALL-1", MRN: "389999999", Unit: "5E", Room: "501", Bed: "A"}.epic())
	if r := (<-big).ok(t); slices.ContainsFunc(r.outcomes(), func(o string) bool { return o != "applied" }) || len(r.Results) != large {
		t.Fatalf("large body %v", r.outcomes())
	}
	if r := (<-small).ok(t); r.Results[0].Outcome != "applied" {
		t.Fatalf("small body %v", r.outcomes())
	}
	if n := count(h.env, `SELECT count(*) FROM patients WHERE org_id = $1 AND encounter_id IS NOT NULL`, h.orgID); n != large+1 {
		t.Fatalf("%d in house", n)
	}
}
