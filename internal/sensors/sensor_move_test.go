package sensors_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// readingsOf counts the readings stored for a sensor.
func (k *kitchen) readingsOf(id uuid.UUID) int {
	k.env.T.Helper()
	return k.count(`SELECT count(*) FROM sensor_readings WHERE sensor_id = $1`, id)
}

// secondSite is another site of the kitchen's organization, with a cooler and a paired gateway.
func (k *kitchen) secondSite() (site, cooler, gateway uuid.UUID) {
	k.env.T.Helper()
	site = k.env.Site(k.token(), k.org, "Commissary")
	gateway, _ = k.env.PairDevice(k.token(), k.org, site, "sensor_gateway")
	return site, k.location(site, "Commissary cooler"), gateway
}

// A sensor with readings keeps its site (409 sensor_has_readings, nothing changed): its readings
// and excursions were taken there, and the site's temperature log stays whole. It still moves
// to another gateway of its site, and a sensor that never reported moves anywhere.
func TestSensorWithReadingsKeepsItsSite(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Sensor move")
	commissary, commCooler, commGateway := k.secondSite()
	toCommissary := func(ext string) map[string]any {
		return k.body(ext, map[string]any{"siteId": commissary, "gatewayDeviceId": commGateway, "storageLocationId": commCooler})
	}

	used := k.sensor("probe-7", nil)
	res := k.send(series("probe-7", env.Clock.Now().Add(-30*60e9), 30, func(int) string { return "38" }))
	must(t, res.Accepted == 30, "readings: %+v", res)

	env.Call(http.MethodPut, k.path("sensors", used.ID.String())).Token(k.token()).JSON(toCommissary("probe-7")).
		Do().ExpectCode(http.StatusConflict, "sensor_has_readings")
	got := k.get(used.ID)
	must(t, got.SiteID == k.site && got.StorageLocationID != nil && *got.StorageLocationID == k.cooler, "the refused move changed the sensor: %+v", got)
	must(t, k.readingsOf(used.ID) == 30, "readings: %d", k.readingsOf(used.ID))

	// Its readings gone by retention, its state still holds the last: it keeps its site.
	if _, err := env.Pool.Exec(t.Context(), `DELETE FROM sensor_readings WHERE sensor_id = $1`, used.ID); err != nil {
		t.Fatal(err)
	}
	env.Call(http.MethodPut, k.path("sensors", used.ID.String())).Token(k.token()).JSON(toCommissary("probe-7")).
		Do().ExpectCode(http.StatusConflict, "sensor_has_readings")

	// Another gateway of its own site: the readings stay at the site, so it moves.
	spare, _ := env.PairDevice(k.token(), k.org, k.site, "sensor_gateway")
	env.Call(http.MethodPut, k.path("sensors", used.ID.String())).Token(k.token()).
		JSON(k.body("probe-7", map[string]any{"gatewayDeviceId": spare})).Do().Expect(http.StatusOK)
	must(t, k.get(used.ID).SiteID == k.site, "the sensor left its site")

	// Never reported: it moves to the commissary.
	fresh := k.sensor("probe-8", nil)
	var moved sensor
	env.Call(http.MethodPut, k.path("sensors", fresh.ID.String())).Token(k.token()).JSON(toCommissary("probe-8")).
		Do().Expect(http.StatusOK).Decode(&moved)
	must(t, moved.SiteID == commissary && *moved.StorageLocationID == commCooler, "the fresh sensor: %+v", moved)
	must(t, k.strays() == 0, "a sensor left its gateway's site")
}

// A sensor's first readings racing its move to another site: either the readings are stored and
// the move is refused, or the sensor moves and none of its old gateway's readings are stored
// (sent again after a 503, they are unknown_sensor). Never both.
func TestSensorMoveRacingItsReadings(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Race readings")
	commissary, commCooler, commGateway := k.secondSite()
	var moved, refused int
	for i := range 12 {
		ext := fmt.Sprintf("race-%d", i)
		s := k.sensor(ext, nil)
		rs := series(ext, env.Clock.Now().Add(-10*60e9), 5, func(int) string { return "38" })
		var wg sync.WaitGroup
		var moveCode, sendCode int
		var sent result
		wg.Go(func() {
			moveCode = env.With(t).Call(http.MethodPut, k.path("sensors", s.ID.String())).Token(k.token()).
				JSON(k.body(ext, map[string]any{"siteId": commissary, "gatewayDeviceId": commGateway, "storageLocationId": commCooler})).Do().Status
		})
		wg.Go(func() {
			res := env.With(t).Call(http.MethodPost, "device/readings").DeviceToken(k.gwToken).JSON(map[string]any{"readings": rs}).Do()
			sendCode = res.Status
			if sendCode == http.StatusOK {
				res.Decode(&sent)
			}
		})
		wg.Wait()
		if sendCode == http.StatusServiceUnavailable { // the move came between: sent again
			sent = k.send(rs)
		}
		n := k.readingsOf(s.ID)
		switch {
		case moveCode == http.StatusConflict:
			must(t, n == 5 && sent.Accepted == 5, "round %d: move refused, yet %d readings stored (%+v)", i, n, sent)
			refused++
		case moveCode == http.StatusOK:
			must(t, n == 0 && sent.Accepted == 0 && len(sent.Rejected) == 5 && sent.Rejected[0].Reason == "unknown_sensor",
				"round %d: the sensor moved, yet %d of its old gateway's readings stored (%+v)", i, n, sent)
			must(t, k.get(s.ID).SiteID == commissary, "round %d: moved sensor not at the commissary", i)
			moved++
		default:
			t.Fatalf("round %d: move %d, readings %d", i, moveCode, sendCode)
		}
		must(t, k.strays() == 0, "round %d: a sensor left its gateway's site", i)
	}
	t.Logf("moves refused %d, moves made %d", refused, moved)
}

// The move that commits after a call read its gateway's sensors and before it locked their
// states: the call stores none of the moved sensor's readings (503, nothing stored), and sent
// again they are unknown_sensor. The test holds the sensor's state as a call's lock would be
// waited on, and moves the sensor in that transaction as the move would.
func TestReadingsOfASensorMovedMeanwhileAreNotStored(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Moved meanwhile")
	commissary, commCooler, commGateway := k.secondSite()
	s := k.sensor("probe-9", nil)
	rs := series("probe-9", env.Clock.Now().Add(-10*60e9), 5, func(int) string { return "38" })
	ctx := t.Context()

	tx, err := env.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // committed below; a failed test rolls back
	if _, err := tx.Exec(ctx, `SELECT 1 FROM sensor_states WHERE sensor_id = $1 FOR UPDATE`, s.ID); err != nil {
		t.Fatal(err)
	}
	done := make(chan *apitest.Response, 1)
	go func() {
		done <- env.With(t).Call(http.MethodPost, "device/readings").DeviceToken(k.gwToken).JSON(map[string]any{"readings": rs}).Do()
	}()
	// Until a session of the server waits on the state's lock, the call must not answer.
	for waiting := 0; waiting == 0; {
		select {
		case res := <-done:
			t.Fatalf("the readings answered %d while their sensor's state was locked", res.Status)
		default:
		}
		if err := env.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event IN ('transactionid', 'tuple')`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE sensors SET site_id = $1, gateway_device_id = $2, storage_location_id = $3 WHERE id = $4`,
		commissary, commGateway, commCooler, s.ID); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	res := <-done
	must(t, res.Status == http.StatusServiceUnavailable && res.Header.Get("Retry-After") != "", "readings of the moved sensor: %d %s", res.Status, res.Body)
	must(t, k.readingsOf(s.ID) == 0, "%d readings stored at the commissary that were taken at the kitchen", k.readingsOf(s.ID))
	again := k.send(rs)
	must(t, again.Accepted == 0 && len(again.Rejected) == 5 && again.Rejected[0].Reason == "unknown_sensor", "sent again: %+v", again)
}
