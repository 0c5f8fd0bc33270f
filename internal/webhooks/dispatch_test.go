package webhooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/events"
	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/webhooks"
	"github.com/sous-app/sous/internal/webhooks/delivery"
)

func TestDeliveryIsSignedAndShapedAsTheSpecSays(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, allowPrivate)
	owner, orgID := env.NewOwner("Harborview")
	rcv := newReceiver(t, http.StatusNoContent)
	sub := subscribe(env, owner.AccessToken, orgID, rcv.URL+"/hooks/sous", "alert.created")

	alertID, siteID := uuid.New(), uuid.New()
	eventID := publish(t, env, orgID, events.AlertCreated, map[string]any{
		"alertId": alertID, "siteId": siteID, "kind": "temperature_excursion", "severity": "warning",
	})
	if len(rcv.all()) != 0 {
		t.Fatal("delivered before any dispatcher ran")
	}
	env.DrainWebhooks()

	hits := rcv.all()
	if len(hits) != 1 {
		t.Fatalf("%d deliveries", len(hits))
	}
	h := hits[0]
	if h.Method != http.MethodPost || h.Path != "/hooks/sous" {
		t.Fatalf("%s %s", h.Method, h.Path)
	}
	if ct := h.Header.Get("content-type"); ct != "application/json" {
		t.Errorf("content-type %q", ct)
	}
	if ev := h.Header.Get("x-service-event"); ev != "alert.created" {
		t.Errorf("x-service-event %q", ev)
	}
	sig := h.Header.Get("x-service-signature")
	if sig != strings.ToLower(sig) || len(sig) != 64 || !verify(sub.Secret, h.Body, sig) {
		t.Errorf("signature %q does not verify over the raw body", sig)
	}
	if verify("whsec_someone-else", h.Body, sig) {
		t.Error("the signature verifies with another secret")
	}
	want := fmt.Sprintf(`{"id":"%s","event":"alert.created","orgId":"%s","at":"2026-03-02T09:00:00Z","data":`, eventID, orgID)
	if !strings.HasPrefix(string(h.Body), want) {
		t.Errorf("body %s\nwant prefix %s", h.Body, want)
	}
	env1 := h.envelope(t)
	var data map[string]any
	_ = json.Unmarshal(env1.Data, &data)
	if data["alertId"] != alertID.String() || data["siteId"] != siteID.String() || data["kind"] != "temperature_excursion" || data["severity"] != "warning" || len(data) != 4 {
		t.Errorf("data %s", env1.Data)
	}
	var keys []string
	dec := json.NewDecoder(strings.NewReader(string(h.Body)))
	_, _ = dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		_ = dec.Decode(&skip)
	}
	if strings.Join(keys, ",") != "id,event,orgId,at,data" {
		t.Errorf("keys %v", keys)
	}

	s := subscription(env, owner.AccessToken, orgID, sub.ID)
	if s.LastStatus == nil || *s.LastStatus != 204 || s.LastDeliveryAt == nil || !s.LastDeliveryAt.Equal(apitest.Epoch) || s.FailureCount != 0 {
		t.Fatalf("after delivery %+v", s)
	}
	ds := deliveries(env, owner.AccessToken, orgID, sub.ID)
	if len(ds) != 1 || ds[0].EventID != eventID || ds[0].Event != "alert.created" || ds[0].State != "delivered" ||
		ds[0].Status == nil || *ds[0].Status != 204 || ds[0].DurationMs == nil || ds[0].Error != nil || ds[0].AttemptedAt == nil {
		t.Fatalf("deliveries %+v", ds)
	}

	// Nothing is sent twice.
	env.DrainWebhooks()
	if len(rcv.all()) != 1 {
		t.Fatal("a second drain delivered again")
	}
}

func TestFailuresAreRecordedAndASuccessResetsTheCount(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, allowPrivate)
	owner, orgID := env.NewOwner("Harborview")
	rcv := newReceiver(t, http.StatusInternalServerError)
	failing := subscribe(env, owner.AccessToken, orgID, rcv.URL, "*")
	unreachable := subscribe(env, owner.AccessToken, orgID, closedURL(t), "*")

	publish(t, env, orgID, events.PolicyPublished, map[string]any{"policyId": uuid.New(), "version": 1})
	env.DrainWebhooks()
	s := subscription(env, owner.AccessToken, orgID, failing.ID)
	if s.LastStatus == nil || *s.LastStatus != 500 || s.FailureCount != 1 || s.LastDeliveryAt == nil {
		t.Fatalf("after a 500: %+v", s)
	}
	u := subscription(env, owner.AccessToken, orgID, unreachable.ID)
	if u.LastStatus == nil || *u.LastStatus != 0 || u.FailureCount != 1 || u.LastDeliveryAt == nil {
		t.Fatalf("unreachable: %+v", u)
	}
	ds := deliveries(env, owner.AccessToken, orgID, unreachable.ID)
	if len(ds) != 1 || ds[0].State != "failed" || *ds[0].Status != 0 || ds[0].Error == nil || *ds[0].Error != "connection refused" {
		t.Fatalf("unreachable deliveries %+v", ds)
	}
	if ds := deliveries(env, owner.AccessToken, orgID, failing.ID); ds[0].State != "failed" || *ds[0].Error != "receiver responded 500" {
		t.Fatalf("failing deliveries %+v", ds)
	}

	env.Clock.Advance(time.Minute)
	publish(t, env, orgID, events.PolicyPublished, map[string]any{"policyId": uuid.New(), "version": 2})
	env.DrainWebhooks()
	if s := subscription(env, owner.AccessToken, orgID, failing.ID); s.FailureCount != 2 || !s.LastDeliveryAt.Equal(apitest.Epoch.Add(time.Minute)) {
		t.Fatalf("after two failures: %+v", s)
	}

	rcv.status.Store(http.StatusAccepted)
	env.Clock.Advance(time.Minute)
	publish(t, env, orgID, events.PolicyPublished, map[string]any{"policyId": uuid.New(), "version": 3})
	env.DrainWebhooks()
	if s := subscription(env, owner.AccessToken, orgID, failing.ID); s.FailureCount != 0 || *s.LastStatus != 202 {
		t.Fatalf("after a success: %+v", s)
	}
	if u := subscription(env, owner.AccessToken, orgID, unreachable.ID); u.FailureCount != 3 || *u.LastStatus != 0 {
		t.Fatalf("still unreachable: %+v", u)
	}
	if n := len(rcv.all()); n != 3 {
		t.Fatalf("receiver saw %d requests; deliveries are never retried", n)
	}
}

func TestSubscriptionsGetTheEventsTheyAskedFor(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, allowPrivate)
	owner, orgID := env.NewOwner("Harborview")
	otherOwner, otherOrg := env.NewOwner("Elsewhere")
	alerts, all, signoffs, paused, elsewhere := newReceiver(t, 200), newReceiver(t, 200), newReceiver(t, 200), newReceiver(t, 200), newReceiver(t, 200)
	subscribe(env, owner.AccessToken, orgID, alerts.URL, "alert.created", "tray.delivered")
	subscribe(env, owner.AccessToken, orgID, all.URL, "*")
	subscribe(env, owner.AccessToken, orgID, signoffs.URL, "signoff.decided")
	p := subscribe(env, owner.AccessToken, orgID, paused.URL, "*")
	env.Call(http.MethodPatch, hooksPath(orgID, p.ID.String())).Token(owner.AccessToken).JSON(`{"active":false}`).Do().Expect(http.StatusOK)
	subscribe(env, otherOwner.AccessToken, otherOrg, elsewhere.URL, "*")

	publish(t, env, orgID, events.AlertCreated, map[string]any{"alertId": uuid.New(), "siteId": nil, "kind": "sensor_offline", "severity": "critical"})
	publish(t, env, orgID, events.ReportPublished, map[string]any{"reportId": uuid.New(), "scope": "account", "siteId": nil})
	env.DrainWebhooks()

	names := func(r *receiver) string {
		var out []string
		for _, h := range r.all() {
			out = append(out, h.Header.Get("x-service-event"))
		}
		return strings.Join(out, ",")
	}
	if got := names(alerts); got != "alert.created" {
		t.Errorf("named filter got %q", got)
	}
	if got := names(all); got != "alert.created,report.published" && got != "report.published,alert.created" {
		t.Errorf("* got %q", got)
	}
	if got := names(signoffs); got != "" {
		t.Errorf("signoff filter got %q", got)
	}
	if got := names(paused); got != "" {
		t.Errorf("paused subscription got %q", got)
	}
	if got := names(elsewhere); got != "" {
		t.Errorf("another organization's subscription got %q", got)
	}
	for _, h := range all.all() {
		if e := h.envelope(t); e.OrgID != orgID.String() {
			t.Errorf("orgId %s", e.OrgID)
		}
	}

	// Resuming does not deliver what happened while paused.
	env.Call(http.MethodPatch, hooksPath(orgID, p.ID.String())).Token(owner.AccessToken).JSON(`{"active":true}`).Do().Expect(http.StatusOK)
	env.DrainWebhooks()
	if got := names(paused); got != "" {
		t.Errorf("resumed subscription got %q", got)
	}
}

func TestAnEventOfARolledBackChangeIsNeverDelivered(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, allowPrivate)
	owner, orgID := env.NewOwner("Harborview")
	rcv := newReceiver(t, 200)
	subscribe(env, owner.AccessToken, orgID, rcv.URL, "*")

	failed := errors.New("the change failed")
	err := pg.InQueries(t.Context(), env.Pool, func(q *db.Queries) error {
		if _, err := events.Publish(t.Context(), q, orgID, events.TrayDelivered, env.Clock.Now(), map[string]any{"ticketId": uuid.New(), "siteId": uuid.New(), "patientId": uuid.New(), "dayPart": "lunch", "date": "2026-03-02"}); err != nil {
			return err
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatal(err)
	}
	env.DrainWebhooks()
	var nEvents, nDeliveries int
	if err := env.Pool.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM webhook_deliveries)`).Scan(&nEvents, &nDeliveries); err != nil {
		t.Fatal(err)
	}
	if nEvents != 0 || nDeliveries != 0 || len(rcv.all()) != 0 {
		t.Fatalf("%d events, %d deliveries, %d requests after a rollback", nEvents, nDeliveries, len(rcv.all()))
	}
}

// Two replicas' dispatchers share one database: each event reaches each subscription once.
func TestTwoDispatchersNeverDeliverAnEventTwice(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, allowPrivate)
	owner, orgID := env.NewOwner("Harborview")
	rcvs := []*receiver{newReceiver(t, 200), newReceiver(t, 200), newReceiver(t, 500)}
	for _, r := range rcvs {
		subscribe(env, owner.AccessToken, orgID, r.URL, "*")
	}
	const n = 60
	want := map[string]bool{}
	for range n {
		id := publish(t, env, orgID, events.AlertCreated, map[string]any{"alertId": uuid.New(), "siteId": nil, "kind": "lot_expiring", "severity": "info"})
		want[id.String()] = true
	}

	a, b := env.Dispatcher(), env.Dispatcher()
	var wg sync.WaitGroup
	for _, d := range []interface{ Drain(context.Context) error }{a, b, a, b} {
		wg.Go(func() {
			if err := d.Drain(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()

	for i, r := range rcvs {
		seen := map[string]int{}
		for _, h := range r.all() {
			var d struct {
				AlertID string `json:"alertId"`
			}
			_ = json.Unmarshal(h.envelope(t).Data, &d)
			seen[d.AlertID]++
			if seen[d.AlertID] > 1 {
				t.Errorf("receiver %d got alert %s twice", i, d.AlertID)
			}
		}
		if len(seen) != n {
			t.Errorf("receiver %d got %d distinct events, want %d", i, len(seen), n)
		}
	}
	var queued, unfinished int
	if err := env.Pool.QueryRow(t.Context(), `SELECT count(*) FILTER (WHERE attempted_at IS NULL), count(*) FILTER (WHERE finished_at IS NULL) FROM webhook_deliveries`).Scan(&queued, &unfinished); err != nil {
		t.Fatal(err)
	}
	if queued != 0 || unfinished != 0 {
		t.Fatalf("%d queued, %d unfinished deliveries left", queued, unfinished)
	}
	var failures int
	if err := env.Pool.QueryRow(t.Context(), `SELECT failure_count FROM webhook_subscriptions WHERE url = $1`, rcvs[2].URL).Scan(&failures); err != nil || failures != n {
		t.Fatalf("failure count %d, want %d (%v)", failures, n, err)
	}
}

func TestTestDeliveryIgnoresTheFilter(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, allowPrivate)
	owner, orgID := env.NewOwner("Harborview")
	rcv := newReceiver(t, http.StatusOK)
	sub := subscribe(env, owner.AccessToken, orgID, rcv.URL, "signoff.decided")

	var a attempt
	env.Call(http.MethodPost, hooksPath(orgID, sub.ID.String(), "test")).Token(owner.AccessToken).Do().Expect(http.StatusOK).Decode(&a)
	if a.Event != "webhook.test" || a.State != "delivered" || a.Status == nil || *a.Status != 200 || a.Error != nil {
		t.Fatalf("attempt %+v", a)
	}
	hits := rcv.all() // synchronous: the receiver has it when the call returns
	if len(hits) != 1 || hits[0].Header.Get("x-service-event") != "webhook.test" || !verify(sub.Secret, hits[0].Body, hits[0].Header.Get("x-service-signature")) {
		t.Fatalf("receiver got %+v", hits)
	}
	if e := hits[0].envelope(t); string(e.Data) != fmt.Sprintf(`{"subscriptionId":"%s"}`, sub.ID) || e.Event != "webhook.test" {
		t.Fatalf("test envelope %+v", e)
	}
	if s := subscription(env, owner.AccessToken, orgID, sub.ID); *s.LastStatus != 200 || s.FailureCount != 0 {
		t.Fatalf("subscription %+v", s)
	}
	if ds := deliveries(env, owner.AccessToken, orgID, sub.ID); len(ds) != 1 || ds[0].ID != a.ID {
		t.Fatalf("deliveries %+v", ds)
	}
	// Other subscriptions, "*" included, never see a test event; draining sends nothing more.
	other := newReceiver(t, 200)
	subscribe(env, owner.AccessToken, orgID, other.URL, "*")
	env.Call(http.MethodPost, hooksPath(orgID, sub.ID.String(), "test")).Token(owner.AccessToken).Do().Expect(http.StatusOK)
	env.DrainWebhooks()
	if len(other.all()) != 0 || len(rcv.all()) != 2 {
		t.Fatalf("other %d, tested %d", len(other.all()), len(rcv.all()))
	}

	// A failure is reported in the body, and counted; a paused subscription can still be tested.
	rcv.status.Store(http.StatusServiceUnavailable)
	env.Call(http.MethodPatch, hooksPath(orgID, sub.ID.String())).Token(owner.AccessToken).JSON(`{"active":false}`).Do().Expect(http.StatusOK)
	env.Call(http.MethodPost, hooksPath(orgID, sub.ID.String(), "test")).Token(owner.AccessToken).Do().Expect(http.StatusOK).Decode(&a)
	if a.State != "failed" || *a.Status != 503 || *a.Error != "receiver responded 503" {
		t.Fatalf("failed attempt %+v", a)
	}
	if s := subscription(env, owner.AccessToken, orgID, sub.ID); s.FailureCount != 1 || *s.LastStatus != 503 {
		t.Fatalf("subscription %+v", s)
	}
	gone := subscribe(env, owner.AccessToken, orgID, closedURL(t), "*")
	env.Call(http.MethodPost, hooksPath(orgID, gone.ID.String(), "test")).Token(owner.AccessToken).Do().Expect(http.StatusOK).Decode(&a)
	if a.State != "failed" || *a.Status != 0 || *a.Error != "connection refused" {
		t.Fatalf("unreachable attempt %+v", a)
	}
	var audited int
	if err := env.Pool.QueryRow(t.Context(), `SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'testWebhook'`, orgID).Scan(&audited); err != nil || audited != 4 {
		t.Fatalf("%d audit rows", audited)
	}
}

func TestNoDeliveriesWhenThePlanLacksWebhooks(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, allowPrivate)
	owner, orgID := env.NewOwner("Harborview")
	rcv := newReceiver(t, 200)
	subscribe(env, owner.AccessToken, orgID, rcv.URL, "*")

	env.Clock.Advance(31 * 24 * time.Hour) // the trial ended
	publish(t, env, orgID, events.AlertCreated, map[string]any{"alertId": uuid.New(), "siteId": nil, "kind": "task_missed", "severity": "warning"})
	env.DrainWebhooks()
	if len(rcv.all()) != 0 {
		t.Fatal("delivered on the free plan")
	}
	env.SetPlan(orgID, "enterprise", nil)
	publish(t, env, orgID, events.AlertCreated, map[string]any{"alertId": uuid.New(), "siteId": nil, "kind": "task_missed", "severity": "warning"})
	env.DrainWebhooks()
	if len(rcv.all()) != 1 {
		t.Fatalf("%d deliveries after upgrading", len(rcv.all()))
	}
}

func TestRemovingASubscriptionDropsItsQueue(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, allowPrivate)
	owner, orgID := env.NewOwner("Harborview")
	rcv := newReceiver(t, 200)
	sub := subscribe(env, owner.AccessToken, orgID, rcv.URL, "*")
	publish(t, env, orgID, events.EngagementFinalized, map[string]any{"engagementId": uuid.New()})
	if _, err := env.Dispatcher().DispatchPending(t.Context()); err != nil {
		t.Fatal(err)
	}
	env.Call(http.MethodDelete, hooksPath(orgID, sub.ID.String())).Token(owner.AccessToken).Do().Expect(http.StatusNoContent)
	env.DrainWebhooks()
	if len(rcv.all()) != 0 {
		t.Fatal("delivered to a removed subscription")
	}
}

// A delivery claimed by a process that died is closed by maintenance and never sent.
func TestAnInterruptedDeliveryIsNeverSentAgain(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, allowPrivate)
	owner, orgID := env.NewOwner("Harborview")
	rcv := newReceiver(t, 200)
	sub := subscribe(env, owner.AccessToken, orgID, rcv.URL, "*")
	publish(t, env, orgID, events.WalkthroughSubmitted, map[string]any{"runId": uuid.New(), "walkthroughId": uuid.New(), "siteId": uuid.New()})
	d := env.Dispatcher()
	if _, err := d.DispatchPending(t.Context()); err != nil {
		t.Fatal(err)
	}
	// The crashed replica got as far as the claim.
	if _, err := db.New(env.Pool).ClaimDelivery(t.Context(), env.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	env.DrainWebhooks()
	if ds := deliveries(env, owner.AccessToken, orgID, sub.ID); len(ds) != 1 || ds[0].State != "sending" || len(rcv.all()) != 0 {
		t.Fatalf("deliveries %+v, %d requests", ds, len(rcv.all()))
	}
	env.Clock.Advance(11 * time.Minute)
	if err := d.Maintain(t.Context()); err != nil {
		t.Fatal(err)
	}
	env.DrainWebhooks()
	ds := deliveries(env, owner.AccessToken, orgID, sub.ID)
	if len(ds) != 1 || ds[0].State != "failed" || ds[0].Status != nil || ds[0].Error == nil || !strings.Contains(*ds[0].Error, "stopped") || len(rcv.all()) != 0 {
		t.Fatalf("deliveries %+v, %d requests", ds, len(rcv.all()))
	}

	// Deliveries are kept for 30 days.
	env.Clock.Advance(31 * 24 * time.Hour)
	if err := d.Maintain(t.Context()); err != nil {
		t.Fatal(err)
	}
	env.SetPlan(orgID, "pro", nil) // past the trial
	owner = env.SignIn(owner.User.Email)
	if ds := deliveries(env, owner.AccessToken, orgID, sub.ID); len(ds) != 0 {
		t.Fatalf("deliveries kept past retention: %+v", ds)
	}
}

// Run wakes on the NOTIFY of a committed event; the test waits on the receiver, not on a timer.
func TestRunDeliversWhenAnEventCommits(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, allowPrivate)
	owner, orgID := env.NewOwner("Harborview")
	rcv := newReceiver(t, 200)
	subscribe(env, owner.AccessToken, orgID, rcv.URL, "*")

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- env.Dispatcher().Run(ctx) }()

	for i := range 3 {
		id := uuid.New()
		publish(t, env, orgID, events.SignoffDecided, map[string]any{"signoffId": id, "patientId": uuid.New(), "dietOrderId": uuid.New(), "siteId": uuid.New(), "decision": "approved"})
		select {
		case h := <-rcv.got:
			var d struct {
				SignoffID uuid.UUID `json:"signoffId"`
			}
			_ = json.Unmarshal(h.envelope(t).Data, &d)
			if d.SignoffID != id {
				t.Fatalf("event %d: got signoff %s, want %s", i, d.SignoffID, id)
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("event %d not delivered by the running dispatcher", i)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Run did not stop")
	}
}

// A receiver that does not answer in time is a failed attempt with status 0, recorded like an
// unreachable one and not retried. The 8-second limit is delivery.DefaultTimeout; the test
// injects a short one through the dispatcher's client.
func TestASlowReceiverTimesOutWithStatusZero(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, allowPrivate)
	owner, orgID := env.NewOwner("Harborview")
	var calls atomic.Int32
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		select { // answers only when the sender has given up, or the test ends
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) }) // runs first
	sub := subscribe(env, owner.AccessToken, orgID, slow.URL, "*")
	publish(t, env, orgID, events.TrayDelivered, map[string]any{"ticketId": uuid.New(), "siteId": uuid.New(), "patientId": uuid.New(), "dayPart": "lunch", "date": "2026-03-02"})

	const timeout = 150 * time.Millisecond
	d := webhooks.NewDispatcher(webhooks.DispatcherOptions{
		Pool: env.Pool, Clock: env.Clock,
		Client: delivery.New(delivery.Options{AllowPrivate: true, Timeout: timeout}),
	})
	if err := d.Drain(t.Context()); err != nil {
		t.Fatal(err)
	}
	s := subscription(env, owner.AccessToken, orgID, sub.ID)
	if s.LastStatus == nil || *s.LastStatus != 0 || s.FailureCount != 1 || s.LastDeliveryAt == nil {
		t.Fatalf("after a timeout: %+v", s)
	}
	ds := deliveries(env, owner.AccessToken, orgID, sub.ID)
	if len(ds) != 1 || ds[0].State != "failed" || ds[0].Status == nil || *ds[0].Status != 0 ||
		ds[0].Error == nil || *ds[0].Error != "timeout after "+timeout.String() || ds[0].DurationMs == nil || *ds[0].DurationMs < int(timeout.Milliseconds()) {
		t.Fatalf("deliveries %+v", ds)
	}
	if err := d.Drain(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("the receiver was called %d times; a timed-out delivery is not retried", n)
	}
}

// The events table is an outbox: dispatched events (and their deliveries) are pruned after the
// retention period, undispatched ones are kept until they are delivered.
func TestMaintenancePrunesDispatchedEvents(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, allowPrivate)
	owner, orgID := env.NewOwner("Harborview")
	env.SetPlan(orgID, "enterprise", nil)
	rcv := newReceiver(t, 200)
	sub := subscribe(env, owner.AccessToken, orgID, rcv.URL, "*")
	alert := func() uuid.UUID {
		return publish(t, env, orgID, events.AlertCreated, map[string]any{"alertId": uuid.New(), "siteId": nil, "kind": "lot_expiring", "severity": "info"})
	}
	eventIDs := func() map[uuid.UUID]bool {
		rows, err := env.Pool.Query(t.Context(), `SELECT id FROM events WHERE org_id = $1`, orgID)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[uuid.UUID]bool{}
		for rows.Next() {
			var id uuid.UUID
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			out[id] = true
		}
		return out
	}

	old := alert()
	env.DrainWebhooks()
	env.Clock.Advance(20 * 24 * time.Hour)
	recent := alert()
	env.DrainWebhooks()
	pending := alert() // committed, not yet dispatched
	env.Clock.Advance(11 * 24 * time.Hour)
	d := env.Dispatcher()
	if err := d.Maintain(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := eventIDs()
	if got[old] || !got[recent] || !got[pending] || len(got) != 2 {
		t.Fatalf("after maintenance: old %v, recent %v, pending %v (%d events)", got[old], got[recent], got[pending], len(got))
	}
	owner = env.SignIn(owner.User.Email)
	if ds := deliveries(env, owner.AccessToken, orgID, sub.ID); len(ds) != 1 || ds[0].EventID != recent {
		t.Fatalf("deliveries %+v", ds)
	}

	// The kept event is still delivered, and pruned like the others once its time comes.
	env.DrainWebhooks()
	if hits := rcv.all(); len(hits) != 3 {
		t.Fatalf("%d deliveries", len(hits))
	}
	env.Clock.Advance(31 * 24 * time.Hour)
	if err := d.Maintain(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := eventIDs(); len(got) != 0 {
		t.Fatalf("%d events left", len(got))
	}
}
