package devices_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// dial opens the device WebSocket of env's server with token, once the server's hub listens.
func dial(t *testing.T, env *apitest.Env, token string) *websocket.Conn {
	t.Helper()
	select {
	case <-env.Hub.Ready():
	case <-time.After(patience):
		t.Fatal("realtime hub not listening")
	}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	conn, res, err := websocket.Dial(ctx, wsURL(env, token), nil)
	if err != nil {
		t.Fatalf("dial: %v (response %v)", err, res)
	}
	t.Cleanup(func() { conn.CloseNow() })
	return conn
}

func wsURL(env *apitest.Env, token string) string {
	return "ws" + strings.TrimPrefix(env.URL, "http") + "/v1/board/ws?token=" + token
}

// frame waits (boundedly) for the next frame and checks it is an empty text frame.
func frame(t *testing.T, conn *websocket.Conn, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	typ, data, err := conn.Read(ctx)
	if err != nil {
		t.Fatalf("%s: no frame: %v", what, err)
	}
	if typ != websocket.MessageText || len(data) != 0 {
		t.Fatalf("%s: frame %v %q, want an empty text frame", what, typ, data)
	}
}

// closedWith waits (boundedly) for the server to close the socket and returns the status.
func closedWith(t *testing.T, conn *websocket.Conn) websocket.StatusCode {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	for {
		_, _, err := conn.Read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				t.Fatal("socket not closed")
			}
			return websocket.CloseStatus(err)
		}
	}
}

func TestSocketHintsOnEveryChangeToTheDevice(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	id, token := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "wallboard_boh")
	_, bystander := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "wallboard_boh")
	conn := dial(t, env, token)
	other := dial(t, env, bystander)

	env.Call(http.MethodPost, devicePath(k.orgID, id, "cast")).Token(k.owner.AccessToken).
		JSON(map[string]any{"type": "message", "text": "86 the salmon"}).Do().Expect(http.StatusOK)
	frame(t, conn, "cast")
	if s := getState(env, token); s.Cast == nil || *s.Cast.Text != "86 the salmon" {
		t.Fatalf("state after the hint %+v", s.Cast)
	}
	env.Call(http.MethodPut, devicePath(k.orgID, id)).Token(k.owner.AccessToken).
		JSON(map[string]any{"config": map[string]any{"theme": "light"}}).Do().Expect(http.StatusOK)
	frame(t, conn, "config update")
	env.Call(http.MethodDelete, devicePath(k.orgID, id, "cast")).Token(k.owner.AccessToken).Do().Expect(http.StatusNoContent)
	frame(t, conn, "cast cleared")

	// A refused change sends nothing: the other device has heard nothing all along, and hears
	// its own change first.
	env.Call(http.MethodPost, devicePath(k.orgID, id, "cast")).Token(k.owner.AccessToken).
		JSON(map[string]any{"type": "message"}).Do().Expect(http.StatusBadRequest)
	otherID := getState(env, bystander).Device.ID
	env.Call(http.MethodPost, devicePath(k.orgID, otherID, "cast")).Token(k.owner.AccessToken).
		JSON(map[string]any{"type": "message", "text": "Hi"}).Do().Expect(http.StatusOK)
	frame(t, other, "the other device's own cast")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, _, err := conn.Read(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the first device heard something: %v", err)
	}
}

func TestSocketClosesWith4401WhenTheDeviceIsUnpaired(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	id, token := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "menu_board")
	conn := dial(t, env, token)

	env.Call(http.MethodPost, devicePath(k.orgID, id, "revoke")).Token(k.owner.AccessToken).Do().Expect(http.StatusOK)
	if status := closedWith(t, conn); status != 4401 {
		t.Fatalf("closed with %d, want 4401", status)
	}
	// And it cannot come back with the old token.
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	_, res, err := websocket.Dial(ctx, wsURL(env, token), nil)
	if err == nil || res == nil || res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("dial with a revoked token: %v, %v", err, res)
	}

	// Deleting a device closes its sockets the same way, as does re-pairing it elsewhere.
	id2, token2 := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "menu_board")
	conn2 := dial(t, env, token2)
	claim(env, mintCode(env, k.owner.AccessToken, k.orgID, id2).Code).Expect(http.StatusOK)
	if status := closedWith(t, conn2); status != 4401 {
		t.Fatalf("re-paired: closed with %d", status)
	}
	id3, token3 := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "kiosk")
	conn3 := dial(t, env, token3)
	env.Call(http.MethodDelete, devicePath(k.orgID, id3)).Token(k.owner.AccessToken).Do().Expect(http.StatusNoContent)
	if status := closedWith(t, conn3); status != 4401 {
		t.Fatalf("deleted: closed with %d", status)
	}
}

func TestSocketRefusesBadTokensBeforeUpgrading(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	_, token := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "kiosk")

	for _, tok := range []string{"", "sous_dev_wrong", k.owner.AccessToken} {
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		_, res, err := websocket.Dial(ctx, wsURL(env, tok), nil)
		cancel()
		if err == nil || res == nil || res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("token %q: %v, %v", tok, err, res)
		}
		var body struct {
			Error      string `json:"error"`
			StatusCode int    `json:"statusCode"`
		}
		raw, _ := io.ReadAll(res.Body)
		if json.Unmarshal(raw, &body) != nil || body.StatusCode != 401 || res.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("token %q: body %q", tok, raw)
		}
	}
	// Plain HTTP, documented in the spec: 401 without a token, 400 without an upgrade.
	env.Call(http.MethodGet, "board/ws").Do().ExpectError(http.StatusUnauthorized, "")
	env.Call(http.MethodGet, "board/ws?token="+token).Do().ExpectError(http.StatusBadRequest, "WebSocket upgrade")
	// The header credential is not the WebSocket's.
	env.Call(http.MethodGet, "board/ws").DeviceToken(token).Do().ExpectError(http.StatusUnauthorized, "")
}

// The "done means": a cast made through replica A reaches a screen connected to
// replica B, through PostgreSQL.
func TestCastThroughOneReplicaReachesASocketOnAnother(t *testing.T) {
	t.Parallel()
	a := apitest.New(t)
	b := a.Replica()
	k := newKitchen(a, "Harborview Kitchens")
	id, token := a.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "wallboard_boh")

	conn := dial(t, b, token)
	a.Call(http.MethodPost, devicePath(k.orgID, id, "cast")).Token(k.owner.AccessToken).
		JSON(map[string]any{"type": "message", "text": "Fire table 4"}).Do().Expect(http.StatusOK)
	frame(t, conn, "cast through the other replica")
	if s := getState(b, token); s.Cast == nil || *s.Cast.Text != "Fire table 4" {
		t.Fatalf("state on replica B %+v", s.Cast)
	}
	a.Call(http.MethodPost, devicePath(k.orgID, id, "revoke")).Token(k.owner.AccessToken).Do().Expect(http.StatusOK)
	if status := closedWith(t, conn); status != 4401 {
		t.Fatalf("closed with %d, want 4401", status)
	}
}

// The state shows the organization's brand and the site's name, zone and day parts, so changing
// them hints the organization's devices too.
func TestSocketHintsOnOrganizationAndSiteChanges(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	_, token := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "menu_board")
	conn := dial(t, env, token)

	env.Call(http.MethodPut, orgPath(k.orgID)).Token(k.owner.AccessToken).
		JSON(map[string]any{"brand": map[string]string{"primary": "#0F766E"}}).Do().Expect(http.StatusOK)
	frame(t, conn, "brand change")
	if s := getState(env, token); s.Org.Brand.Primary != "#0F766E" {
		t.Fatalf("brand %+v", s.Org.Brand)
	}
	env.Call(http.MethodPut, orgPath(k.orgID, "sites", k.siteID.String())).Token(k.owner.AccessToken).
		JSON(map[string]any{"timezone": "America/New_York"}).Do().Expect(http.StatusOK)
	frame(t, conn, "site change")
	if s := getState(env, token); s.Site.Timezone != "America/New_York" {
		t.Fatalf("site %+v", s.Site)
	}
}

// Every kind of write that alters what GET /device/state returns (a new ETag) reaches the
// device's socket as a frame.
func TestEveryChangeToTheStateHintsTheSocket(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	bakery := env.Site(k.owner.AccessToken, k.orgID, "Bakery")
	id, token := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "wallboard_boh")
	conn := dial(t, env, token)
	var m media
	upload(env, k.owner.AccessToken, k.orgID, "plating.png", "image/png", onePixelPNG).Expect(http.StatusCreated).Decode(&m)

	owner := k.owner.AccessToken
	steps := []struct {
		what         string
		method, path string
		body         map[string]any
	}{
		{"rename", http.MethodPut, devicePath(k.orgID, id), map[string]any{"name": "Expo"}},
		{"config", http.MethodPut, devicePath(k.orgID, id), map[string]any{"config": map[string]any{"stations": []string{"grill"}}}},
		{"kind", http.MethodPut, devicePath(k.orgID, id), map[string]any{"kind": "menu_board"}},
		{"move to another site", http.MethodPut, devicePath(k.orgID, id), map[string]any{"siteId": bakery}},
		{"message cast", http.MethodPost, devicePath(k.orgID, id, "cast"), map[string]any{"type": "message", "text": "86 the salmon"}},
		{"image cast", http.MethodPost, devicePath(k.orgID, id, "cast"), map[string]any{"type": "image", "mediaKey": m.Key}},
		{"cast image deleted", http.MethodDelete, orgPath(k.orgID, "media", m.Key.String()), nil},
		{"message cast again", http.MethodPost, devicePath(k.orgID, id, "cast"), map[string]any{"type": "message", "text": "Fire 4"}},
		{"cast cleared", http.MethodDelete, devicePath(k.orgID, id, "cast"), nil},
		{"organization renamed", http.MethodPut, orgPath(k.orgID), map[string]any{"name": "Harborview Dining"}},
		{"brand", http.MethodPut, orgPath(k.orgID), map[string]any{"brand": map[string]string{"accent": "#F97316"}}},
		{"site renamed", http.MethodPut, orgPath(k.orgID, "sites", bakery.String()), map[string]any{"name": "Pastry"}},
		{"site time zone", http.MethodPut, orgPath(k.orgID, "sites", bakery.String()), map[string]any{"timezone": "Asia/Tokyo"}},
		{"site day parts", http.MethodPut, orgPath(k.orgID, "sites", bakery.String()), map[string]any{
			"dayParts": []map[string]string{{"name": "brunch", "start": "00:00", "end": "23:59"}},
		}},
	}
	etag := env.Call(http.MethodGet, "device/state").DeviceToken(token).Do().Expect(http.StatusOK).Header.Get("ETag")
	for _, s := range steps {
		req := env.Call(s.method, s.path).Token(owner)
		if s.body != nil {
			req.JSON(s.body)
		}
		if res := req.Do(); res.Status >= 300 {
			t.Fatalf("%s: status %d %s", s.what, res.Status, res.Body)
		}
		frame(t, conn, s.what)
		next := env.Call(http.MethodGet, "device/state").DeviceToken(token).Header("If-None-Match", etag).Do().Expect(http.StatusOK).Header.Get("ETag")
		if next == etag {
			t.Fatalf("%s: the state did not change", s.what)
		}
		etag = next
	}
}

// A screen relying on its socket hears when time alone changes its state: the site's midnight
// (a new date) on every kind, and the start or end of a day part on menu boards.
func TestSocketFramesWhenTimeChangesTheState(t *testing.T) {
	t.Parallel()
	// Chicago is 6 hours behind UTC in March; default day parts: breakfast 06:00–10:30, lunch
	// 11:00–14:30, dinner 16:30–20:00.
	for _, c := range []struct {
		kind, before, after string
		check               func(state) bool
	}{
		{"wallboard_boh", "2026-03-03T05:59:59.9Z", "2026-03-03T06:00:00Z", func(s state) bool { return s.Date == "2026-03-03" }},
		{"kiosk", "2026-03-03T05:59:59.9Z", "2026-03-03T06:00:00Z", func(s state) bool { return s.Date == "2026-03-03" }},
		{"menu_board", "2026-03-02T16:59:59.9Z", "2026-03-02T17:00:00Z", func(s state) bool {
			return s.Menu.DayPart.Name == "lunch" && s.Menu.InProgress
		}},
		{"menu_board", "2026-03-02T20:29:59.9Z", "2026-03-02T20:30:00Z", func(s state) bool {
			return s.Menu.DayPart.Name == "dinner" && !s.Menu.InProgress
		}},
	} {
		t.Run(c.kind+" at "+c.after, func(t *testing.T) {
			t.Parallel()
			env := apitest.New(t)
			k := newKitchen(env, "Harborview Kitchens")
			_, token := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, c.kind)
			before, _ := time.Parse(time.RFC3339Nano, c.before)
			env.Clock.Set(before)
			if c.check(getState(env, token)) {
				t.Fatal("the state already shows the change")
			}
			conn := dial(t, env, token)
			frame(t, conn, "time passing")
			after, _ := time.Parse(time.RFC3339Nano, c.after)
			env.Clock.Set(after)
			if s := getState(env, token); !c.check(s) {
				t.Fatalf("state after the frame %+v", s)
			}
		})
	}
}
