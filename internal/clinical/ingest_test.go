package clinical_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/clinical"
)

func admitOf(control, mrn string) string {
	return visit{Event: "A01", Control: control, MRN: mrn, Unit: "4W", Room: "412", Bed: "A", AL1: []string{al1Peanut, al1Penicillin}, ODS: []string{odsCarbNa}}.epic()
}

func TestCensusFollowsAdmitTransferUpdateDischarge(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	tok := h.owner.AccessToken
	const mrn = "100234567"

	r := h.ingest(visit{Event: "A01", Control: "LIFE-1", MRN: mrn, Unit: "4W", Room: "412", Bed: "A", At: "20260302083000",
		AL1: []string{al1Peanut, al1Penicillin, al1Shellfish}, ODS: []string{odsCarbNa}}.epic())
	res := r.Results[0]
	if res.Type != "ADT^A01" || res.Outcome != "applied" || res.Detail.Action != "admitted" || res.Detail.MRN != mrn ||
		res.Detail.OrderCreated == nil || !*res.Detail.OrderCreated || res.Detail.ControlID != "LIFE-1" || res.Detail.PatientID == nil || res.Detail.EncounterID == nil {
		t.Fatalf("admit result %+v", res)
	}
	pid := *res.Detail.PatientID
	census := h.census(tok, "")
	p, ok := byMRN(census, mrn)
	if !ok || len(census) != 1 {
		t.Fatalf("census %v", mrns(census))
	}
	// 08:30 in Chicago (no offset in EVN/PV1) is 14:30 UTC.
	want := time.Date(2026, 3, 2, 14, 30, 0, 0, time.UTC)
	if p.Unit != "4W" || p.Room != "412" || p.Bed != "A" || !p.InHouse || p.AdmittedAt == nil || !p.AdmittedAt.Equal(want) {
		t.Fatalf("admitted %+v", p)
	}
	if p.Name.Family != "DOE" || p.Name.Given != "JANE" || p.DateOfBirth == nil || *p.DateOfBirth != "1980-04-12" || p.Sex != "F" {
		t.Fatalf("demographics %+v", p)
	}
	if !slices.Equal(p.Allergens, []string{"peanuts", "crustacean_shellfish"}) || len(p.Allergies) != 3 {
		t.Fatalf("allergens %v allergies %+v", p.Allergens, p.Allergies)
	}
	if a := p.Allergies[0]; a.Severity != "severe" || a.Status != "mapped" || a.Code != "762952008" || !slices.Equal(a.Reactions, []string{"Anaphylaxis", "Hives"}) {
		t.Fatalf("peanut %+v", a)
	}
	if a := p.Allergies[1]; a.Category != "drug" || a.Status != "not_applicable" || len(a.Allergens) != 0 {
		t.Fatalf("penicillin %+v", a)
	}
	if !slices.Equal(p.Diets, []string{"consistent_carbohydrate", "low_sodium"}) || len(p.DietOrders) != 1 || p.DietOrders[0].Source != "adt" {
		t.Fatalf("diets %v orders %+v", p.Diets, p.DietOrders)
	}
	if !slices.Equal(p.Flags, []string{"severe_allergy"}) {
		t.Fatalf("flags %v", p.Flags)
	}
	orderID := p.DietOrders[0].ID

	// Transfer (Cerner-style feed: CRLF, MRN typed "MRN").
	r = h.ingest(visit{Event: "A02", Control: "LIFE-2", MRN: mrn, Unit: "5E", Room: "512", Bed: "B", PriorUnit: "4W", At: "20260303100000"}.cerner())
	if res := r.Results[0]; res.Outcome != "applied" || res.Detail.Action != "transferred" || *res.Detail.OrderCreated {
		t.Fatalf("transfer %+v", res)
	}
	p, _ = byMRN(h.census(tok, ""), mrn)
	if p.Unit != "5E" || p.Room != "512" || p.Bed != "B" || !p.AdmittedAt.Equal(want) {
		t.Fatalf("transferred %+v", p)
	}
	if len(p.Allergies) != 3 || len(p.DietOrders) != 1 || p.DietOrders[0].ID != orderID {
		t.Fatalf("a transfer without AL1/ODS keeps allergies and diet orders: %+v %+v", p.Allergies, p.DietOrders)
	}
	if h.census(tok, "unit=4W") != nil && len(h.census(tok, "unit=4W")) != 0 {
		t.Fatal("still on 4W")
	}
	if got := h.census(tok, "unit=5E"); len(got) != 1 {
		t.Fatalf("5E census %v", mrns(got))
	}

	// Update: new bed, a name correction, allergies replaced, the same diet resent keeps its id.
	r = h.ingest(visit{Event: "A08", Control: "LIFE-3", MRN: mrn, Family: "DOE-SMITH", Given: "JANE", Unit: "5E", Room: "514", Bed: "A",
		At: "20260303120000", AL1: []string{al1Quinoa}, ODS: []string{odsCarbNa}}.epic())
	if res := r.Results[0]; res.Outcome != "applied" || res.Detail.Action != "updated" || *res.Detail.OrderCreated {
		t.Fatalf("update %+v", res)
	}
	p, _ = byMRN(h.census(tok, ""), mrn)
	if p.Room != "514" || p.Name.Family != "DOE-SMITH" || len(p.Allergies) != 1 || p.Allergies[0].Status != "unmapped" || len(p.Allergens) != 0 {
		t.Fatalf("updated %+v", p)
	}
	if len(p.DietOrders) != 1 || p.DietOrders[0].ID != orderID {
		t.Fatalf("resent diet got a new id: %+v", p.DietOrders)
	}
	if !slices.Equal(p.Flags, []string{"unmapped_allergen"}) {
		t.Fatalf("flags %v", p.Flags)
	}

	// Discharge (Meditech-style feed: LF, an untyped identifier).
	r = h.ingest(visit{Event: "A03", Control: "LIFE-4", MRN: mrn, Unit: "5E", Room: "514", Bed: "A", At: "20260305110000"}.meditech())
	if res := r.Results[0]; res.Outcome != "applied" || res.Detail.Action != "discharged" || res.Detail.EncounterID != nil {
		t.Fatalf("discharge %+v", res)
	}
	if c := h.census(tok, ""); len(c) != 0 {
		t.Fatalf("census after discharge %v", mrns(c))
	}
	// A second discharge finds nobody in house.
	r = h.ingest(visit{Event: "A03", Control: "LIFE-5", MRN: mrn, Unit: "5E", Room: "514", Bed: "A"}.epic())
	if res := r.Results[0]; res.Outcome != "skipped" || !strings.Contains(res.Detail.Reason, "not in house") {
		t.Fatalf("second discharge %+v", res)
	}

	// The patient keeps the history.
	pt := h.patient(tok, pid)
	if pt.InHouse || pt.Unit != "" || len(pt.DietOrders) != 0 || len(pt.Allergies) != 1 || pt.MRNSource != "pid3_first" {
		t.Fatalf("patient after discharge %+v", pt)
	}
	if len(pt.Encounters) != 1 {
		t.Fatalf("encounters %+v", pt.Encounters)
	}
	enc := pt.Encounters[0]
	if enc.DischargedAt == nil || !enc.DischargedAt.Equal(time.Date(2026, 3, 5, 17, 0, 0, 0, time.UTC)) || enc.Unit != "5E" || enc.Room != "514" || enc.VisitNumber != "V"+mrn || enc.PatientClass != "I" {
		t.Fatalf("encounter %+v", enc)
	}
	var actions, controls []string
	for _, m := range enc.Movements {
		actions, controls = append(actions, m.Action), append(controls, m.ControlID)
	}
	if !slices.Equal(actions, []string{"admitted", "transferred", "updated", "discharged"}) || !slices.Equal(controls, []string{"LIFE-1", "LIFE-2", "LIFE-3", "LIFE-4"}) {
		t.Fatalf("movements %v %v", actions, controls)
	}
	if m := enc.Movements[1]; m.Unit != "5E" || m.Room != "512" || !m.At.Equal(time.Date(2026, 3, 3, 16, 0, 0, 0, time.UTC)) {
		t.Fatalf("transfer movement %+v", m)
	}

	// Readmission opens a new encounter.
	r = h.ingest(visit{Event: "A01", Control: "LIFE-6", MRN: mrn, Visit: "V2", Unit: "ICU", Room: "7", Bed: "2", At: "20260310090000"}.epic())
	if res := r.Results[0]; res.Outcome != "applied" || *res.Detail.EncounterID == enc.ID {
		t.Fatalf("readmit %+v", res)
	}
	if pt = h.patient(tok, pid); len(pt.Encounters) != 2 || pt.Encounters[0].VisitNumber != "V2" || !slices.Equal(pt.Flags, []string{"no_diet_order", "unmapped_allergen"}) {
		t.Fatalf("readmitted %+v", pt)
	}
}

func TestSkippedMessagesSayWhy(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	r := h.ingest(
		visit{Event: "A03", Control: "SKIP-1", MRN: "555000111", Unit: "5E", Room: "510", Bed: "B"}.epic(),
		"MSH|^~\\&|EPIC|HMC|SOUS|SOUS|20260302090000||ADT^A01|SKIP-2|P|2.5.1\rPID|1||||DOE^JOHN||19700101|M\rPV1|1|I|4W^401^A\r",
		"MSH!@#$%!OLDADT!COMMUNITY!SOUS!SOUS!19990101120000!!ADT!SKIP-3!P!2.2\rEVN!A08!19990101120000\rPID!1!77665544!!!BROWN@ALICE@M!!1961!F\rPV1!1!I!ICU@7@2\r",
		"MSH|^~\\&|EPIC|HMC|SOUS|SOUS|20260302090000||ADT^A04|SKIP-4|P|2.5.1\rPID|1||999^^^HMC^MR||REG^ISTER\rPV1|1|O|ED\r",
		"MSH|^~\\&|LAB|HMC|SOUS|SOUS|20260302090000||ORM^O01|SKIP-5|P|2.3\rPID|1||999^^^HMC^MR||REG^ISTER\rORC|NW|LAB-1\rOBR|1|LAB-1||CBC^Complete blood count\r",
		visit{Event: "A02", Control: "SKIP-6", MRN: "555000112"}.epic(),
	)
	want := []string{
		"discharge for unknown MRN 555000111",
		"no MRN in PID-3",
		`no MRN in PID-3 (PID-2 holds "77665544"`,
		"unsupported message type ADT^A04",
		"ORM^O01 without a diet order",
		"transfer without a new location",
	}
	for i, res := range r.Results {
		if res.Outcome != "skipped" || !strings.Contains(res.Detail.Reason, want[i]) {
			t.Errorf("message %d: %s %q, want skipped %q", i, res.Outcome, res.Detail.Reason, want[i])
		}
	}
	if c := h.census(h.owner.AccessToken, ""); len(c) != 0 {
		t.Fatalf("census %v", mrns(c))
	}
	// Skipped messages are in the trail and consume their control ids.
	if n := count(h.env, `SELECT count(*) FROM hl7_messages WHERE org_id = $1 AND outcome = 'skipped' AND reason <> ''`, h.orgID); n != 6 {
		t.Fatalf("%d skipped trail rows", n)
	}
	if r := h.ingest(visit{Event: "A03", Control: "SKIP-1", MRN: "555000111"}.epic()); r.Results[0].Outcome != "duplicate" {
		t.Fatalf("resent skipped message: %+v", r.Results[0])
	}
}

func TestDuplicatesChangeNothing(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	tok := h.owner.AccessToken
	a01 := visit{Event: "A01", Control: "DUP-1", MRN: "400000001", Unit: "4W", Room: "401", Bed: "A"}.epic()
	r := h.ingest(a01, a01)
	if !slices.Equal(r.outcomes(), []string{"applied", "duplicate"}) || !strings.Contains(r.Results[1].Detail.Reason, "DUP-1") {
		t.Fatalf("same batch: %+v", r.Results)
	}
	// The engine resends after a timeout, and resends a transfer under an old control id.
	before := h.census(tok, "")
	moved := visit{Event: "A02", Control: "DUP-1", MRN: "400000001", Unit: "ICU", Room: "1", Bed: "1"}.epic()
	if r := h.ingest(a01, moved); !slices.Equal(r.outcomes(), []string{"duplicate", "duplicate"}) {
		t.Fatalf("resend: %v", r.outcomes())
	}
	after := h.census(tok, "")
	if len(after) != 1 || after[0].Unit != before[0].Unit || after[0].Room != before[0].Room {
		t.Fatalf("census changed: %+v", after)
	}
	if n := count(h.env, `SELECT count(*) FROM hl7_messages WHERE org_id = $1 AND control_id = 'DUP-1'`, h.orgID); n != 4 {
		t.Fatalf("%d trail rows for DUP-1 (every message is kept)", n)
	}
	// Control ids are per organization.
	other := newHospitalIn(h.env, "Other Health")
	if r := other.ingest(a01); r.Results[0].Outcome != "applied" {
		t.Fatalf("other organization: %+v", r.Results[0])
	}
}

func TestBadMessageInTheMiddleOfABatch(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	broken := "MSH|^~|\rPID|1||999^^^HMC^MR||BROKEN^HEADER\r" // MSH-9 empty
	r := h.ingest(
		mllp(visit{Event: "A01", Control: "MID-1", MRN: "500000001", Unit: "4W", Room: "401", Bed: "A"}.epic()),
		mllp(broken),
		mllp(visit{Event: "A01", Control: "MID-3", MRN: "500000003", Unit: "4W", Room: "403", Bed: "A"}.cerner()),
	)
	if !slices.Equal(r.outcomes(), []string{"applied", "rejected", "applied"}) {
		t.Fatalf("outcomes %v", r.outcomes())
	}
	if res := r.Results[1]; res.Type != "" || !strings.Contains(res.Detail.Reason, "MSH-9") {
		t.Fatalf("rejected %+v", res)
	}
	if c := h.census(h.owner.AccessToken, ""); !slices.Equal(mrns(c), []string{"500000001", "500000003"}) {
		t.Fatalf("census %v", mrns(c))
	}
	var raw string
	if err := h.env.Pool.QueryRow(t.Context(), `SELECT raw FROM hl7_messages WHERE org_id = $1 AND outcome = 'rejected'`, h.orgID).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(raw, "BROKEN^HEADER") {
		t.Fatalf("raw %q", raw)
	}
}

// TestEachMessageInItsOwnSavepoint makes the database refuse one message of a batch: the batch
// falls back to a savepoint per message, the refused one is rejected and the others applied.
func TestEachMessageInItsOwnSavepoint(t *testing.T) {
	h := newHospital(t) // not parallel: the failure hook is process-wide (it only matches SAVE-2)
	restore := clinical.FailWritesOf("SAVE-2")
	r := h.ingest(
		visit{Event: "A01", Control: "SAVE-1", MRN: "600000001", Unit: "4W", Room: "401", Bed: "A"}.epic(),
		visit{Event: "A01", Control: "SAVE-2", MRN: "600000002", Unit: "4W", Room: "402", Bed: "A"}.epic(),
		visit{Event: "A02", Control: "SAVE-3", MRN: "600000001", Unit: "5E", Room: "501", Bed: "A"}.epic(),
	)
	restore()
	if !slices.Equal(r.outcomes(), []string{"applied", "rejected", "applied"}) {
		t.Fatalf("outcomes %v", r.outcomes())
	}
	if !strings.Contains(r.Results[1].Detail.Reason, "could not be stored") {
		t.Fatalf("reason %q", r.Results[1].Detail.Reason)
	}
	c := h.census(h.owner.AccessToken, "")
	if !slices.Equal(mrns(c), []string{"600000001"}) || c[0].Unit != "5E" {
		t.Fatalf("census %+v", c)
	}
	if n := count(h.env, `SELECT count(*) FROM hl7_messages WHERE org_id = $1`, h.orgID); n != 3 {
		t.Fatalf("%d trail rows", n)
	}
	// A rejected message does not consume its control id: the engine's resend applies.
	if r := h.ingest(visit{Event: "A01", Control: "SAVE-2", MRN: "600000002", Unit: "4W", Room: "402", Bed: "A"}.epic()); r.Results[0].Outcome != "applied" {
		t.Fatalf("resend %+v", r.Results[0])
	}
	if n := count(h.env, `SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'ingestHl7'`, h.orgID); n != 2 {
		t.Fatalf("%d audit rows", n)
	}
}

func TestTolerantOfRealFeeds(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	body := "\ufeff" + // a byte-order mark
		"FHS|^~\\&|EPIC|HMC|SOUS|SOUS|20260302090000\r" +
		"BHS|^~\\&|EPIC|HMC|SOUS|SOUS|20260302090000\r" +
		mllp(visit{Event: "A01", Control: "FEED-1", MRN: "700000001", Unit: "4W", Room: "401", Bed: "A"}.epic()) +
		// Names with escapes and Windows-1252 text survive.
		"MSH|^~\\&|HNAM|CERNERHOSP|SOUS|SOUS|20260302100000||ADT^A01|FEED-2|P|2.3\r\n" +
		"PID|1||700000002^^^CERNERHOSP^MRN||MU\\XC391\\OZ-O'NEIL^JOS\\XC389\\^A||19551103|M\r\n" +
		"PV1|1|I|5E^512^B^CERNERHOSP\r\n" +
		"AL1|1|FA|^EGGS \\T\\ MILK|MO\r\n" +
		// A legacy sender with its own delimiters and the event in EVN-1.
		"MSH!@#$%!OLDADT!COMMUNITY!SOUS!SOUS!20260302110000!!ADT!FEED-3!P!2.2\n" +
		"EVN!A01!20260302110000\n" +
		"PID!1!!700000003@@@COMMUNITY@MR!!BROWN@ALICE@M!!1961!F\n" +
		"PV1!1!I!ICU@7@2\n" +
		"ODS!D!!@NPO AFTER MIDNIGHT#@MECH SOFT!PROCEDURE AT 0800\n" +
		"BTS|3\rFTS|1\r"
	r := h.ingest(body)
	if !slices.Equal(r.outcomes(), []string{"applied", "applied", "applied"}) {
		t.Fatalf("outcomes %v %+v", r.outcomes(), r.Results)
	}
	if len(r.Notes) == 0 {
		t.Fatal("no notes about the envelope segments")
	}
	c := h.census(h.owner.AccessToken, "")
	p2, _ := byMRN(c, "700000002")
	if p2.Name.Family != "MUÑOZ-O'NEIL" || p2.Name.Given != "JOSÉ" || !slices.Equal(p2.Allergens, []string{"egg", "milk"}) {
		t.Fatalf("escaped %+v", p2)
	}
	p3, _ := byMRN(c, "700000003")
	if p3.Unit != "ICU" || p3.Room != "7" || p3.DateOfBirth == nil || *p3.DateOfBirth != "1961" || !slices.Equal(p3.Diets, []string{"npo", "iddsi_food_6"}) {
		t.Fatalf("legacy %+v", p3)
	}
	if !slices.Contains(p3.Flags, "npo") {
		t.Fatalf("flags %v", p3.Flags)
	}
}

// TestBatchOfAHundredRealisticMessages checks that a batch of 100 large admissions fits the
// ingest's body limit (above the general 1 MB) and that a body beyond it answers 413.
func TestBatchOfAHundredRealisticMessages(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	var b strings.Builder
	for i := range 100 {
		b.WriteString(mllp(bigA01(controlID("BIG", i), mrnOf(800000000, i))))
	}
	body := b.String()
	if len(body) < 250_000 {
		t.Fatalf("messages are %d bytes, not realistic", len(body)/100)
	}
	r := h.ingest(body)
	if r.Processed != 100 || slices.ContainsFunc(r.outcomes(), func(o string) bool { return o != "applied" }) {
		t.Fatalf("outcomes %v", r.outcomes())
	}
	if c := h.census(h.owner.AccessToken, "limit=500"); len(c) != 100 {
		t.Fatalf("census has %d", len(c))
	}
	// Five times that (about 1.3 MB, above the general limit) still fits; 5 MB does not.
	b.Reset()
	for i := range 500 {
		b.WriteString(bigA01(controlID("BIGGER", i), mrnOf(810000000, i)))
	}
	if b.Len() < 1<<20 {
		t.Fatalf("%d bytes is not above the general limit", b.Len())
	}
	if r := h.ingest(b.String()); r.Processed != 500 {
		t.Fatalf("processed %d", r.Processed)
	}
	huge := strings.Repeat(bigA01("HUGE", "820000000"), 5<<20/len(bigA01("HUGE", "820000000"))+1)
	h.post(h.siteID, huge).Header("x-api-key", h.key).Do().ExpectError(http.StatusRequestEntityTooLarge, "")
}

func controlID(prefix string, i int) string { return prefix + "-" + itoa(i) }

func mrnOf(base, i int) string { return itoa(base + i) }

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

func TestMessageTrail(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	h.ingest(
		visit{Event: "A01", Control: "TRAIL-1", MRN: "900000001", Unit: "4W", Room: "401", Bed: "A"}.epic(),
		visit{Event: "A03", Control: "TRAIL-2", MRN: "900000099"}.epic(),
	)
	type record struct {
		ID        uuid.UUID `json:"id"`
		Index     int       `json:"index"`
		ControlID string    `json:"controlId"`
		Type      string    `json:"type"`
		Outcome   string    `json:"outcome"`
		Action    string    `json:"action"`
		Reason    string    `json:"reason"`
		Raw       string    `json:"raw"`
	}
	var all []record
	h.env.Call(http.MethodGet, orgPath(h.orgID, "adt/messages")).Token(h.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&all)
	if len(all) != 2 || all[0].ControlID != "TRAIL-2" || all[1].ControlID != "TRAIL-1" || all[1].Action != "admitted" || all[0].Outcome != "skipped" {
		t.Fatalf("trail %+v", all)
	}
	if !strings.HasPrefix(all[1].Raw, "MSH|^~\\&|EPIC") || !strings.Contains(all[1].Raw, "PID|1||900000001") {
		t.Fatalf("raw %q", all[1].Raw)
	}
	var page []record
	res := h.env.Call(http.MethodGet, orgPath(h.orgID, "adt/messages")+"?limit=1").Token(h.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&page)
	if len(page) != 1 || res.Header.Get("Link") == "" {
		t.Fatalf("page %+v link %q", page, res.Header.Get("Link"))
	}
	h.env.Call(http.MethodGet, orgPath(h.orgID, "adt/messages")+"?outcome=skipped&controlId=TRAIL-2").Token(h.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&page)
	if len(page) != 1 || page[0].Reason == "" {
		t.Fatalf("filtered %+v", page)
	}
}

// TestRestatingUpdatesRewriteNothing: an update that restates what is stored leaves the
// patient's row as it is; one that changes something writes it.
func TestRestatingUpdatesRewriteNothing(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	v := visit{Event: "A01", Control: "SAME-1", MRN: "160000001", Unit: "4W", Room: "401", Bed: "A", AL1: []string{al1Peanut, al1Shellfish}, ODS: []string{odsCarbNa}}
	h.ingest(v.epic())
	var before time.Time
	if err := h.env.Pool.QueryRow(t.Context(), `SELECT updated_at FROM patients WHERE mrn = $1`, v.MRN).Scan(&before); err != nil {
		t.Fatal(err)
	}
	h.env.Clock.Advance(time.Hour)
	v.Event, v.Control = "A08", "SAME-2"
	if r := h.ingest(v.epic()); r.Results[0].Outcome != "applied" {
		t.Fatalf("%+v", r.Results[0])
	}
	var after time.Time
	if err := h.env.Pool.QueryRow(t.Context(), `SELECT updated_at FROM patients WHERE mrn = $1`, v.MRN).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if !after.Equal(before) {
		t.Fatalf("restating update rewrote the patient: %s → %s", before, after)
	}
	v.Control, v.AL1 = "SAME-3", []string{al1Peanut}
	h.ingest(v.epic())
	fresh := h.env.SignIn(h.owner.User.Email)
	p, _ := byMRN(h.census(fresh.AccessToken, ""), v.MRN)
	if !slices.Equal(p.Allergens, []string{"peanuts"}) || !p.UpdatedAtAfter(before) {
		t.Fatalf("changed allergies not written: %+v", p)
	}
}

// TestUpdateUpsertsTheStay: an A08 upserts unit and room, so an inpatient the census has never
// seen is admitted where PV1-3 says; outpatients, finished stays and known discharged patients
// are updated without entering the census.
func TestUpdateUpsertsTheStay(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	tok := h.owner.AccessToken
	a08 := func(control, mrn, pv1 string) string {
		return "MSH|^~\\&|EPIC|HMC|SOUS|SOUS|20260302090000||ADT^A08|" + control + "|P|2.5.1\r" +
			"EVN|A08|20260302090000\rPID|1||" + mrn + "^^^HMC^MR||DOE^JOHN||19700101|M\r" + pv1 + "\r" +
			"AL1|1|FA|256349002^Peanut^SCT|SV\r"
	}
	// A known patient, discharged.
	h.ingest(visit{Event: "A01", Control: "UPS-0", MRN: "180000004", Unit: "4W", Room: "401", Bed: "A"}.epic(),
		visit{Event: "A03", Control: "UPS-00", MRN: "180000004", Unit: "4W", Room: "401", Bed: "A"}.epic())

	r := h.ingest(
		a08("UPS-1", "180000001", "PV1|1|I|5E^512^B|||||||MED||||||||IN|V1"),
		a08("UPS-2", "180000002", "PV1|1|O|CLINIC^^^HMC"),
		a08("UPS-3", "180000003", "PV1|1|I|5E^514^A|||||||MED||||||||IN|V3|||||||||||||||||||||||||20260301080000|20260302080000"),
		a08("UPS-4", "180000004", "PV1|1|I|4W^401^A"),
	)
	if !slices.Equal(r.outcomes(), []string{"applied", "applied", "applied", "applied"}) {
		t.Fatalf("outcomes %v", r.outcomes())
	}
	if res := r.Results[0]; res.Detail.Action != "updated" || res.Detail.EncounterID == nil || !slices.ContainsFunc(res.Detail.Warnings, func(w string) bool { return strings.Contains(w, "no admission on record") }) {
		t.Fatalf("unknown inpatient %+v", res)
	}
	for i := 1; i < 4; i++ {
		if res := r.Results[i]; res.Detail.EncounterID != nil {
			t.Errorf("message %d opened an encounter: %+v", i, res)
		}
	}
	c := h.census(tok, "")
	if !slices.Equal(mrns(c), []string{"180000001"}) {
		t.Fatalf("census %v", mrns(c))
	}
	if p := c[0]; p.Unit != "5E" || p.Room != "512" || p.Bed != "B" || !slices.Equal(p.Allergens, []string{"peanuts"}) || p.AdmittedAt == nil {
		t.Fatalf("upserted %+v", p)
	}
	// The outpatient was still recorded, with its allergies.
	if n := count(h.env, `SELECT count(*) FROM patients WHERE org_id = $1 AND mrn = '180000002' AND encounter_id IS NULL`, h.orgID); n != 1 {
		t.Fatalf("outpatient rows %d", n)
	}
	// A later A08 moves the upserted patient like any other, and an A03 discharges them.
	h.ingest(a08("UPS-5", "180000001", "PV1|1|I|ICU^7^2"))
	if c := h.census(tok, "unit=ICU"); len(c) != 1 || c[0].Room != "7" {
		t.Fatalf("moved %+v", c)
	}
	if r := h.ingest(visit{Event: "A03", Control: "UPS-6", MRN: "180000001", Unit: "ICU", Room: "7", Bed: "2"}.epic()); r.Results[0].Detail.Action != "discharged" {
		t.Fatalf("discharge %+v", r.Results[0])
	}
}

// TestTrailRawTextExpires: the trail keeps raw text for clinical.RawRetention; then the expiry
// task clears it, a slice at a time, keeping the rest of the row, the control id's consumption and
// the patient's movements, whether or not the feed still sends.
func TestTrailRawTextExpires(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	h.env.SetPlan(h.orgID, "enterprise", nil) // outlives the trial
	clk := h.env.Clock
	var old []string
	for i := range 5 {
		old = append(old, visit{Event: "A01", Control: controlID("EXP", i), MRN: mrnOf(190000000, i), Unit: "4W", Room: itoa(400 + i), Bed: "A"}.epic())
	}
	h.ingest(old...)
	clk.Advance(clinical.RawRetention - 24*time.Hour)
	h.ingest(visit{Event: "A08", Control: "EXP-RECENT", MRN: "190000000", Unit: "4W", Room: "400", Bed: "B"}.epic())
	expire := func() {
		t.Helper()
		if err := clinical.ExpireTrails(t.Context(), h.env.Pool, clk.Now(), 2); err != nil {
			t.Fatal(err)
		}
	}
	cleared := func() int {
		return count(h.env, `SELECT count(*) FROM hl7_messages WHERE org_id = $1 AND raw = ''`, h.orgID)
	}
	expire()
	if n := cleared(); n != 0 {
		t.Fatalf("%d cleared within the retention", n)
	}

	// Two days later the first body is past the retention; the feed has gone quiet, and the task
	// clears all five rows in slices of two; the recent row keeps its text.
	clk.Advance(48 * time.Hour)
	expire()
	if n := cleared(); n != 5 {
		t.Fatalf("%d cleared, want 5", n)
	}
	expire() // again: nothing more
	if n := count(h.env, `SELECT count(*) FROM hl7_messages WHERE org_id = $1 AND raw <> ''`, h.orgID); n != 1 {
		t.Fatalf("%d rows kept their raw text, want 1", n)
	}
	// The rows stay: the trail lists them, a resend is still a duplicate, the movements remain.
	tok := h.env.SignIn(h.owner.User.Email).AccessToken // months have passed
	var trail []struct {
		ControlID string `json:"controlId"`
		Outcome   string `json:"outcome"`
		Raw       string `json:"raw"`
	}
	h.env.Call(http.MethodGet, orgPath(h.orgID, "adt/messages")+"?controlId=EXP-0").Token(tok).Do().Expect(http.StatusOK).Decode(&trail)
	if len(trail) != 1 || trail[0].Outcome != "applied" || trail[0].Raw != "" {
		t.Fatalf("expired row %+v", trail)
	}
	if r := h.ingest(old[0]); r.Results[0].Outcome != "duplicate" {
		t.Fatalf("resend after expiry %+v", r.Results[0])
	}
	p, _ := byMRN(h.census(tok, ""), "190000000")
	if pt := h.patient(tok, p.ID); len(pt.Encounters) != 1 || len(pt.Encounters[0].Movements) != 2 || pt.Encounters[0].Movements[0].ControlID != "EXP-0" {
		t.Fatalf("movements %+v", pt.Encounters)
	}
	// Another organization's trail is its own.
	if n := count(h.env, `SELECT count(*) FROM hl7_trail_expiry WHERE org_id <> $1`, h.orgID); n != 0 {
		t.Fatalf("%d other marks", n)
	}
}
