package sensors_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/sensors"
)

// A probe that stops reporting while its gateway goes on sending the others' readings opens
// sensor_offline about the probe once it has been silent for 3 report intervals (60 s by
// default), not a moment before; 20 replicas sweeping at once open it once, with one
// alert.created and one task; its next reading closes it. A gateway silent as a whole opens
// its own alert, not one per probe.
func TestSilentSensorOpensOfflineOnceAndClosesOnReading(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Silent")
	live := k.sensor("probe-1", nil)
	dead := k.sensor("probe-2", nil)
	sweep := sensors.OfflineTask(env.Pool, env.Clock)
	run := func() {
		t.Helper()
		if err := sweep.Run(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	t0 := env.Clock.Now()
	lastDead := t0.Add(10 * time.Second)
	for i := range 4 { // minutes 0..3, at :10; probe-2 reports only at minute 0
		now := t0.Add(time.Duration(i)*time.Minute + 10*time.Second)
		env.Clock.Set(now)
		rs := []reading{{Sensor: "probe-1", At: now, Value: "38", Unit: "F"}}
		if i == 0 {
			rs = append(rs, reading{Sensor: "probe-2", At: now, Value: "38", Unit: "F"})
		}
		k.send(rs)
		run()
	}
	// At minute 3:10 probe-2 has been silent exactly 3 × 60 s: not yet.
	must(t, len(k.alerts("sensor_offline", "open")) == 0, "offline before 3 intervals: %+v", k.alerts("sensor_offline", "open"))

	now := lastDead.Add(3*time.Minute + time.Second)
	env.Clock.Set(now)
	k.send([]reading{{Sensor: "probe-1", At: now, Value: "38", Unit: "F"}})
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- sweep.Run(t.Context())
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err == nil, "sweep: %v", err)
	}
	open := k.alerts("sensor_offline", "open")
	must(t, len(open) == 1 && open[0].Subject.Type == "sensor" && open[0].Subject.ID == dead.ID && open[0].Severity == "warning", "open: %+v", open)
	must(t, strings.Contains(open[0].Message, "Sensor Probe probe-2 (Walk-in cooler) has sent no reading since Mar 2 03:00") &&
		strings.Contains(open[0].Message, "every 60 s"), "message: %q", open[0].Message)
	must(t, k.count(`SELECT count(*) FROM events WHERE org_id = $1 AND name = 'alert.created'`, k.org) == 1, "one alert.created")
	must(t, k.count(`SELECT count(*) FROM tasks WHERE org_id = $1 AND source = 'sensor_alert'`, k.org) == 1, "one task")
	run()
	must(t, k.count(`SELECT count(*) FROM alerts WHERE org_id = $1 AND kind = 'sensor_offline'`, k.org) == 1, "swept again: still one")
	must(t, k.count(`SELECT count(*) FROM alerts WHERE org_id = $1 AND subject_id = $2`, k.org, live.ID) == 0, "the live probe is not offline")

	// probe-2 reports again: the call closes its alert.
	now = now.Add(30 * time.Second)
	env.Clock.Set(now)
	k.send([]reading{{Sensor: "probe-1", At: now, Value: "38", Unit: "F"}, {Sensor: "probe-2", At: now, Value: "38", Unit: "F"}})
	must(t, len(k.alerts("sensor_offline", "open")) == 0, "still open after a reading")
	resolved := k.alerts("sensor_offline", "resolved")
	must(t, len(resolved) == 1 && resolved[0].Subject.ID == dead.ID, "resolved: %+v", resolved)

	// The whole gateway falls silent: its probes are not reported one by one, the gateway is.
	env.Clock.Set(now.Add(11 * time.Minute))
	run()
	if err := alerts.SensorTask(env.Pool, env.Clock).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	open = k.alerts("sensor_offline", "open")
	must(t, len(open) == 1 && open[0].Subject.Type == "device" && open[0].Subject.ID == k.gateway, "a silent gateway: %+v", open)
	run()
	must(t, len(k.alerts("sensor_offline", "open")) == 1, "the probe sweep closed or added to the gateway's alert")
}

// A silent sensor's alert closes on the sweep when the sensor is deactivated; a member who
// resolves it while the silence goes on does not see it again for the same silence.
func TestSilentSensorAlertClosesWhenDeactivated(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Deactivated")
	k.sensor("probe-1", nil)
	dead := k.sensor("probe-2", nil)
	sweep := sensors.OfflineTask(env.Pool, env.Clock)
	t0 := env.Clock.Now()
	k.send([]reading{{Sensor: "probe-1", At: t0, Value: "38", Unit: "F"}, {Sensor: "probe-2", At: t0, Value: "38", Unit: "F"}})
	now := t0.Add(4 * time.Minute)
	env.Clock.Set(now)
	k.send([]reading{{Sensor: "probe-1", At: now, Value: "38", Unit: "F"}})
	must(t, sweep.Run(t.Context()) == nil, "sweep")
	open := k.alerts("sensor_offline", "open")
	must(t, len(open) == 1 && open[0].Subject.ID == dead.ID, "open: %+v", open)

	env.Call(http.MethodPost, k.path("alerts", open[0].ID.String(), "resolve")).Token(k.token()).Do().Expect(http.StatusOK)
	must(t, sweep.Run(t.Context()) == nil, "sweep")
	must(t, len(k.alerts("sensor_offline", "open")) == 0, "reopened for the same silence")

	// A new silence (a reading, then quiet again) opens again; deactivating the probe closes it.
	now = now.Add(time.Minute)
	env.Clock.Set(now)
	k.send([]reading{{Sensor: "probe-1", At: now, Value: "38", Unit: "F"}, {Sensor: "probe-2", At: now, Value: "38", Unit: "F"}})
	now = now.Add(4 * time.Minute)
	env.Clock.Set(now)
	k.send([]reading{{Sensor: "probe-1", At: now, Value: "38", Unit: "F"}})
	must(t, sweep.Run(t.Context()) == nil, "sweep")
	must(t, len(k.alerts("sensor_offline", "open")) == 1, "a new silence did not open")
	env.Call(http.MethodPut, k.path("sensors", dead.ID.String())).Token(k.token()).JSON(k.body("probe-2", map[string]any{"active": false})).
		Do().Expect(http.StatusOK)
	must(t, sweep.Run(t.Context()) == nil, "sweep")
	must(t, len(k.alerts("sensor_offline", "open")) == 0, "an inactive probe's alert stays open")
}
