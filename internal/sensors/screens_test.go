package sensors_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

type stateTemperature struct {
	SensorID   uuid.UUID  `json:"sensorId"`
	Sensor     string     `json:"sensor"`
	Location   *string    `json:"location"`
	At         *time.Time `json:"at"`
	ValueF     *string    `json:"valueF"`
	AgeMinutes *int       `json:"ageMinutes"`
	InRange    *bool      `json:"inRange"`
	MinTempF   *string    `json:"minTempF"`
	MaxTempF   *string    `json:"maxTempF"`
	Excursion  bool       `json:"excursion"`
}

// A kitchen wallboard shows each active temperature probe of its site: the latest reading in
// °F, its age in whole minutes and whether it is in range; a probe never heard has no reading;
// other sites' probes and inactive ones are not shown; a menu board carries no temperatures.
func TestWallboardShowsLiveTemperatures(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Screens")
	_, board := env.PairDevice(k.token(), k.org, k.site, "wallboard_boh")
	_, menu := env.PairDevice(k.token(), k.org, k.site, "menu_board")
	freezer := k.location(k.site, "Anteroom")
	cooler := k.sensor("probe-1", nil)
	warm := k.sensor("probe-2", map[string]any{"storageLocationId": freezer, "maxTempF": "38"})
	quiet := k.sensor("probe-3", map[string]any{"storageLocationId": nil, "name": "Spare probe"})
	k.sensor("probe-4", map[string]any{"active": false})
	other := env.Site(k.token(), k.org, "Commissary")
	otherGw, otherToken := env.PairDevice(k.token(), k.org, other, "sensor_gateway")
	env.Call(http.MethodPost, k.path("sensors")).Token(k.token()).
		JSON(k.body("far", map[string]any{"siteId": other, "gatewayDeviceId": otherGw, "storageLocationId": nil})).Do().Expect(http.StatusCreated)
	t0 := env.Clock.Now()
	k.send([]reading{{Sensor: "probe-1", At: t0, Value: "3.5", Unit: "C"}, {Sensor: "probe-2", At: t0.Add(-90 * time.Second), Value: "39.5", Unit: "F"}})
	env.Call(http.MethodPost, "device/readings").DeviceToken(otherToken).JSON(map[string]any{"readings": []reading{{Sensor: "far", At: t0, Value: "50", Unit: "F"}}}).
		Do().Expect(http.StatusOK)

	env.Clock.Set(t0.Add(2*time.Minute + 30*time.Second))
	var st struct {
		Temperatures []stateTemperature `json:"temperatures"`
	}
	env.Call(http.MethodGet, "device/state").DeviceToken(board).Do().Expect(http.StatusOK).Decode(&st)
	must(t, len(st.Temperatures) == 3, "temperatures: %+v", st.Temperatures)
	// By location name: Anteroom, Walk-in cooler, then the probe with none.
	a, c, q := st.Temperatures[0], st.Temperatures[1], st.Temperatures[2]
	// probe-2: 39.5 °F against its own 38 °F limit, read 90 s before t0: 4 whole minutes at t0 + 2.5 min.
	must(t, a.SensorID == warm.ID && *a.Location == "Anteroom" && *a.ValueF == "39.5" && *a.AgeMinutes == 4 && !*a.InRange &&
		*a.MaxTempF == "38" && *a.MinTempF == "33" && !a.Excursion, "anteroom: %+v", a)
	// probe-1: 3.5 °C = 3.5 × 1.8 + 32 = 38.3 °F, in 33–41, 2 whole minutes old.
	must(t, c.SensorID == cooler.ID && *c.Location == "Walk-in cooler" && *c.ValueF == "38.3" && *c.AgeMinutes == 2 && *c.InRange &&
		c.At.Equal(t0), "cooler: %+v", c)
	must(t, q.SensorID == quiet.ID && q.Location == nil && q.At == nil && q.ValueF == nil && q.AgeMinutes == nil && q.InRange == nil, "quiet: %+v", q)

	var m map[string]any
	env.Call(http.MethodGet, "device/state").DeviceToken(menu).Do().Expect(http.StatusOK).Decode(&m)
	_, has := m["temperatures"]
	must(t, !has, "a menu board carries temperatures")
}
