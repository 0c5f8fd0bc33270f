package sensors_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// strays counts the organization's sensors whose gateway is at another site or is no longer a
// sensor gateway: the state issue 40 (N4) found, which nothing may reach.
func (k *kitchen) strays() int {
	k.env.T.Helper()
	return k.count(`SELECT count(*) FROM sensors s JOIN devices d ON d.org_id = s.org_id AND d.id = s.gateway_device_id
		WHERE s.org_id = $1 AND (s.site_id <> d.site_id OR d.kind <> 'sensor_gateway')`, k.org)
}

// A gateway with sensors keeps its site and kind (409 gateway_has_sensors): its sensors, their
// readings and any excursion stay at the site they were taken at. A rename still works, and a
// gateway without sensors moves.
func TestGatewayWithSensorsKeepsItsSiteAndKind(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Move")
	s := k.sensor("probe-7", nil)
	commissary := env.Site(k.token(), k.org, "Commissary")
	gw := k.path("devices", k.gateway.String())

	env.Call(http.MethodPut, gw).Token(k.token()).JSON(map[string]any{"siteId": commissary}).Do().ExpectCode(http.StatusConflict, "gateway_has_sensors")
	env.Call(http.MethodPut, gw).Token(k.token()).JSON(map[string]any{"kind": "wallboard_boh"}).Do().ExpectCode(http.StatusConflict, "gateway_has_sensors")
	var d struct {
		Name   string    `json:"name"`
		Kind   string    `json:"kind"`
		SiteID uuid.UUID `json:"siteId"`
	}
	env.Call(http.MethodPut, gw).Token(k.token()).JSON(map[string]any{"name": "Cold room gateway", "siteId": k.site}).Do().Expect(http.StatusOK).Decode(&d)
	must(t, d.Name == "Cold room gateway" && d.Kind == "sensor_gateway" && d.SiteID == k.site, "renamed gateway: %+v", d)
	must(t, k.get(s.ID).SiteID == k.site && k.strays() == 0, "the sensor left its gateway's site")

	// Without sensors it moves, and changes kind.
	spare, _ := env.PairDevice(k.token(), k.org, k.site, "sensor_gateway")
	env.Call(http.MethodPut, k.path("devices", spare.String())).Token(k.token()).JSON(map[string]any{"siteId": commissary}).Do().Expect(http.StatusOK)
	env.Call(http.MethodPut, k.path("devices", spare.String())).Token(k.token()).JSON(map[string]any{"kind": "wallboard_boh"}).Do().Expect(http.StatusOK)
}

// The finding's scenario: an admin limited to the commissary can neither move the main
// kitchen's gateway there nor pair it, so it can never send the main kitchen's readings. And a
// gateway already moved with its sensors before the rule existed (its rows written around the
// constraint, as an old database may hold them) sends nothing for the sensors it left behind.
func TestSiteLimitedAdminCannotWriteAnotherSitesReadings(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Scoped")
	s := k.sensor("probe-7", nil)
	commissary := env.Site(k.token(), k.org, "Commissary")
	scoped := env.Member(k.org, "admin", commissary)
	gw := k.path("devices", k.gateway.String())

	env.Call(http.MethodPut, gw).Token(scoped.AccessToken).JSON(map[string]any{"siteId": commissary}).Do().ExpectError(http.StatusNotFound, "Device not found")
	env.Call(http.MethodPost, gw+"/pair").Token(scoped.AccessToken).Do().ExpectError(http.StatusNotFound, "Device not found")
	env.Call(http.MethodPut, gw).Token(k.token()).JSON(map[string]any{"siteId": commissary}).Do().ExpectCode(http.StatusConflict, "gateway_has_sensors")
	env.Call(http.MethodPost, gw+"/pair").Token(scoped.AccessToken).Do().ExpectError(http.StatusNotFound, "Device not found")

	// An old database's stray: the gateway at the commissary, its sensor still at the kitchen.
	conn, err := env.Pool.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer conn.Release()
		if _, err := conn.Exec(t.Context(), `SET session_replication_role = replica`); err != nil {
			t.Fatal(err)
		}
		defer conn.Exec(t.Context(), `SET session_replication_role = DEFAULT`) //nolint:errcheck // the test fails on the next query anyway
		if _, err := conn.Exec(t.Context(), `UPDATE devices SET site_id = $1 WHERE id = $2`, commissary, k.gateway); err != nil {
			t.Fatal(err)
		}
	}()
	must(t, k.strays() == 1, "the stray was not written")
	var code struct {
		Code string `json:"code"`
	}
	env.Call(http.MethodPost, gw+"/pair").Token(scoped.AccessToken).Do().Expect(http.StatusCreated).Decode(&code)
	var claim struct {
		DeviceToken string `json:"deviceToken"`
	}
	env.Call(http.MethodPost, "devices/pair").JSON(map[string]string{"code": code.Code}).Do().Expect(http.StatusOK).Decode(&claim)
	k.gwToken = claim.DeviceToken
	res := k.send(series("probe-7", env.Clock.Now(), 30, func(int) string { return "60" }))
	must(t, res.Accepted == 0 && len(res.Rejected) == 30 && res.Rejected[0].Reason == "unknown_sensor", "the stray's readings: %+v", res)
	must(t, k.count(`SELECT count(*) FROM sensor_readings WHERE sensor_id = $1`, s.ID) == 0, "readings landed on the kitchen's sensor")
	must(t, k.count(`SELECT count(*) FROM alerts WHERE org_id = $1 AND kind = 'temperature_excursion'`, k.org) == 0, "an excursion opened at the kitchen")
}

// A move racing a sensor's registration on the same gateway: one of them wins, and no sensor
// is ever left at a site its gateway is not at.
func TestGatewayMoveRacingSensorCreate(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Race move")
	commissary := env.Site(k.token(), k.org, "Commissary")
	for i := range 8 {
		gateway, _ := env.PairDevice(k.token(), k.org, k.site, "sensor_gateway")
		var wg sync.WaitGroup
		var moved, created int
		wg.Add(2)
		go func() {
			defer wg.Done()
			moved = env.With(t).Call(http.MethodPut, k.path("devices", gateway.String())).Token(k.token()).
				JSON(map[string]any{"siteId": commissary}).Do().Status
		}()
		go func() {
			defer wg.Done()
			created = env.With(t).Call(http.MethodPost, k.path("sensors")).Token(k.token()).
				JSON(k.body(fmt.Sprintf("probe-%d", i), map[string]any{"gatewayDeviceId": gateway})).Do().Status
		}()
		wg.Wait()
		ok := moved == http.StatusOK && created == http.StatusBadRequest || moved == http.StatusConflict && created == http.StatusCreated
		must(t, ok, "round %d: move %d, create %d", i, moved, created)
		must(t, k.strays() == 0, "round %d: a sensor was left at its gateway's old site", i)
	}
}
