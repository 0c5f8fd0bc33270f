package clinical_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/sous-app/sous/internal/clinical"
)

// TestTwoFeedsShareControlIDs: two hospitals of one organization whose engines both count from
// 1. A control id is unique per sending application (MSH-3) and facility (MSH-4), so neither
// feed's messages are taken for the other's; a resend from either is still a duplicate.
func TestTwoFeedsShareControlIDs(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	north := h.env.Site(h.owner.AccessToken, h.orgID, "North campus")
	// Epic at Harborview (MSH-3 EPIC, MSH-4 HARBORVIEW) and Cerner at the north campus (HNAM,
	// CERNERHOSP), and a second Epic facility: the same application, another facility.
	epic := func(control, mrn string) string {
		return visit{Event: "A01", Control: control, MRN: mrn, Unit: "4W", Room: "401", Bed: "A"}.epic()
	}
	epicClinic := func(control, mrn string) string {
		return strings.Replace(epic(control, mrn), "|EPIC|HARBORVIEW^", "|EPIC|NORTHCLINIC^", 1)
	}
	cerner := func(control, mrn string) string {
		return visit{Event: "A01", Control: control, MRN: mrn, Unit: "2N", Room: "201", Bed: "B"}.cerner()
	}
	if r := h.ingest(epic("1", "700000001"), epic("2", "700000002")); !slices.Equal(r.outcomes(), []string{"applied", "applied"}) {
		t.Fatalf("first feed: %v", r.outcomes())
	}
	if r := h.ingestTo(north, cerner("1", "800000001"), cerner("2", "800000002")); !slices.Equal(r.outcomes(), []string{"applied", "applied"}) {
		t.Fatalf("second feed, same control ids: %v", r.outcomes())
	}
	if r := h.ingestTo(north, epicClinic("1", "900000001")); r.Results[0].Outcome != "applied" {
		t.Fatalf("same application, other facility: %+v", r.Results[0])
	}
	// Within one body too: the keys of a batch are told apart the same way.
	if r := h.ingestTo(north, cerner("3", "800000003"), epicClinic("3", "900000003")); !slices.Equal(r.outcomes(), []string{"applied", "applied"}) {
		t.Fatalf("one body, two senders: %v", r.outcomes())
	}
	if got := mrns(h.census(h.owner.AccessToken, "")); len(got) != 7 {
		t.Fatalf("census %v", got)
	}
	// Resends are duplicates, per sender; a duplicate within one body as well.
	r := h.ingestTo(north, cerner("2", "800000002"), epicClinic("1", "900000001"), cerner("4", "800000004"), cerner("4", "800000004"))
	if !slices.Equal(r.outcomes(), []string{"duplicate", "duplicate", "applied", "duplicate"}) {
		t.Fatalf("resends: %v", r.outcomes())
	}
	if r := h.ingest(epic("2", "700000002")); r.Results[0].Outcome != "duplicate" || !strings.Contains(r.Results[0].Detail.Reason, "sending application and facility") {
		t.Fatalf("first feed's resend: %+v", r.Results[0])
	}
	// The trail keeps who sent each message.
	if n := count(h.env, `SELECT count(*) FROM hl7_messages WHERE org_id = $1 AND control_id = '1' AND outcome = 'applied'
		AND (sending_application, sending_facility) IN (('EPIC', 'HARBORVIEW'), ('HNAM', 'CERNERHOSP'), ('EPIC', 'NORTHCLINIC'))`, h.orgID); n != 3 {
		t.Fatalf("%d applied trail rows for control id 1 with their senders", n)
	}
}

// TestOversizedFieldRejectsOnlyItsMessage: one message of a batch with a field beyond its bound
// is rejected by the parser with a reason naming the field; the others are applied in the batch
// write (no fallback to message-by-message), and nothing oversized is stored.
func TestOversizedFieldRejectsOnlyItsMessage(t *testing.T) {
	// Not parallel: BatchFallbacks is process-wide (parallel tests wait until this one is done).
	h := newHospital(t)
	huge := strings.Repeat("9", 5000)
	tests := []struct {
		name, field string
		msg         func(v visit) string
	}{
		{"control id", "MSH-10", func(v visit) string { v.Control = huge; return v.epic() }},
		{"MRN", "PID-3 MRN", func(v visit) string { v.MRN = huge; return v.epic() }},
		{"unit", "PV1-3 point of care", func(v visit) string { v.Unit = huge; return v.epic() }},
		{"room", "PV1-3 room", func(v visit) string { v.Room = huge; return v.cerner() }},
		{"bed", "PV1-3 bed", func(v visit) string { v.Bed = huge; return v.epic() }},
		{"family name", "PID-5 family name", func(v visit) string { v.Family = strings.Repeat("Ö", 201); return v.epic() }},
		{"sending facility", "MSH-4", func(v visit) string {
			return strings.Replace(v.epic(), "|HARBORVIEW^", "|"+huge+"^", 1)
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := h.env.With(t)
			const n, bad = 50, 20
			msgs := make([]string, n)
			for k := range n {
				v := visit{Event: "A01", Control: controlID("BIG"+itoa(i), k), MRN: mrnOf(710000000+i*1000, k), Unit: "4W", Room: itoa(k), Bed: "A"}
				msgs[k] = v.epic()
				if k == bad {
					msgs[k] = tt.msg(v)
				}
			}
			before := clinical.BatchFallbacks()
			var r ingestResult
			h.post(h.siteID, strings.Join(msgs, "")).Header("x-api-key", h.key).Do().Expect(http.StatusOK).Decode(&r)
			if clinical.BatchFallbacks() != before {
				t.Fatal("the batch fell back to message-by-message writes")
			}
			for k, res := range r.Results {
				want := "applied"
				if k == bad {
					want = "rejected"
				}
				if res.Outcome != want {
					t.Fatalf("message %d: %s (%s), want %s", k, res.Outcome, res.Detail.Reason, want)
				}
			}
			if reason := r.Results[bad].Detail.Reason; !strings.Contains(reason, tt.field) || !strings.Contains(reason, "at most") {
				t.Fatalf("reason %q", reason)
			}
			if got := count(env, `SELECT count(*) FROM patients WHERE org_id = $1 AND mrn LIKE $2`, h.orgID, itoa(710000+i)+"%"); got != n-1 {
				t.Fatalf("%d patients of this batch", got)
			}
		})
	}
	if n := count(h.env, `SELECT count(*) FROM patients WHERE org_id = $1 AND greatest(length(mrn), length(unit), length(room), length(bed), length(family_name)) > 200`, h.orgID); n != 0 {
		t.Fatalf("%d patients with oversized values", n)
	}
	if n := count(h.env, `SELECT count(*) FROM hl7_messages WHERE org_id = $1 AND outcome IN ('applied', 'skipped') AND length(control_id) > 199`, h.orgID); n != 0 {
		t.Fatalf("%d consumed control ids over the bound", n)
	}
}

// TestUnreadableStoredRecords: a stored document that does not decode into its type fails the
// reads that need it (500, nothing partial shown), and an order message that would change it is
// rejected with a reason and rewrites nothing; a later fix of the row lets everything through.
func TestUnreadableStoredRecords(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	env, tok := h.env, h.owner.AccessToken
	const mrn = "720000001"
	h.ingest(visit{Event: "A01", Control: "UNR-1", MRN: mrn, Unit: "4W", Room: "401", Bed: "A", AL1: []string{al1Peanut}, ODS: []string{odsCarbNa}}.epic())
	p, _ := byMRN(h.census(tok, ""), mrn)
	var signoffID string
	env.Call(http.MethodPost, orgPath(h.orgID, "signoffs")).Token(tok).
		JSON(map[string]any{"patientId": p.ID, "dietOrderId": p.DietOrders[0].ID}).Do().Expect(http.StatusCreated).Decode(&struct {
		ID *string `json:"id"`
	}{&signoffID})
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := env.Pool.Exec(t.Context(), sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	stored := func() string {
		t.Helper()
		var s string
		if err := env.Pool.QueryRow(t.Context(), `SELECT diet_orders::text FROM patients WHERE id = $1`, p.ID).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	reads := []string{orgPath(h.orgID, "census"), orgPath(h.orgID, "patients", p.ID.String())}
	expect500 := func(paths ...string) {
		t.Helper()
		for _, path := range paths {
			res := env.Call(http.MethodGet, path).Token(tok).Do()
			if res.Status != http.StatusInternalServerError || strings.Contains(string(res.Body), mrn) {
				t.Fatalf("GET %s: %d %s", path, res.Status, res.Body)
			}
		}
	}

	// Allergies that are not a list of allergies.
	exec(`UPDATE patients SET allergies = '{"key": "PEANUT"}' WHERE id = $1`, p.ID)
	expect500(reads...)
	exec(`UPDATE patients SET allergies = '[]' WHERE id = $1`, p.ID)

	// Diet orders whose id is not a uuid: the reads fail, and an order message is rejected
	// without touching them.
	corrupt := `[{"id": 5, "type": "D", "codes": []}]`
	exec(`UPDATE patients SET diet_orders = $2 WHERE id = $1`, p.ID, corrupt)
	expect500(reads...)
	r := h.ingest(dietOrderMsg("UNR-2", mrn, false, "ORC|NW|DIET-9|", "ODS|D||REG^Regular Diet^EPICDIET"))
	if res := r.Results[0]; res.Outcome != "rejected" || !strings.Contains(res.Detail.Reason, "stored diet orders cannot be read") {
		t.Fatalf("order on unreadable orders: %+v", res)
	}
	if s := stored(); s != corrupt {
		t.Fatalf("stored orders rewritten: %s", s)
	}
	// The control id was not consumed: once the row is repaired, the resend applies.
	exec(`UPDATE patients SET diet_orders = '[]', diet_orders_hash = 0 WHERE id = $1`, p.ID)
	if r := h.ingest(dietOrderMsg("UNR-2", mrn, false, "ORC|NW|DIET-9|", "ODS|D||REG^Regular Diet^EPICDIET")); r.Results[0].Outcome != "applied" {
		t.Fatalf("resend after the repair: %+v", r.Results[0])
	}
	if got, _ := byMRN(h.census(tok, ""), mrn); !slices.Equal(got.Diets, []string{"regular"}) {
		t.Fatalf("diets %v", got.Diets)
	}

	// A sign-off whose copy of the order cannot be read fails its reads.
	exec(`UPDATE signoffs SET diet_order = '[1, 2]' WHERE id = $1`, signoffID)
	expect500(orgPath(h.orgID, "signoffs", signoffID), orgPath(h.orgID, "signoffs"))
}
