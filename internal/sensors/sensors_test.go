package sensors_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

func TestSensorLifecycle(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Sensors")
	s := k.sensor("probe-7", nil)
	must(t, s.Kind == "temperature" && s.SiteID == k.site && s.GatewayDeviceID == k.gateway && s.ExcursionMinutes == 15 && s.Active &&
		s.MinTempF == nil && *s.EffectiveMinTempF == "33" && *s.EffectiveMaxTempF == "41" && s.LastReading == nil && s.Excursion == nil,
		"created: %+v", s)
	var got sensor
	env.Call(http.MethodPut, k.path("sensors", s.ID.String())).Token(k.token()).
		JSON(k.body("probe-7", map[string]any{"maxTempF": "40", "excursionMinutes": 20, "name": "Back shelf"})).
		Do().Expect(http.StatusOK).Decode(&got)
	must(t, got.Name == "Back shelf" && *got.MaxTempF == "40" && *got.EffectiveMaxTempF == "40" && *got.EffectiveMinTempF == "33" &&
		got.ExcursionMinutes == 20, "updated: %+v", got)
	// PUT replaces whole: left out, the range and the place are cleared.
	env.Call(http.MethodPut, k.path("sensors", s.ID.String())).Token(k.token()).
		JSON(k.body("probe-7", map[string]any{"storageLocationId": nil})).Do().Expect(http.StatusOK).Decode(&got)
	must(t, got.StorageLocationID == nil && got.EffectiveMaxTempF == nil && got.ExcursionMinutes == 15, "replaced: %+v", got)
	must(t, k.count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND target_id = $2`, k.org, s.ID) == 3, "audit rows")

	// Paging by name.
	k.sensor("probe-8", nil)
	k.sensor("probe-9", nil)
	var page []sensor
	res := env.Call(http.MethodGet, k.path("sensors")+"?limit=2").Token(k.token()).Do().Expect(http.StatusOK).Decode(&page)
	must(t, len(page) == 2 && res.Header.Get("Link") != "", "first page: %d, link %q", len(page), res.Header.Get("Link"))
	next := res.Header.Get("Link")
	next = next[strings.Index(next, "/v1/")+4 : strings.Index(next, ">")]
	var rest []sensor
	res = env.Call(http.MethodGet, next).Token(k.token()).Do().Expect(http.StatusOK).Decode(&rest)
	must(t, len(rest) == 1 && rest[0].ID != page[0].ID && rest[0].ID != page[1].ID && res.Header.Get("Link") == "", "second page: %+v", rest)
}

func TestSensorRules(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Rules")
	other := env.Site(k.token(), k.org, "Commissary")
	otherCooler := k.location(other, "Commissary cooler")
	wallboard, _ := env.PairDevice(k.token(), k.org, k.site, "wallboard_boh")
	var oven struct {
		ID uuid.UUID `json:"id"`
	}
	env.Call(http.MethodPost, k.path("equipment")).Token(k.token()).JSON(map[string]any{"siteId": other, "name": "Commissary oven", "kind": "oven"}).
		Do().Expect(http.StatusCreated).Decode(&oven)
	k.sensor("probe-7", nil)
	cases := []struct {
		name   string
		over   map[string]any
		status int
		field  string
	}{
		{"not a gateway", map[string]any{"gatewayDeviceId": wallboard}, http.StatusBadRequest, "gatewayDeviceId"},
		{"another site than the gateway's", map[string]any{"siteId": other, "storageLocationId": otherCooler}, http.StatusBadRequest, "siteId"},
		{"a location of another site", map[string]any{"storageLocationId": otherCooler}, http.StatusBadRequest, "storageLocationId"},
		{"equipment of another site", map[string]any{"equipmentId": oven.ID}, http.StatusBadRequest, "equipmentId"},
		{"an unknown equipment", map[string]any{"equipmentId": uuid.New()}, http.StatusNotFound, ""},
		{"min above max", map[string]any{"minTempF": "45", "maxTempF": "41"}, http.StatusBadRequest, "minTempF"},
		{"a range on a door", map[string]any{"kind": "door", "maxTempF": "41"}, http.StatusBadRequest, "minTempF"},
		{"a bad temperature", map[string]any{"maxTempF": "4l"}, http.StatusBadRequest, ""},
		{"an unknown kind", map[string]any{"kind": "smoke"}, http.StatusBadRequest, ""},
		{"excursionMinutes 0", map[string]any{"excursionMinutes": 0}, http.StatusBadRequest, ""},
		{"an unknown gateway", map[string]any{"gatewayDeviceId": uuid.New()}, http.StatusNotFound, ""},
		{"an unknown location", map[string]any{"storageLocationId": uuid.New()}, http.StatusNotFound, ""},
		{"a taken externalId", map[string]any{}, http.StatusConflict, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := env.Call(http.MethodPost, k.path("sensors")).Token(k.token()).JSON(k.body("probe-7", c.over)).Do().Expect(c.status).Err()
			if c.field != "" {
				must(t, len(e.Details) == 1 && e.Details[0].Field == c.field, "details: %+v", e.Details)
			}
		})
	}
	must(t, k.count(`SELECT count(*) FROM sensors WHERE org_id = $1`, k.org) == 1, "a refused request wrote a sensor")
	// The kind stays.
	s := k.get(k.sensorID(t, "probe-7"))
	env.Call(http.MethodPut, k.path("sensors", s.ID.String())).Token(k.token()).JSON(k.body("probe-7", map[string]any{"kind": "humidity", "minTempF": nil, "storageLocationId": nil})).
		Do().Expect(http.StatusBadRequest)
}

func (k *kitchen) sensorID(t *testing.T, ext string) uuid.UUID {
	var id uuid.UUID
	if err := k.env.Pool.QueryRow(t.Context(), `SELECT id FROM sensors WHERE org_id = $1 AND external_id = $2`, k.org, ext).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// Another organization's sensor, gateway or location is 404 like a missing one; a member
// limited to another site neither sees nor registers the site's sensors; a viewer reads but
// does not write.
func TestSensorAccess(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Mine")
	them := newKitchen(t, env, "Theirs")
	s := k.sensor("probe-7", nil)
	theirs := them.sensor("probe-7", nil)

	env.Call(http.MethodGet, k.path("sensors", theirs.ID.String())).Token(k.token()).Do().ExpectError(http.StatusNotFound, "Sensor not found")
	env.Call(http.MethodPut, k.path("sensors", theirs.ID.String())).Token(k.token()).JSON(k.body("probe-7", nil)).Do().Expect(http.StatusNotFound)
	env.Call(http.MethodGet, k.path("sensors", theirs.ID.String(), "readings")).Token(k.token()).Do().Expect(http.StatusNotFound)
	env.Call(http.MethodPost, k.path("sensors")).Token(k.token()).JSON(k.body("probe-x", map[string]any{"gatewayDeviceId": them.gateway})).
		Do().ExpectError(http.StatusNotFound, "Device not found")
	env.Call(http.MethodPost, k.path("sensors")).Token(k.token()).JSON(k.body("probe-x", map[string]any{"storageLocationId": them.cooler})).
		Do().Expect(http.StatusNotFound)

	other := env.Site(k.token(), k.org, "Commissary")
	scoped := env.Member(k.org, "admin", other)
	env.Call(http.MethodGet, k.path("sensors", s.ID.String())).Token(scoped.AccessToken).Do().ExpectError(http.StatusNotFound, "Sensor not found")
	var list []sensor
	env.Call(http.MethodGet, k.path("sensors")).Token(scoped.AccessToken).Do().Expect(http.StatusOK).Decode(&list)
	must(t, len(list) == 0, "a scoped member sees another site's sensors: %+v", list)
	env.Call(http.MethodPost, k.path("sensors")).Token(scoped.AccessToken).JSON(k.body("probe-x", nil)).Do().Expect(http.StatusNotFound)
	env.Call(http.MethodPut, k.path("sensors", s.ID.String())).Token(scoped.AccessToken).JSON(k.body("probe-7", nil)).Do().Expect(http.StatusNotFound)

	viewer := env.Member(k.org, "viewer")
	env.Call(http.MethodGet, k.path("sensors", s.ID.String())).Token(viewer.AccessToken).Do().Expect(http.StatusOK)
	env.Call(http.MethodPost, k.path("sensors")).Token(viewer.AccessToken).JSON(k.body("probe-x", nil)).Do().Expect(http.StatusForbidden)
	env.Call(http.MethodPut, k.path("sensors", s.ID.String())).Token(viewer.AccessToken).JSON(k.body("probe-7", nil)).Do().Expect(http.StatusForbidden)
	must(t, k.count(`SELECT count(*) FROM sensors WHERE org_id = $1`, k.org) == 1, "a refused request wrote a sensor")

	// A gateway sends readings only for its own sensors: their gateway's probe-7 is not ours.
	res := them.send([]reading{{Sensor: "probe-7", At: env.Clock.Now(), Value: "38", Unit: "F"}})
	must(t, res.Accepted == 1, "their reading: %+v", res)
	must(t, k.count(`SELECT count(*) FROM sensor_readings WHERE sensor_id = $1`, s.ID) == 0, "their reading landed on our sensor")
}
