package clinical_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/clinical"
)

type riskAlert struct {
	ID       uuid.UUID `json:"id"`
	Kind     string    `json:"kind"`
	Severity string    `json:"severity"`
	Message  string    `json:"message"`
	SiteID   uuid.UUID `json:"siteId"`
	Subject  struct {
		Type string    `json:"type"`
		ID   uuid.UUID `json:"id"`
	} `json:"subject"`
	Status string `json:"status"`
}

// adtWithDiet is an ADT message of type (A01, A08…) for MRN 4711 in 4W 412-A with the given ODS
// diet codes ("CODE^Text").
func adtWithDiet(controlID, typ string, diets ...string) string {
	msg := fmt.Sprintf("MSH|^~\\&|EPIC|HMC|SOUS|SOUS|20260302083000||ADT^%s|%s|P|2.5.1\r"+
		"PID|1||4711^^^HMC^MR||DOE^JANE||19800412|F\rPV1|1|I|4W^412^A\r", typ, controlID)
	for _, d := range diets {
		msg += "ODS|D||" + d + "\r"
	}
	return msg
}

func TestNutritionRiskAlerts(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	task := clinical.NutritionRiskTask(h.env.Pool, h.env.Clock)
	sweep := func() {
		t.Helper()
		if err := task.Run(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	advance := func(d time.Duration) {
		h.env.Clock.Advance(d)
		h.owner = h.env.SignIn(h.owner.User.Email)
	}
	open := func() []riskAlert {
		t.Helper()
		var out []riskAlert
		h.env.Call(http.MethodGet, orgPath(h.orgID, "alerts")+"?kind=nutrition_risk").Token(h.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&out)
		return out
	}

	res := h.ingest(adtWithDiet("R-1", "A01", "NPO^Nothing by mouth"))
	patientID := res.Results[0].Detail.PatientID
	advance(clinical.NutritionRiskAfter - time.Hour)
	sweep()
	if got := open(); len(got) != 0 {
		t.Fatalf("alert before the limit: %+v", got)
	}
	// An update restating the same order does not restart the clock.
	h.ingest(adtWithDiet("R-2", "A08", "NPO^Nothing by mouth"))
	advance(2 * time.Hour)
	sweep()
	sweep()
	got := open()
	if len(got) != 1 {
		t.Fatalf("open alerts: %+v", got)
	}
	a := got[0]
	if a.Kind != "nutrition_risk" || a.Severity != "warning" || a.SiteID != h.siteID || a.Subject.Type != "patient" ||
		patientID == nil || a.Subject.ID != *patientID || !strings.Contains(a.Message, "4W 412-A") || strings.Contains(a.Message, "DOE") || strings.Contains(a.Message, "4711") {
		t.Fatalf("alert %+v", a)
	}
	if n := count(h.env, `SELECT count(*) FROM events WHERE org_id = $1 AND name = 'alert.created' AND data->>'kind' = 'nutrition_risk'`, h.orgID); n != 1 {
		t.Fatalf("%d alert.created events", n)
	}

	// Resolved by the dietitian: the same restriction is not reported again.
	h.env.Call(http.MethodPost, orgPath(h.orgID, "alerts", a.ID.String(), "resolve")).Token(h.owner.AccessToken).Do().Expect(http.StatusOK)
	sweep()
	if got := open(); len(got) != 0 {
		t.Fatalf("reopened: %+v", got)
	}

	// A new restriction (clear liquids after a regular diet) is, once it has lasted.
	h.ingest(adtWithDiet("R-3", "A08", "REG^Regular diet"))
	h.ingest(adtWithDiet("R-4", "A08", "CLRLIQ^Clear liquid diet"))
	advance(clinical.NutritionRiskAfter + time.Hour)
	sweep()
	got = open()
	if len(got) != 1 || got[0].ID == a.ID {
		t.Fatalf("second restriction: %+v", got)
	}
	// A fuller diet closes it by itself.
	h.ingest(adtWithDiet("R-5", "A08", "FULLIQ^Full liquid diet"))
	sweep()
	if got := open(); len(got) != 0 {
		t.Fatalf("still open after a full liquid diet: %+v", got)
	}

	// NPO again, then discharged: the alert closes with the stay.
	h.ingest(adtWithDiet("R-6", "A08", "NPO^Nothing by mouth"))
	advance(clinical.NutritionRiskAfter + time.Hour)
	sweep()
	if got := open(); len(got) != 1 {
		t.Fatalf("third restriction: %+v", got)
	}
	h.ingest(adtWithDiet("R-7", "A03"))
	sweep()
	if got := open(); len(got) != 0 {
		t.Fatalf("open after discharge: %+v", got)
	}
}

func TestUnmappedOrSupplementedDietsAreNoRisk(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	task := clinical.NutritionRiskTask(h.env.Pool, h.env.Clock)
	// NPO beside a code nobody has mapped, and clear liquids with a supplement.
	h.ingest(adtWithDiet("U-1", "A01", "NPO^Nothing by mouth", "ZZ9^House special"))
	supplemented := strings.Replace(adtWithDiet("U-2", "A01", "CLRLIQ^Clear liquid diet"), "4711", "4712", 1) + "ODS|S||ENSURE^Ensure Plus\r"
	h.ingest(supplemented)
	h.env.Clock.Advance(clinical.NutritionRiskAfter * 2)
	if err := task.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := count(h.env, `SELECT count(*) FROM alerts WHERE org_id = $1`, h.orgID); n != 0 {
		t.Fatalf("%d alerts", n)
	}
}
