package devices_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

func TestCreateDeviceFillsTheDefaultsOfEachKind(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")

	want := map[string]map[string]any{
		"wallboard_boh":  {"stations": []any{}, "showAlerts": true, "showHandoffs": true, "theme": "dark", "orientation": "landscape"},
		"wallboard_foh":  {"stations": []any{}, "showAlerts": false, "showHandoffs": false, "theme": "dark", "orientation": "landscape"},
		"menu_board":     {"dayPart": nil, "showPrices": true, "showAllergens": true, "theme": "dark", "orientation": "landscape"},
		"tray_line":      {"units": []any{}, "showDietCodes": true, "theme": "dark", "orientation": "landscape"},
		"kiosk":          {"idleTimeoutSeconds": float64(90), "theme": "dark", "orientation": "portrait"},
		"sensor_gateway": {"reportIntervalSeconds": float64(60)},
	}
	for kind, cfg := range want {
		d := createDevice(env, k.owner.AccessToken, k.orgID, map[string]any{"name": "  The " + kind + " ", "kind": kind, "siteId": k.siteID})
		if d.Name != "The "+kind || d.Kind != kind || d.SiteID != k.siteID || d.Paired || d.PairedAt != nil || d.Cast != nil {
			t.Fatalf("%s: %+v", kind, d)
		}
		if !reflect.DeepEqual(d.Config, cfg) {
			t.Errorf("%s config %v, want %v", kind, d.Config, cfg)
		}
		var got device
		env.Call(http.MethodGet, devicePath(k.orgID, d.ID)).Token(k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&got)
		if !reflect.DeepEqual(got.Config, cfg) || got.Name != d.Name {
			t.Errorf("%s read back %+v", kind, got)
		}
	}
	if n := auditCount(env, k.orgID, "createDevice"); n != len(want) {
		t.Errorf("%d createDevice audit rows", n)
	}
}

func TestCreateDeviceKeepsAGivenConfig(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")

	d := createDevice(env, k.owner.AccessToken, k.orgID, map[string]any{
		"name": "Hot line", "kind": "wallboard_boh", "siteId": k.siteID,
		"config": map[string]any{"stations": []string{" grill ", "saute"}, "showAlerts": false, "theme": "light"},
	})
	want := map[string]any{"stations": []any{"grill", "saute"}, "showAlerts": false, "showHandoffs": true, "theme": "light", "orientation": "landscape"}
	if !reflect.DeepEqual(d.Config, want) {
		t.Fatalf("config %v", d.Config)
	}
	// A menu board's pinned day part must be the site's, and is stored as the site spells it.
	d = createDevice(env, k.owner.AccessToken, k.orgID, map[string]any{
		"name": "Lobby", "kind": "menu_board", "siteId": k.siteID, "config": map[string]any{"dayPart": "LUNCH", "orientation": "portrait"},
	})
	if d.Config["dayPart"] != "lunch" || d.Config["orientation"] != "portrait" {
		t.Fatalf("menu board config %v", d.Config)
	}
	d = createDevice(env, k.owner.AccessToken, k.orgID, map[string]any{
		"name": "Kiosk", "kind": "kiosk", "siteId": k.siteID, "config": map[string]any{"idleTimeoutSeconds": 300},
	})
	if d.Config["idleTimeoutSeconds"] != float64(300) {
		t.Fatalf("kiosk config %v", d.Config)
	}
}

func TestConfigIsCheckedAgainstTheKind(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")

	cases := []struct {
		kind   string
		config map[string]any
		fields []string
	}{
		{"wallboard_boh", map[string]any{"stations": "grill"}, []string{"config.stations"}},
		{"wallboard_boh", map[string]any{"stations": []string{"Grill", "grill"}}, []string{"config.stations"}},
		{"wallboard_boh", map[string]any{"stations": []string{" "}}, []string{"config.stations"}},
		{"wallboard_boh", map[string]any{"stations": []string{strings.Repeat("x", 51)}}, []string{"config.stations"}},
		{"wallboard_foh", map[string]any{"dayPart": "lunch"}, []string{"config.dayPart"}},
		{"wallboard_foh", map[string]any{"theme": "neon", "orientation": "sideways"}, []string{"config.theme", "config.orientation"}},
		{"menu_board", map[string]any{"showPrices": "yes"}, []string{"config.showPrices"}},
		{"menu_board", map[string]any{"dayPart": "brunch"}, []string{"config.dayPart"}},
		{"menu_board", map[string]any{"dayPart": 3}, []string{"config.dayPart"}},
		{"tray_line", map[string]any{"units": []any{"4 West", 7}}, []string{"config.units"}},
		{"tray_line", map[string]any{"stations": []string{"grill"}}, []string{"config.stations"}},
		{"kiosk", map[string]any{"idleTimeoutSeconds": 5}, []string{"config.idleTimeoutSeconds"}},
		{"kiosk", map[string]any{"idleTimeoutSeconds": 90.5}, []string{"config.idleTimeoutSeconds"}},
		{"kiosk", map[string]any{"idleTimeoutSeconds": "90"}, []string{"config.idleTimeoutSeconds"}},
		{"sensor_gateway", map[string]any{"theme": "dark", "reportIntervalSeconds": 4000}, []string{"config.reportIntervalSeconds", "config.theme"}},
	}
	for _, c := range cases {
		e := env.Call(http.MethodPost, orgPath(k.orgID, "devices")).Token(k.owner.AccessToken).
			JSON(map[string]any{"name": "Screen", "kind": c.kind, "siteId": k.siteID, "config": c.config}).
			Do().ExpectError(http.StatusBadRequest, "")
		for _, f := range c.fields {
			if !hasField(e, f) {
				t.Errorf("%s %v: details %+v lack %s", c.kind, c.config, e.Details, f)
			}
		}
		if len(e.Details) != len(c.fields) {
			t.Errorf("%s %v: details %+v, want %v", c.kind, c.config, e.Details, c.fields)
		}
	}

	// Outside the config: the spec's own rules.
	e := env.Call(http.MethodPost, orgPath(k.orgID, "devices")).Token(k.owner.AccessToken).
		JSON(map[string]any{"name": "Screen", "kind": "toaster", "siteId": k.siteID}).Do().ExpectError(http.StatusBadRequest, "")
	must(t, hasField(e, "kind"), "details %+v", e.Details)
	e = env.Call(http.MethodPost, orgPath(k.orgID, "devices")).Token(k.owner.AccessToken).
		JSON(map[string]any{"name": "   ", "kind": "kiosk", "siteId": k.siteID}).Do().ExpectError(http.StatusBadRequest, "")
	must(t, hasField(e, "name"), "details %+v", e.Details)
	if n := auditCount(env, k.orgID, "createDevice"); n != 0 {
		t.Errorf("%d audit rows for refused writes", n)
	}
}

func TestDeviceSiteMustBeTheOrganizations(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	other := newKitchen(env, "Elsewhere Catering")

	for _, siteID := range []uuid.UUID{other.siteID, uuid.New()} {
		env.Call(http.MethodPost, orgPath(k.orgID, "devices")).Token(k.owner.AccessToken).
			JSON(map[string]any{"name": "Screen", "kind": "kiosk", "siteId": siteID}).Do().ExpectError(http.StatusNotFound, "Site not found")
	}
	d := createDevice(env, k.owner.AccessToken, k.orgID, map[string]any{"name": "Screen", "kind": "kiosk", "siteId": k.siteID})
	env.Call(http.MethodPut, devicePath(k.orgID, d.ID)).Token(k.owner.AccessToken).
		JSON(map[string]any{"siteId": other.siteID}).Do().ExpectError(http.StatusNotFound, "Site not found")
	// Another organization's admin cannot see or touch the device.
	env.Call(http.MethodGet, devicePath(other.orgID, d.ID)).Token(other.owner.AccessToken).Do().ExpectError(http.StatusNotFound, "Device not found")
	env.Call(http.MethodDelete, devicePath(other.orgID, d.ID)).Token(other.owner.AccessToken).Do().ExpectError(http.StatusNotFound, "Device not found")
}

func TestUpdateDevice(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	bakery := env.Site(k.owner.AccessToken, k.orgID, "Bakery")
	d := createDevice(env, k.owner.AccessToken, k.orgID, map[string]any{
		"name": "Hot line", "kind": "wallboard_boh", "siteId": k.siteID, "config": map[string]any{"stations": []string{"grill"}},
	})
	env.Clock.Advance(60_000_000_000)

	var got device
	env.Call(http.MethodPut, devicePath(k.orgID, d.ID)).Token(k.owner.AccessToken).
		JSON(map[string]any{"name": "Expo", "siteId": bakery}).Do().Expect(http.StatusOK).Decode(&got)
	if got.Name != "Expo" || got.SiteID != bakery || !reflect.DeepEqual(got.Config, d.Config) || !got.UpdatedAt.After(d.UpdatedAt) {
		t.Fatalf("rename and move: %+v", got)
	}
	// config replaces the whole configuration; omitted fields take their defaults.
	env.Call(http.MethodPut, devicePath(k.orgID, d.ID)).Token(k.owner.AccessToken).
		JSON(map[string]any{"config": map[string]any{"theme": "light"}}).Do().Expect(http.StatusOK).Decode(&got)
	if got.Config["theme"] != "light" || len(got.Config["stations"].([]any)) != 0 {
		t.Fatalf("config replaced: %v", got.Config)
	}
	// A new kind without config starts from that kind's defaults.
	got = device{}
	env.Call(http.MethodPut, devicePath(k.orgID, d.ID)).Token(k.owner.AccessToken).
		JSON(map[string]any{"kind": "sensor_gateway"}).Do().Expect(http.StatusOK).Decode(&got)
	if got.Kind != "sensor_gateway" || !reflect.DeepEqual(got.Config, map[string]any{"reportIntervalSeconds": float64(60)}) {
		t.Fatalf("kind changed: %+v", got)
	}
	// A new kind with a config is checked against the new kind.
	e := env.Call(http.MethodPut, devicePath(k.orgID, d.ID)).Token(k.owner.AccessToken).
		JSON(map[string]any{"kind": "menu_board", "config": map[string]any{"stations": []string{}}}).Do().ExpectError(http.StatusBadRequest, "")
	must(t, hasField(e, "config.stations"), "details %+v", e.Details)
	got = device{}
	env.Call(http.MethodPut, devicePath(k.orgID, d.ID)).Token(k.owner.AccessToken).
		JSON(map[string]any{"kind": "menu_board", "config": map[string]any{"dayPart": "dinner"}}).Do().Expect(http.StatusOK).Decode(&got)
	if got.Kind != "menu_board" || got.Config["dayPart"] != "dinner" {
		t.Fatalf("menu board: %+v", got)
	}
	env.Call(http.MethodPut, devicePath(k.orgID, d.ID)).Token(k.owner.AccessToken).
		JSON(map[string]any{}).Do().ExpectError(http.StatusBadRequest, "")
	env.Call(http.MethodPut, devicePath(k.orgID, uuid.New())).Token(k.owner.AccessToken).
		JSON(map[string]any{"name": "Ghost"}).Do().ExpectError(http.StatusNotFound, "Device not found")
	if n := auditCount(env, k.orgID, "updateDevice"); n != 4 {
		t.Errorf("%d updateDevice audit rows", n)
	}
}

func TestSiteScopedAdminSeesOnlyTheirSitesDevices(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	bakery := env.Site(k.owner.AccessToken, k.orgID, "Bakery")
	inMain := createDevice(env, k.owner.AccessToken, k.orgID, map[string]any{"name": "Main board", "kind": "wallboard_boh", "siteId": k.siteID})
	inBakery := createDevice(env, k.owner.AccessToken, k.orgID, map[string]any{"name": "Bakery board", "kind": "wallboard_boh", "siteId": bakery})
	admin := env.Member(k.orgID, "admin", bakery)

	var list []device
	env.Call(http.MethodGet, orgPath(k.orgID, "devices")).Token(admin.AccessToken).Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 1 || list[0].ID != inBakery.ID {
		t.Fatalf("scoped list %+v", list)
	}
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, devicePath(k.orgID, inMain.ID)},
		{http.MethodPost, devicePath(k.orgID, inMain.ID, "pair")},
		{http.MethodPost, devicePath(k.orgID, inMain.ID, "revoke")},
		{http.MethodDelete, devicePath(k.orgID, inMain.ID)},
		{http.MethodDelete, devicePath(k.orgID, inMain.ID, "cast")},
	} {
		env.Call(c.method, c.path).Token(admin.AccessToken).Do().ExpectError(http.StatusNotFound, "Device not found")
	}
	env.Call(http.MethodPost, orgPath(k.orgID, "devices")).Token(admin.AccessToken).
		JSON(map[string]any{"name": "Sneaky", "kind": "kiosk", "siteId": k.siteID}).Do().ExpectError(http.StatusNotFound, "Site not found")
	env.Call(http.MethodPut, devicePath(k.orgID, inBakery.ID)).Token(admin.AccessToken).
		JSON(map[string]any{"siteId": k.siteID}).Do().ExpectError(http.StatusNotFound, "Site not found")
	createDevice(env, admin.AccessToken, k.orgID, map[string]any{"name": "Bakery kiosk", "kind": "kiosk", "siteId": bakery})
}

func TestListDevicesPagesByNameAndFiltersBySite(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	bakery := env.Site(k.owner.AccessToken, k.orgID, "Bakery")
	for _, n := range []string{"Delta", "Alpha", "Charlie", "Bravo"} {
		createDevice(env, k.owner.AccessToken, k.orgID, map[string]any{"name": n, "kind": "kiosk", "siteId": k.siteID})
	}
	createDevice(env, k.owner.AccessToken, k.orgID, map[string]any{"name": "Echo", "kind": "kiosk", "siteId": bakery})

	var names []string
	path := "/v1/" + orgPath(k.orgID, "devices") + "?limit=2"
	for pages := 0; path != ""; pages++ {
		if pages > 5 {
			t.Fatal("too many pages")
		}
		var page []device
		res := env.Call(http.MethodGet, path).Token(k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&page)
		for _, d := range page {
			names = append(names, d.Name)
		}
		path = ""
		if link := res.Header.Get("Link"); link != "" {
			path = strings.TrimPrefix(link[1:strings.Index(link, ">")], env.URL)
		}
	}
	if strings.Join(names, ",") != "Alpha,Bravo,Charlie,Delta,Echo" {
		t.Fatalf("pages %v", names)
	}
	var list []device
	env.Call(http.MethodGet, orgPath(k.orgID, "devices")+"?siteId="+bakery.String()).Token(k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 1 || list[0].Name != "Echo" {
		t.Fatalf("filtered %+v", list)
	}
	env.Call(http.MethodGet, orgPath(k.orgID, "devices")+"?cursor=nonsense").Token(k.owner.AccessToken).Do().ExpectError(http.StatusBadRequest, "cursor")
}

func TestDeleteDevice(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	id, token := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "wallboard_boh")
	getState(env, token)

	env.Call(http.MethodDelete, devicePath(k.orgID, id)).Token(k.owner.AccessToken).Do().Expect(http.StatusNoContent)
	env.Call(http.MethodGet, devicePath(k.orgID, id)).Token(k.owner.AccessToken).Do().ExpectError(http.StatusNotFound, "Device not found")
	env.Call(http.MethodGet, "device/state").DeviceToken(token).Do().ExpectError(http.StatusUnauthorized, "Invalid device token")
	env.Call(http.MethodDelete, devicePath(k.orgID, id)).Token(k.owner.AccessToken).Do().ExpectError(http.StatusNotFound, "Device not found")
	if n := auditCount(env, k.orgID, "deleteDevice"); n != 1 {
		t.Errorf("%d deleteDevice audit rows", n)
	}
}

// Every management operation needs admin (manageDevices): a manager gets 403 and changes
// nothing. An admin of another organization finds nothing (404), whether through their own
// organization's path or the device's.
func TestManagingDevicesNeedsAdminOfTheOrganization(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	other := newKitchen(env, "Elsewhere Catering")
	id, token := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "wallboard_boh")
	var m media
	upload(env, k.owner.AccessToken, k.orgID, "plating.png", "image/png", onePixelPNG).Expect(http.StatusCreated).Decode(&m)
	var before device
	env.Call(http.MethodGet, devicePath(k.orgID, id)).Token(k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&before)

	type call struct {
		method, path string
		body         map[string]any
	}
	onDevice := func(orgID uuid.UUID) []call {
		return []call{
			{http.MethodGet, devicePath(orgID, id), nil},
			{http.MethodPut, devicePath(orgID, id), map[string]any{"name": "Taken over"}},
			{http.MethodDelete, devicePath(orgID, id), nil},
			{http.MethodPost, devicePath(orgID, id, "pair"), nil},
			{http.MethodPost, devicePath(orgID, id, "revoke"), nil},
			{http.MethodPost, devicePath(orgID, id, "cast"), map[string]any{"type": "message", "text": "Hi"}},
			{http.MethodDelete, devicePath(orgID, id, "cast"), nil},
		}
	}
	do := func(tok string, c call) *apitest.Response {
		req := env.Call(c.method, c.path).Token(tok)
		if c.body != nil {
			req.JSON(c.body)
		}
		return req.Do()
	}

	for _, role := range []string{"manager", "inspector", "viewer"} {
		member := env.Member(k.orgID, role)
		calls := append(onDevice(k.orgID),
			call{http.MethodGet, orgPath(k.orgID, "devices"), nil},
			call{http.MethodPost, orgPath(k.orgID, "devices"), map[string]any{"name": "Screen", "kind": "kiosk", "siteId": k.siteID}},
			call{http.MethodGet, orgPath(k.orgID, "media"), nil},
			call{http.MethodDelete, orgPath(k.orgID, "media", m.Key.String()), nil},
		)
		for _, c := range calls {
			do(member.AccessToken, c).ExpectError(http.StatusForbidden, "This action needs the admin role or higher")
		}
		ct, body := form("file", "x.png", "image/png", onePixelPNG)
		env.Call(http.MethodPost, orgPath(k.orgID, "media")).Token(member.AccessToken).Raw(ct, body).Do().ExpectError(http.StatusForbidden, "admin")
	}

	for _, c := range onDevice(other.orgID) {
		do(other.owner.AccessToken, c).ExpectError(http.StatusNotFound, "Device not found")
	}
	for _, c := range onDevice(k.orgID) {
		do(other.owner.AccessToken, c).Expect(http.StatusNotFound)
	}
	env.Call(http.MethodDelete, orgPath(other.orgID, "media", m.Key.String())).Token(other.owner.AccessToken).Do().ExpectError(http.StatusNotFound, "Media not found")

	// Nothing of the device changed: same row, same token, nothing cast.
	var after device
	env.Call(http.MethodGet, devicePath(k.orgID, id)).Token(k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&after)
	if !reflect.DeepEqual(after, before) {
		t.Fatalf("device changed: %+v, was %+v", after, before)
	}
	if s := getState(env, token); s.Cast != nil || s.Device.Name != before.Name {
		t.Fatalf("state changed %+v", s)
	}
	env.Call(http.MethodGet, "board/media/content/"+m.Key.String()).DeviceToken(token).Do().Expect(http.StatusOK)
	var list []device
	env.Call(http.MethodGet, orgPath(k.orgID, "devices")).Token(k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 1 {
		t.Fatalf("%d devices", len(list))
	}
	// Admins may.
	admin := env.Member(k.orgID, "admin")
	createDevice(env, admin.AccessToken, k.orgID, map[string]any{"name": "Screen", "kind": "kiosk", "siteId": k.siteID})
}

// A refused update writes nothing: the device reads back as it was, and no audit row is left.
func TestRefusedUpdateChangesNothing(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	d := createDevice(env, k.owner.AccessToken, k.orgID, map[string]any{
		"name": "Hot line", "kind": "wallboard_boh", "siteId": k.siteID, "config": map[string]any{"stations": []string{"grill"}},
	})
	env.Clock.Advance(time.Minute)

	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"name": "Expo", "config": map[string]any{"stations": "grill"}}, "config.stations"},
		{map[string]any{"name": "Expo", "config": map[string]any{"refreshSeconds": 5}}, "config.refreshSeconds"},
		{map[string]any{"kind": "kiosk", "config": map[string]any{"idleTimeoutSeconds": 1}}, "config.idleTimeoutSeconds"},
		{map[string]any{"kind": "menu_board", "config": map[string]any{"dayPart": "brunch"}}, "config.dayPart"},
		{map[string]any{"name": " ", "config": map[string]any{"theme": "light"}}, "name"},
		{map[string]any{"kind": "toaster"}, "kind"},
	} {
		e := env.Call(http.MethodPut, devicePath(k.orgID, d.ID)).Token(k.owner.AccessToken).JSON(c.body).Do().ExpectError(http.StatusBadRequest, "")
		must(t, hasField(e, c.field) || strings.Contains(e.Error, c.field), "%v: %+v lacks %s", c.body, e, c.field)
	}
	var got device
	env.Call(http.MethodGet, devicePath(k.orgID, d.ID)).Token(k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&got)
	if !reflect.DeepEqual(got, d) {
		t.Fatalf("device after refused updates %+v, was %+v", got, d)
	}
	if n := auditCount(env, k.orgID, "updateDevice"); n != 0 {
		t.Errorf("%d updateDevice audit rows", n)
	}
}
