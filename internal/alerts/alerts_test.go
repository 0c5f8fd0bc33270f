package alerts_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/periodic"
)

type alert struct {
	ID       uuid.UUID `json:"id"`
	SiteID   uuid.UUID `json:"siteId"`
	Kind     string    `json:"kind"`
	Severity string    `json:"severity"`
	Message  string    `json:"message"`
	Subject  struct {
		Type string    `json:"type"`
		ID   uuid.UUID `json:"id"`
	} `json:"subject"`
	Status     string     `json:"status"`
	OpenedAt   time.Time  `json:"openedAt"`
	ResolvedAt *time.Time `json:"resolvedAt"`
	ResolvedBy *uuid.UUID `json:"resolvedBy"`
}

type stateAlert struct {
	Kind     string `json:"kind"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// kitchen is an organization with a site, a paired sensor gateway and a kitchen wallboard there.
type kitchen struct {
	env            *apitest.Env
	owner          apitest.Session
	org, site      uuid.UUID
	gateway        uuid.UUID
	gatewayToken   string
	wallboardToken string
	sensors        periodic.Task
}

func newKitchen(t *testing.T) *kitchen {
	env := apitest.New(t)
	owner, org := env.NewOwner("Harborview Kitchens")
	site := env.Site(owner.AccessToken, org, "Main Kitchen")
	gw, gwToken := env.PairDevice(owner.AccessToken, org, site, "sensor_gateway")
	_, wbToken := env.PairDevice(owner.AccessToken, org, site, "wallboard_boh")
	return &kitchen{
		env: env, owner: owner, org: org, site: site, gateway: gw, gatewayToken: gwToken, wallboardToken: wbToken,
		sensors: alerts.SensorTask(env.Pool, env.Clock),
	}
}

// advance moves the clock on and signs the owner in again, as access tokens last 15 minutes.
func (k *kitchen) advance(d time.Duration) {
	k.env.T.Helper()
	k.env.Clock.Advance(d)
	k.owner = k.env.SignIn(k.owner.User.Email)
}

func (k *kitchen) sweep() {
	k.env.T.Helper()
	if err := k.sensors.Run(k.env.T.Context()); err != nil {
		k.env.T.Fatal(err)
	}
}

func (k *kitchen) list(token, query string) []alert {
	k.env.T.Helper()
	var out []alert
	k.env.Call(http.MethodGet, "orgs/"+k.org.String()+"/alerts"+query).Token(token).Do().Expect(http.StatusOK).Decode(&out)
	return out
}

// wallboard returns the wallboard's alerts and its state's ETag.
func (k *kitchen) wallboard() ([]stateAlert, string) {
	k.env.T.Helper()
	var s struct {
		Alerts []stateAlert `json:"alerts"`
	}
	res := k.env.Call(http.MethodGet, "device/state").DeviceToken(k.wallboardToken).Do().Expect(http.StatusOK).Decode(&s)
	return s.Alerts, res.Header.Get("ETag")
}

func (k *kitchen) events() []map[string]any {
	k.env.T.Helper()
	rows, err := k.env.Pool.Query(k.env.T.Context(), `SELECT data FROM events WHERE org_id = $1 AND name = 'alert.created' ORDER BY at`, k.org)
	if err != nil {
		k.env.T.Fatal(err)
	}
	defer rows.Close()
	var out []map[string]any
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			k.env.T.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			k.env.T.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func TestASilentSensorGatewayOpensOneAlertUntilItSpeaks(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	// Heard from now (its first request), then silent just under the limit: nothing.
	k.env.Call(http.MethodGet, "device/state").DeviceToken(k.gatewayToken).Do().Expect(http.StatusOK)
	_, quietETag := k.wallboard()
	k.advance(alerts.SensorSilence - time.Minute)
	k.sweep()
	if got := k.list(k.owner.AccessToken, ""); len(got) != 0 {
		t.Fatalf("alerts before the silence limit: %+v", got)
	}

	k.advance(2 * time.Minute)
	k.sweep()
	k.sweep() // a second sweep (or replica) does not open it twice
	open := k.list(k.owner.AccessToken, "")
	if len(open) != 1 {
		t.Fatalf("open alerts: %+v", open)
	}
	a := open[0]
	if a.Kind != "sensor_offline" || a.Severity != "warning" || a.SiteID != k.site || a.Subject.Type != "device" ||
		a.Subject.ID != k.gateway || a.Status != "open" || a.ResolvedAt != nil || !strings.Contains(a.Message, "has not been heard from since") {
		t.Fatalf("alert %+v", a)
	}
	if ev := k.events(); len(ev) != 1 || ev[0]["alertId"] != a.ID.String() || ev[0]["siteId"] != k.site.String() ||
		ev[0]["kind"] != "sensor_offline" || ev[0]["severity"] != "warning" {
		t.Fatalf("alert.created events %+v", ev)
	}
	shown, etag := k.wallboard()
	if len(shown) != 1 || shown[0] != (stateAlert{Kind: "sensor_offline", Severity: "warning", Message: a.Message}) || etag == quietETag {
		t.Fatalf("wallboard shows %+v (etag %s, before %s)", shown, etag, quietETag)
	}

	// The gateway speaks again: the next sweep closes the alert by itself.
	k.env.Call(http.MethodGet, "device/state").DeviceToken(k.gatewayToken).Do().Expect(http.StatusOK)
	k.sweep()
	if got := k.list(k.owner.AccessToken, ""); len(got) != 0 {
		t.Fatalf("still open: %+v", got)
	}
	closed := k.list(k.owner.AccessToken, "?status=resolved")
	if len(closed) != 1 || closed[0].Status != "resolved" || closed[0].ResolvedAt == nil || closed[0].ResolvedBy != nil {
		t.Fatalf("resolved alerts %+v", closed)
	}
	if shown, _ := k.wallboard(); len(shown) != 0 {
		t.Fatalf("wallboard still shows %+v", shown)
	}

	// Silent again later: a new alert, and a new event.
	k.advance(alerts.SensorSilence + time.Minute)
	k.sweep()
	if got := k.list(k.owner.AccessToken, ""); len(got) != 1 || got[0].ID == a.ID {
		t.Fatalf("second outage: %+v", got)
	}
	if n := len(k.events()); n != 2 {
		t.Fatalf("%d alert.created events", n)
	}
}

func TestUnpairingAGatewayClosesItsAlert(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	k.advance(alerts.SensorSilence + time.Minute)
	k.sweep()
	if got := k.list(k.owner.AccessToken, ""); len(got) != 1 {
		t.Fatalf("open alerts: %+v", got)
	}
	k.env.Call(http.MethodPost, "orgs/"+k.org.String()+"/devices/"+k.gateway.String()+"/revoke").Token(k.owner.AccessToken).Do().Expect(http.StatusOK)
	k.sweep()
	if got := k.list(k.owner.AccessToken, ""); len(got) != 0 {
		t.Fatalf("alert of an unpaired gateway still open: %+v", got)
	}
}

func TestResolvingAnAlert(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	north := k.env.Site(k.owner.AccessToken, k.org, "North")
	k.advance(alerts.SensorSilence + time.Minute)
	k.sweep()
	a := k.list(k.owner.AccessToken, "")[0]
	path := "orgs/" + k.org.String() + "/alerts/" + a.ID.String() + "/resolve"

	viewer := k.env.Member(k.org, "viewer")
	elsewhere := k.env.Member(k.org, "manager", north)
	stranger, _ := k.env.NewOwner("Other Kitchens")
	cook := k.env.Member(k.org, "inspector")

	// Who sees it: any member of its site; not a member limited to another site.
	if got := k.list(viewer.AccessToken, ""); len(got) != 1 {
		t.Fatalf("viewer lists %+v", got)
	}
	if got := k.list(elsewhere.AccessToken, ""); len(got) != 0 {
		t.Fatalf("member of another site lists %+v", got)
	}
	k.env.Call(http.MethodGet, "orgs/"+k.org.String()+"/alerts?siteId="+k.site.String()).Token(elsewhere.AccessToken).Do().Expect(http.StatusNotFound)

	cases := []struct {
		name   string
		token  string
		status int
	}{
		{"viewer", viewer.AccessToken, http.StatusForbidden},
		{"member of another site", elsewhere.AccessToken, http.StatusNotFound},
		{"another organization", stranger.AccessToken, http.StatusNotFound},
		{"no session", "", http.StatusUnauthorized},
	}
	for _, tc := range cases {
		if res := k.env.Call(http.MethodPost, path).Token(tc.token).Do(); res.Status != tc.status {
			t.Errorf("%s: %d, want %d: %s", tc.name, res.Status, tc.status, res.Body)
		}
	}
	k.env.Call(http.MethodPost, "orgs/"+k.org.String()+"/alerts/"+uuid.Must(uuid.NewV7()).String()+"/resolve").
		Token(k.owner.AccessToken).Do().ExpectError(http.StatusNotFound, "Alert not found")
	if got := k.list(k.owner.AccessToken, ""); len(got) != 1 {
		t.Fatalf("refused resolutions changed it: %+v", got)
	}

	var resolved alert
	k.env.Call(http.MethodPost, path).Token(cook.AccessToken).Do().Expect(http.StatusOK).Decode(&resolved)
	if resolved.Status != "resolved" || resolved.ResolvedBy == nil || *resolved.ResolvedBy != cook.User.ID || resolved.ResolvedAt == nil {
		t.Fatalf("resolved %+v", resolved)
	}
	if shown, _ := k.wallboard(); len(shown) != 0 {
		t.Fatalf("wallboard still shows %+v", shown)
	}
	// Again: nothing changes.
	var again alert
	k.env.Call(http.MethodPost, path).Token(k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&again)
	if *again.ResolvedBy != cook.User.ID || !again.ResolvedAt.Equal(*resolved.ResolvedAt) {
		t.Fatalf("resolved again %+v", again)
	}
	// The same silence is not reported again once someone has dealt with it...
	k.sweep()
	if got := k.list(k.owner.AccessToken, ""); len(got) != 0 {
		t.Fatalf("reopened for the same silence: %+v", got)
	}
	// ...but a new one is.
	k.env.Call(http.MethodGet, "device/state").DeviceToken(k.gatewayToken).Do().Expect(http.StatusOK)
	k.advance(alerts.SensorSilence + time.Minute)
	k.sweep()
	if got := k.list(k.owner.AccessToken, ""); len(got) != 1 || got[0].ID == a.ID {
		t.Fatalf("after a new silence: %+v", got)
	}
}

func TestAlertsPage(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	for range 2 {
		k.env.PairDevice(k.owner.AccessToken, k.org, k.site, "sensor_gateway")
	}
	k.advance(alerts.SensorSilence + time.Minute)
	k.sweep()
	first := k.env.Call(http.MethodGet, "orgs/"+k.org.String()+"/alerts?limit=2").Token(k.owner.AccessToken).Do().Expect(http.StatusOK)
	var page []alert
	first.Decode(&page)
	link := first.Header.Get("Link")
	if len(page) != 2 || !strings.Contains(link, `rel="next"`) {
		t.Fatalf("first page %d, link %q", len(page), link)
	}
	next := link[strings.Index(link, "/v1/")+4 : strings.Index(link, ">")]
	var rest []alert
	k.env.Call(http.MethodGet, next).Token(k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&rest)
	if len(rest) != 1 || rest[0].ID == page[0].ID || rest[0].ID == page[1].ID {
		t.Fatalf("second page %+v", rest)
	}
	k.env.Call(http.MethodGet, "orgs/"+k.org.String()+"/alerts?cursor=nonsense").Token(k.owner.AccessToken).Do().ExpectError(http.StatusBadRequest, "cursor")
}

// Opening and resolving an alert hint the site's screens on their sockets.
func TestAlertChangesHintTheSiteScreens(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	k.advance(alerts.SensorSilence + time.Minute)
	select {
	case <-k.env.Hub.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("realtime hub not listening")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(k.env.URL, "http")+"/v1/board/ws?token="+k.wallboardToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	frame := func(what string) {
		t.Helper()
		if _, _, err := conn.Read(ctx); err != nil {
			t.Fatalf("%s: no frame: %v", what, err)
		}
	}
	k.sweep()
	frame("alert opened")
	a := k.list(k.owner.AccessToken, "")[0]
	k.env.Call(http.MethodPost, "orgs/"+k.org.String()+"/alerts/"+a.ID.String()+"/resolve").Token(k.owner.AccessToken).Do().Expect(http.StatusOK)
	frame("alert resolved")
}
