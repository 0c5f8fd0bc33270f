package records_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/records"
)

type alert struct {
	ID       uuid.UUID `json:"id"`
	Kind     string    `json:"kind"`
	Severity string    `json:"severity"`
	Status   string    `json:"status"`
	SiteID   uuid.UUID `json:"siteId"`
	Subject  struct {
		Type string    `json:"type"`
		ID   uuid.UUID `json:"id"`
	} `json:"subject"`
}

func (k *kitchen) sweepCertifications() {
	k.t.Helper()
	if err := records.SweepCertifications(k.t.Context(), k.env.Pool, k.env.Clock.Now()); err != nil {
		k.t.Fatal(err)
	}
}

func (k *kitchen) lapseAlerts() []alert {
	k.t.Helper()
	var open, resolved []alert
	k.call(http.MethodGet, "alerts?status=open", k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&open)
	k.call(http.MethodGet, "alerts?status=resolved", k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&resolved)
	all := append(resolved, open...)
	var out []alert
	for _, a := range all {
		if a.Kind == "certification_lapse" {
			out = append(out, a)
		}
	}
	return out
}

type certification struct {
	ID        uuid.UUID `json:"id"`
	Status    string    `json:"status"`
	ExpiresOn string    `json:"expiresOn"`
}

// The lapse alerts open once 30 days before expiry and once at expiry (critical for a site's
// only food manager), each reaching webhooks as alert.created; the clock is moved, not waited.
func TestCertificationLapseAlerts(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	rcv := k.receiver("alert.created")
	k.env.SetPlan(k.org, "enterprise", nil) // past the trial, webhooks still on the plan
	cook := k.env.Member(k.org, "inspector", k.site)
	now := k.env.Clock.Now()
	day := func(d int) string { return now.AddDate(0, 0, d).Format("2006-01-02") }
	var manager, handler certification
	k.create("certifications", map[string]any{"userId": cook.User.ID, "siteId": k.site, "kind": "food_manager", "issuedOn": day(-700), "expiresOn": day(40)}, &manager)
	k.create("certifications", map[string]any{"userId": cook.User.ID, "siteId": k.site, "kind": "food_handler", "issuedOn": day(-700), "expiresOn": day(400)}, &handler)
	if manager.Status != "valid" {
		t.Fatalf("status %+v", manager)
	}
	k.sweepCertifications()
	if got := k.lapseAlerts(); len(got) != 0 {
		t.Fatalf("alerts 40 days out %+v", got)
	}
	// 30 days before (in Chicago): one info alert, once however often the runner sweeps.
	k.advance(11 * 24 * time.Hour)
	k.sweepCertifications()
	k.sweepCertifications()
	got := k.lapseAlerts()
	if len(got) != 1 || got[0].Severity != "info" || got[0].Subject.ID != manager.ID || got[0].SiteID != k.site {
		t.Fatalf("30-day alerts %+v", got)
	}
	k.call(http.MethodGet, "certifications/"+manager.ID.String(), k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&manager)
	if manager.Status != "expiring" {
		t.Fatalf("status %+v", manager)
	}
	// Resolving it does not bring it back.
	k.call(http.MethodPost, "alerts/"+got[0].ID.String()+"/resolve", k.owner.AccessToken).Do().Expect(http.StatusOK)
	k.sweepCertifications()
	if n := len(k.lapseAlerts()); n != 1 {
		t.Fatalf("%d alerts after resolving", n)
	}
	// At expiry: the site's only food manager lapsed, critical, once.
	k.advance(30 * 24 * time.Hour)
	k.sweepCertifications()
	k.sweepCertifications()
	got = k.lapseAlerts()
	if len(got) != 2 {
		t.Fatalf("alerts at expiry %+v", got)
	}
	var lapsed *alert
	for i := range got {
		if got[i].Status == "open" {
			lapsed = &got[i]
		}
	}
	if lapsed == nil || lapsed.Severity != "critical" || lapsed.Subject.ID != manager.ID {
		t.Fatalf("lapse alert %+v", got)
	}
	d := rcv.deliveries("alert.created") // in any order
	if len(d) == 2 && d[0]["severity"] == "critical" {
		d[0], d[1] = d[1], d[0]
	}
	if len(d) != 2 || d[0]["kind"] != "certification_lapse" || d[0]["severity"] != "info" || d[1]["severity"] != "critical" ||
		d[1]["alertId"] != lapsed.ID.String() || d[1]["siteId"] != k.site.String() {
		t.Fatalf("alert.created %+v", d)
	}
	// Renewed: the open lapse alert closes, and the new date's alerts are due in their time.
	k.call(http.MethodPut, "certifications/"+manager.ID.String(), k.owner.AccessToken).JSON(map[string]any{"userId": cook.User.ID, "siteId": k.site,
		"kind": "food_manager", "issuedOn": day(70), "expiresOn": day(1200)}).Do().Expect(http.StatusOK).Decode(&manager)
	if manager.Status != "valid" {
		t.Fatalf("renewed %+v", manager)
	}
	for _, a := range k.lapseAlerts() {
		if a.Status == "open" {
			t.Fatalf("alert still open after renewal %+v", a)
		}
	}
}

func TestALapseWithAnotherFoodManagerIsAWarning(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	a := k.env.Member(k.org, "inspector", k.site)
	b := k.env.Member(k.org, "manager", k.site)
	now := k.env.Clock.Now()
	day := func(d int) string { return now.AddDate(0, 0, d).Format("2006-01-02") }
	var c certification
	k.create("certifications", map[string]any{"userId": a.User.ID, "siteId": k.site, "kind": "food_manager", "issuedOn": day(-700), "expiresOn": day(-1)}, &c)
	k.create("certifications", map[string]any{"userId": b.User.ID, "siteId": k.site, "kind": "food_manager", "issuedOn": day(-700), "expiresOn": day(500)}, &certification{})
	k.sweepCertifications()
	got := k.lapseAlerts()
	// Already lapsed when recorded: the lapse alert only, not the 30-day one.
	if len(got) != 1 || got[0].Severity != "warning" || got[0].Subject.ID != c.ID {
		t.Fatalf("alerts %+v", got)
	}
	// Refusals: a member without the site, dates in the wrong order.
	pastry := k.env.Site(k.owner.AccessToken, k.org, "Pastry")
	other := k.env.Member(k.org, "inspector", pastry)
	k.call(http.MethodPost, "certifications", k.owner.AccessToken).JSON(map[string]any{"userId": other.User.ID, "siteId": k.site, "kind": "allergen",
		"issuedOn": day(0), "expiresOn": day(10)}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	k.call(http.MethodPost, "certifications", k.owner.AccessToken).JSON(map[string]any{"userId": a.User.ID, "siteId": k.site, "kind": "allergen",
		"issuedOn": day(10), "expiresOn": day(0)}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	k.call(http.MethodGet, "certifications/"+c.ID.String(), other.AccessToken).Do().ExpectError(http.StatusNotFound, "Certification not found")
}

// Replicas sweeping at once open each alert once.
func TestParallelLapseSweeps(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	cook := k.env.Member(k.org, "inspector", k.site)
	now := k.env.Clock.Now()
	for i := range 5 {
		k.create("certifications", map[string]any{"userId": cook.User.ID, "siteId": k.site, "kind": "allergen",
			"issuedOn": now.AddDate(-1, 0, 0).Format("2006-01-02"), "expiresOn": now.AddDate(0, 0, 10+i).Format("2006-01-02")}, &certification{})
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = records.SweepCertifications(t.Context(), k.env.Pool, k.env.Clock.Now())
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := k.lapseAlerts(); len(got) != 5 {
		t.Fatalf("%d alerts for 5 certifications: %+v", len(got), got)
	}
}
