package clinical_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
)

type signoff struct {
	ID           uuid.UUID  `json:"id"`
	SiteID       uuid.UUID  `json:"siteId"`
	PatientID    uuid.UUID  `json:"patientId"`
	MRN          string     `json:"mrn"`
	DietOrderID  uuid.UUID  `json:"dietOrderId"`
	DietOrder    dietOrder  `json:"dietOrder"`
	Status       string     `json:"status"`
	Note         string     `json:"note"`
	SubmittedBy  uuid.UUID  `json:"submittedBy"`
	DecidedBy    *uuid.UUID `json:"decidedBy"`
	DecidedAt    *time.Time `json:"decidedAt"`
	DecisionNote *string    `json:"decisionNote"`
}

func TestDietSignoffNeedsTheRDCredential(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	env := h.env
	h.ingest(visit{Event: "A01", Control: "RD-1", MRN: "130000001", Unit: "4W", Room: "401", Bed: "A", ODS: []string{odsCarbNa}}.epic())
	p, _ := byMRN(h.census(h.owner.AccessToken, ""), "130000001")
	orderID := p.DietOrders[0].ID

	// A diet technician (manager, no rd) submits the order for review.
	dtr := h.member("manager", []string{"dtr"})
	var s signoff
	env.Call(http.MethodPost, orgPath(h.orgID, "signoffs")).Token(dtr.AccessToken).
		JSON(map[string]any{"patientId": p.ID, "dietOrderId": orderID, "note": "Please confirm sodium limit"}).
		Do().Expect(http.StatusCreated).Decode(&s)
	if s.Status != "pending" || s.MRN != "130000001" || s.DietOrderID != orderID || s.DietOrder.ID != orderID || len(s.DietOrder.Diets) != 2 ||
		s.SubmittedBy != dtr.User.ID || s.DecidedBy != nil || s.SiteID != h.siteID {
		t.Fatalf("submitted %+v", s)
	}
	// One pending review per order; unknown patients and orders are 404.
	env.Call(http.MethodPost, orgPath(h.orgID, "signoffs")).Token(dtr.AccessToken).
		JSON(map[string]any{"patientId": p.ID, "dietOrderId": orderID}).Do().ExpectError(http.StatusConflict, "pending")
	env.Call(http.MethodPost, orgPath(h.orgID, "signoffs")).Token(dtr.AccessToken).
		JSON(map[string]any{"patientId": p.ID, "dietOrderId": uuid.New()}).Do().ExpectError(http.StatusNotFound, "Diet order not found")
	env.Call(http.MethodPost, orgPath(h.orgID, "signoffs")).Token(dtr.AccessToken).
		JSON(map[string]any{"patientId": uuid.New(), "dietOrderId": orderID}).Do().ExpectError(http.StatusNotFound, "Patient not found")

	decide := func(token string, body map[string]any) *signoff {
		env.T.Helper()
		var out signoff
		res := env.Call(http.MethodPost, orgPath(h.orgID, "signoffs", s.ID.String(), "decision")).Token(token).JSON(body).Do()
		if res.Status != http.StatusOK {
			return nil
		}
		res.Decode(&out)
		return &out
	}
	approve := map[string]any{"decision": "approved", "note": "2 g sodium confirmed"}

	// Without rd nobody decides, not even the owner.
	for _, who := range []string{"owner", "manager without rd"} {
		tok := map[string]string{"owner": h.owner.AccessToken, "manager without rd": dtr.AccessToken}[who]
		env.Call(http.MethodPost, orgPath(h.orgID, "signoffs", s.ID.String(), "decision")).Token(tok).JSON(approve).
			Do().ExpectError(http.StatusForbidden, "rd")
	}
	// Below manager the role is what refuses.
	rdViewer := h.member("inspector", []string{"rd"})
	env.Call(http.MethodPost, orgPath(h.orgID, "signoffs", s.ID.String(), "decision")).Token(rdViewer.AccessToken).JSON(approve).
		Do().ExpectError(http.StatusForbidden, "manager")
	if n := count(env, `SELECT count(*) FROM events WHERE org_id = $1`, h.orgID); n != 0 {
		t.Fatalf("%d events before any decision", n)
	}

	// The owner grants themselves the credential through the API, and decides.
	env.Call(http.MethodPut, orgPath(h.orgID, "members", h.owner.User.ID.String())).Token(h.owner.AccessToken).
		JSON(map[string]any{"credentials": []string{"rd"}}).Do().Expect(http.StatusOK)
	env.Clock.Advance(5 * time.Minute)
	got := decide(h.owner.AccessToken, approve)
	if got == nil || got.Status != "approved" || got.DecidedBy == nil || *got.DecidedBy != h.owner.User.ID || got.DecisionNote == nil ||
		*got.DecisionNote != "2 g sodium confirmed" || got.DecidedAt == nil || !got.DecidedAt.Equal(env.Clock.Now()) {
		t.Fatalf("decided %+v", got)
	}
	// A decision is final.
	env.Call(http.MethodPost, orgPath(h.orgID, "signoffs", s.ID.String(), "decision")).Token(h.owner.AccessToken).
		JSON(map[string]any{"decision": "rejected"}).Do().ExpectError(http.StatusConflict, "approved")

	// The event was written for webhook delivery, in the decision's transaction.
	var (
		name string
		at   time.Time
		raw  []byte
	)
	if err := env.Pool.QueryRow(t.Context(), `SELECT name, at, data FROM events WHERE org_id = $1`, h.orgID).Scan(&name, &at, &raw); err != nil {
		t.Fatal(err)
	}
	var data map[string]string
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	if name != "signoff.decided" || !at.Equal(env.Clock.Now()) || data["signoffId"] != s.ID.String() || data["patientId"] != p.ID.String() ||
		data["dietOrderId"] != orderID.String() || data["siteId"] != h.siteID.String() || data["decision"] != "approved" {
		t.Fatalf("event %s %s %v", name, at, data)
	}
	if n := count(env, `SELECT count(*) FROM audit_log WHERE org_id = $1 AND action IN ('createSignoff', 'decideSignoff')`, h.orgID); n != 2 {
		t.Fatalf("%d audit rows", n)
	}

	// A dietitian with the manager role rejects a second review; the list filters by status.
	h.ingest(dietOrderMsg("RD-2", "130000001", false, "ORC|NW|DIET-9|", "ODS|S||ENSURE^Ensure Plus TID^EPICDIET"))
	p, _ = byMRN(h.census(h.owner.AccessToken, ""), "130000001")
	var second signoff
	env.Call(http.MethodPost, orgPath(h.orgID, "signoffs")).Token(dtr.AccessToken).
		JSON(map[string]any{"patientId": p.ID, "dietOrderId": p.DietOrders[1].ID}).Do().Expect(http.StatusCreated).Decode(&second)
	rd := h.member("manager", []string{"rd", "cdm"})
	env.Call(http.MethodPost, orgPath(h.orgID, "signoffs", second.ID.String(), "decision")).Token(rd.AccessToken).
		JSON(map[string]any{"decision": "rejected", "note": "Renal patient: switch to Nepro"}).Do().Expect(http.StatusOK)
	var list []signoff
	env.Call(http.MethodGet, orgPath(h.orgID, "signoffs")+"?status=rejected").Token(dtr.AccessToken).Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 1 || list[0].ID != second.ID || list[0].Status != "rejected" {
		t.Fatalf("rejected list %+v", list)
	}
	env.Call(http.MethodGet, orgPath(h.orgID, "signoffs")+"?patientId="+p.ID.String()).Token(dtr.AccessToken).Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 2 || list[0].ID != second.ID {
		t.Fatalf("patient's list %+v", list)
	}
	var one signoff
	env.Call(http.MethodGet, orgPath(h.orgID, "signoffs", s.ID.String())).Token(dtr.AccessToken).Do().Expect(http.StatusOK).Decode(&one)
	if one.Status != "approved" {
		t.Fatalf("read %+v", one)
	}
	if n := count(env, `SELECT count(*) FROM events WHERE org_id = $1 AND name = 'signoff.decided'`, h.orgID); n != 2 {
		t.Fatalf("%d events", n)
	}
}
