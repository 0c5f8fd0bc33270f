package devices_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// A wallboard's alerts name their subject, so a screen can show the alerts of one subject once:
// two kinds about one sensor carry the same subject, an alert about a task its own. The answer
// is validated against the spec by the test client.
func TestStateAlertsCarryTheirSubject(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	_, boh := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "wallboard_boh")

	probe, task := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
	open := []alerts.Alert{
		{Kind: alerts.KindTemperatureExcursion, Severity: alerts.Critical, Message: "Walk-in probe above 41 °F", SubjectType: "sensor", SubjectID: probe},
		{Kind: alerts.KindSensorFault, Severity: alerts.Warning, Message: "Walk-in probe reads the impossible", SubjectType: "sensor", SubjectID: probe},
		{Kind: alerts.KindTaskMissed, Severity: alerts.Warning, Message: "Walk-in check missed", SubjectType: "task", SubjectID: task},
	}
	ctx := t.Context()
	tx, err := env.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range open {
		a.OrgID, a.SiteID, a.Occurrence = k.orgID, k.siteID, apitest.Epoch
		// Opened a second apart, so the order (most severe, then newest) is fixed.
		if _, err := alerts.Open(ctx, tx, apitest.Epoch.Add(time.Duration(i-3)*time.Second), a); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	want := []struct{ kind, subjectType, subjectID string }{
		{alerts.KindTemperatureExcursion, "sensor", probe.String()},
		{alerts.KindTaskMissed, "task", task.String()},
		{alerts.KindSensorFault, "sensor", probe.String()},
	}
	var s struct {
		Alerts []struct {
			Kind    string `json:"kind"`
			Subject *struct {
				Type string `json:"type"`
				ID   string `json:"id"`
			} `json:"subject"`
		} `json:"alerts"`
	}
	env.Call(http.MethodGet, "device/state").DeviceToken(boh).Do().Expect(http.StatusOK).Decode(&s)
	if len(s.Alerts) != len(want) {
		t.Fatalf("alerts %+v", s.Alerts)
	}
	for i, w := range want {
		a := s.Alerts[i]
		if a.Kind != w.kind || a.Subject == nil || a.Subject.Type != w.subjectType || a.Subject.ID != w.subjectID {
			t.Fatalf("alert %d: %+v, want %+v", i, a, w)
		}
	}
}
