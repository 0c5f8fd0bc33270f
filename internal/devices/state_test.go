package devices_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

func TestStateCarriesTheDeviceOrgAndSite(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	env.Call(http.MethodPut, orgPath(k.orgID)).Token(k.owner.AccessToken).
		JSON(map[string]any{"brand": map[string]string{"primary": "#0F766E", "accent": "#F97316"}}).Do().Expect(http.StatusOK)
	id, token := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "wallboard_boh")

	s := getState(env, token)
	if s.Device.ID != id || s.Device.Kind != "wallboard_boh" || s.Device.Name != "Test wallboard_boh" || s.Device.Config["theme"] != "dark" {
		t.Fatalf("device %+v", s.Device)
	}
	if s.Org.Name != "Harborview Kitchens" || s.Org.Brand.Primary != "#0F766E" || s.Org.Brand.Accent != "#F97316" {
		t.Fatalf("org %+v", s.Org)
	}
	if s.Site.ID != k.siteID || s.Site.Name != "Main Kitchen" || s.Site.Timezone != "America/Chicago" {
		t.Fatalf("site %+v", s.Site)
	}
	if !s.ServerTime.Equal(apitest.Epoch) || s.Cast != nil || s.Menu != nil {
		t.Fatalf("state %+v", s)
	}
	// Honest emptiness: the parts fed by capabilities that do not exist yet are empty arrays.
	if s.Production == nil || s.Alerts == nil || s.Handoffs == nil || s.Trays != nil ||
		len(s.Production)+len(s.Alerts)+len(s.Handoffs) != 0 {
		t.Fatalf("parts %+v", s)
	}
}

// The state is the spec's object, field for field, on every kind; only the parts a kind adds
// (the menu of menu boards, the tray queue of tray-line screens, the live temperatures of
// kitchen wallboards) come on top.
func TestStateHasExactlyTheSpecFieldsPlusThoseOfItsKind(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	spec := []string{"alerts", "cast", "date", "device", "handoffs", "org", "production", "serverTime", "site"}

	for _, c := range []struct {
		kind  string
		extra []string
	}{
		{"wallboard_boh", []string{"temperatures"}},
		{"wallboard_foh", nil},
		{"menu_board", []string{"menu"}},
		{"tray_line", []string{"trays"}},
		{"kiosk", nil},
		{"sensor_gateway", nil},
	} {
		_, token := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, c.kind)
		var top map[string]json.RawMessage
		env.Call(http.MethodGet, "device/state").DeviceToken(token).Do().Expect(http.StatusOK).Decode(&top)
		want := append(slices.Clone(spec), c.extra...)
		slices.Sort(want)
		if got := keys(top); !slices.Equal(got, want) {
			t.Errorf("%s: fields %v, want %v", c.kind, got, want)
		}
		for field, want := range map[string][]string{
			"device": {"config", "id", "kind", "name"},
			"org":    {"brand", "name"},
			"site":   {"id", "name", "timezone"},
		} {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(top[field], &obj); err != nil {
				t.Fatalf("%s: %s: %v", c.kind, field, err)
			}
			if got := keys(obj); !slices.Equal(got, want) {
				t.Errorf("%s: %s has %v, want %v", c.kind, field, got, want)
			}
			if field == "org" {
				var brand map[string]string
				if err := json.Unmarshal(obj["brand"], &brand); err != nil || len(brand) != 2 ||
					!hexColor.MatchString(brand["primary"]) || !hexColor.MatchString(brand["accent"]) {
					t.Errorf("%s: brand %s", c.kind, obj["brand"])
				}
			}
		}
		for _, part := range []string{"production", "alerts", "handoffs", "trays"} {
			if _, ok := top[part]; ok && string(top[part]) != "[]" {
				t.Errorf("%s: %s is %s, want []", c.kind, part, top[part])
			}
		}
		if string(top["cast"]) != "null" {
			t.Errorf("%s: cast %s", c.kind, top["cast"])
		}
	}
}

var hexColor = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestStateDateIsTodayInTheSiteTimeZone(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens") // its site is in America/Chicago (UTC-6 in March)
	var tokyo struct {
		ID uuid.UUID `json:"id"`
	}
	env.Call(http.MethodPost, orgPath(k.orgID, "sites")).Token(k.owner.AccessToken).
		JSON(map[string]string{"name": "Ginza", "timezone": "Asia/Tokyo"}).Do().Expect(http.StatusCreated).Decode(&tokyo)
	_, chicagoToken := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "wallboard_boh")
	_, tokyoToken := env.PairDevice(k.owner.AccessToken, k.orgID, tokyo.ID, "wallboard_boh")

	cases := []struct {
		at             string
		chicago, tokyo string
	}{
		{"2026-03-02T14:59:59Z", "2026-03-02", "2026-03-02"}, // 08:59 Chicago, 23:59 Tokyo
		{"2026-03-02T15:00:00Z", "2026-03-02", "2026-03-03"}, // Tokyo's midnight
		{"2026-03-02T23:59:59Z", "2026-03-02", "2026-03-03"}, // UTC's midnight is not Chicago's
		{"2026-03-03T00:00:00Z", "2026-03-02", "2026-03-03"},
		{"2026-03-03T05:59:59Z", "2026-03-02", "2026-03-03"},
		{"2026-03-03T06:00:00Z", "2026-03-03", "2026-03-03"}, // Chicago's midnight
	}
	for _, c := range cases {
		at, _ := time.Parse(time.RFC3339, c.at)
		env.Clock.Set(at)
		if s := getState(env, chicagoToken); s.Date != c.chicago || !s.ServerTime.Equal(at) {
			t.Errorf("%s Chicago: date %s serverTime %s, want %s", c.at, s.Date, s.ServerTime, c.chicago)
		}
		if s := getState(env, tokyoToken); s.Date != c.tokyo {
			t.Errorf("%s Tokyo: date %s, want %s", c.at, s.Date, c.tokyo)
		}
	}
}

func TestStateETagAndNotModified(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	id, token := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "wallboard_boh")

	poll := func(etag string) *apitest.Response {
		req := env.Call(http.MethodGet, "device/state").DeviceToken(token)
		if etag != "" {
			req.Header("If-None-Match", etag)
		}
		return req.Do()
	}
	first := poll("").Expect(http.StatusOK)
	etag := first.Header.Get("ETag")
	if len(etag) != 34 || etag[0] != '"' || first.Header.Get("Cache-Control") != "private, no-cache" {
		t.Fatalf("ETag %q, Cache-Control %q", etag, first.Header.Get("Cache-Control"))
	}

	// Nothing changed but the time: 304, no body, same validator.
	env.Clock.Advance(5 * time.Second)
	res := poll(etag).Expect(http.StatusNotModified)
	if len(res.Body) != 0 || res.Header.Get("ETag") != etag {
		t.Fatalf("304: ETag %q, body %q", res.Header.Get("ETag"), res.Body)
	}
	// If-None-Match is compared weakly and may list several tags.
	poll("W/" + etag).Expect(http.StatusNotModified)
	poll(`"stale", ` + etag).Expect(http.StatusNotModified)
	poll("*").Expect(http.StatusNotModified)
	poll(`"stale"`).Expect(http.StatusOK)

	// A change to what the device shows makes a new validator.
	env.Call(http.MethodPut, devicePath(k.orgID, id)).Token(k.owner.AccessToken).
		JSON(map[string]any{"config": map[string]any{"theme": "light"}}).Do().Expect(http.StatusOK)
	res = poll(etag).Expect(http.StatusOK)
	next := res.Header.Get("ETag")
	if next == etag {
		t.Fatal("ETag unchanged after a config change")
	}
	var s state
	res.Decode(&s)
	if s.Device.Config["theme"] != "light" || !s.ServerTime.Equal(env.Clock.Now()) {
		t.Fatalf("state after change %+v", s)
	}
	// So does a new local date.
	env.Clock.Set(time.Date(2026, 3, 3, 6, 0, 0, 0, time.UTC)) // midnight in Chicago
	if poll(next).Expect(http.StatusOK).Header.Get("ETag") == next {
		t.Fatal("ETag unchanged across the site's midnight")
	}
}

func TestMenuBoardShowsTheCurrentDayPart(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens") // default day parts: breakfast 06:00–10:30, lunch 11:00–14:30, dinner 16:30–20:00
	_, token := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "menu_board")
	_, wallboard := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "wallboard_boh")
	pinned := createDevice(env, k.owner.AccessToken, k.orgID, map[string]any{
		"name": "Dinner board", "kind": "menu_board", "siteId": k.siteID, "config": map[string]any{"dayPart": "dinner"},
	})
	var p paired
	claim(env, mintCode(env, k.owner.AccessToken, k.orgID, pinned.ID).Code).Expect(http.StatusOK).Decode(&p)

	cases := []struct {
		at         string // UTC; Chicago is 6 hours behind
		part       string
		inProgress bool
	}{
		{"2026-03-02T12:00:00Z", "breakfast", true}, // 06:00
		{"2026-03-02T16:29:00Z", "breakfast", true}, // 10:29
		{"2026-03-02T16:30:00Z", "lunch", false},    // 10:30: breakfast over, lunch next
		{"2026-03-02T16:45:00Z", "lunch", false},
		{"2026-03-02T17:00:00Z", "lunch", true},
		{"2026-03-02T20:29:00Z", "lunch", true},
		{"2026-03-03T02:30:00Z", "breakfast", false}, // 20:30: all done, tomorrow's breakfast next
		{"2026-03-03T08:00:00Z", "breakfast", false}, // 02:00
	}
	for _, c := range cases {
		at, _ := time.Parse(time.RFC3339, c.at)
		env.Clock.Set(at)
		s := getState(env, token)
		if s.Menu == nil || s.Menu.DayPart == nil || s.Menu.Items == nil || len(s.Menu.Items) != 0 {
			t.Fatalf("%s: menu %+v", c.at, s.Menu)
		}
		if s.Menu.DayPart.Name != c.part || s.Menu.InProgress != c.inProgress {
			t.Errorf("%s: %s in progress %v, want %s %v", c.at, s.Menu.DayPart.Name, s.Menu.InProgress, c.part, c.inProgress)
		}
		if ps := getState(env, p.DeviceToken); ps.Menu.DayPart.Name != "dinner" {
			t.Errorf("%s: pinned board shows %s", c.at, ps.Menu.DayPart.Name)
		}
		if ws := getState(env, wallboard); ws.Menu != nil {
			t.Errorf("wallboard has a menu %+v", ws.Menu)
		}
	}
	env.Clock.Set(time.Date(2026, 3, 2, 23, 0, 0, 0, time.UTC)) // 17:00 in Chicago
	if ps := getState(env, p.DeviceToken); ps.Menu.DayPart.Name != "dinner" || !ps.Menu.InProgress || ps.Menu.DayPart.Start != "16:30" || ps.Menu.DayPart.End != "20:00" {
		t.Errorf("pinned board at dinner %+v", ps.Menu)
	}
}
