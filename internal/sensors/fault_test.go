package sensors_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/metrics"
)

// Physically impossible values are refused one by one as implausible, at the bounds exactly:
// a temperature must be above absolute zero and at most 1000 °C, a humidity within 0–100 %; a
// door's value is never read. Nothing implausible is stored or judged.
func TestImplausibleReadingsAreRefused(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Implausible")
	probe := k.sensor("probe-7", map[string]any{"storageLocationId": nil}) // no range: nothing judged
	k.sensor("hum-1", map[string]any{"kind": "humidity", "storageLocationId": nil})
	k.sensor("door-1", map[string]any{"kind": "door", "storageLocationId": nil})
	implausibleBefore := testutil.ToFloat64(metrics.SensorReadings.WithLabelValues("implausible"))
	acceptedBefore := testutil.ToFloat64(metrics.SensorReadings.WithLabelValues("accepted"))
	now := env.Clock.Now()
	at := func(i int) time.Time { return now.Add(-time.Duration(60-i) * time.Minute) }
	res := k.send([]reading{
		{Sensor: "probe-7", At: at(0), Value: "-273.16", Unit: "C"},
		{Sensor: "probe-7", At: at(1), Value: "-273.15", Unit: "C"},
		{Sensor: "probe-7", At: at(2), Value: "-459.67", Unit: "F"},
		{Sensor: "probe-7", At: at(3), Value: "-459.66", Unit: "F"},
		{Sensor: "probe-7", At: at(4), Value: "1000", Unit: "C"},
		{Sensor: "probe-7", At: at(5), Value: "1000.0001", Unit: "C"},
		{Sensor: "probe-7", At: at(6), Value: "1832", Unit: "F"},
		{Sensor: "probe-7", At: at(7), Value: "99999", Unit: "F"},
		{Sensor: "probe-7", At: at(8), Value: "-99999", Unit: "F"},
		{Sensor: "hum-1", At: at(9), Value: "-0.0001", Unit: "percent"},
		{Sensor: "hum-1", At: at(10), Value: "0", Unit: "percent"},
		{Sensor: "hum-1", At: at(11), Value: "100", Unit: "percent"},
		{Sensor: "hum-1", At: at(12), Value: "100.5", Unit: "percent"},
		{Sensor: "door-1", At: at(13), Value: "99999", Unit: "open"},
	})
	must(t, res.Accepted == 6, "accepted %d: %+v", res.Accepted, res)
	want := []int{0, 1, 2, 5, 7, 8, 9, 12}
	must(t, len(res.Rejected) == len(want), "rejected: %+v", res.Rejected)
	for i, r := range res.Rejected {
		must(t, r.Index == want[i] && r.Reason == "implausible" && strings.Contains(r.Message, "sensor fault"), "rejected[%d] = %+v, want index %d", i, r, want[i])
	}
	must(t, strings.Contains(res.Rejected[0].Message, "-273.16 °C"), "message: %q", res.Rejected[0].Message)
	must(t, k.count(`SELECT count(*) FROM sensor_readings WHERE sensor_id = $1`, probe.ID) == 3, "implausible readings were stored")
	must(t, k.count(`SELECT count(*) FROM sensor_readings WHERE value < -459.67 OR value > 1832`) == 0, "an impossible value was stored")
	must(t, testutil.ToFloat64(metrics.SensorReadings.WithLabelValues("implausible"))-implausibleBefore == 8, "implausible readings counted")
	must(t, testutil.ToFloat64(metrics.SensorReadings.WithLabelValues("accepted"))-acceptedBefore == 6, "accepted readings counted")
}

// Three impossible readings in a row are a sensor fault (sensor_fault, warning), not an
// excursion; a plausible reading in between restarts the count, a resent or late one counts
// once or not at all, and the next plausible reading closes the alert.
func TestImplausibleRunOpensSensorFault(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Fault")
	probe := k.sensor("probe-7", nil) // the cooler's 33–41 °F, 15 minutes
	start := env.Clock.Now()
	at := func(i int) time.Time { return start.Add(time.Duration(i) * time.Minute) }
	send := func(i int, value string) result {
		env.Clock.Set(at(i))
		return k.send([]reading{{Sensor: "probe-7", At: at(i), Value: value, Unit: "F"}})
	}
	faults := func(status string) []alert { return k.alerts("sensor_fault", status) }

	send(0, "38")
	send(1, "-3000")
	send(2, "-3000")
	send(3, "38") // the run ends at 2
	send(4, "99999")
	send(5, "99999")
	res := send(5, "99999") // resent: counted once
	must(t, len(res.Rejected) == 1 && res.Rejected[0].Reason == "implausible", "resend: %+v", res)
	must(t, len(faults("open")) == 0, "a fault opened before three in a row: %+v", faults("open"))
	// A late impossible reading from a buffer, older than readings already taken, is no part of the run.
	k.send([]reading{{Sensor: "probe-7", At: at(3).Add(-30 * time.Second), Value: "99999", Unit: "F"}})
	must(t, len(faults("open")) == 0, "a late reading made the run: %+v", faults("open"))

	send(6, "99999") // the third in a row
	open := faults("open")
	must(t, len(open) == 1 && open[0].Severity == "warning" && open[0].Subject.Type == "sensor" && open[0].Subject.ID == probe.ID, "open faults: %+v", open)
	must(t, strings.Contains(open[0].Message, "Probe probe-7 (Walk-in cooler)") && strings.Contains(open[0].Message, "99999 °F"), "message: %q", open[0].Message)
	for i := 7; i < 30; i++ {
		send(i, "99999") // a probe shorted for 23 more minutes: still one fault, and no excursion
	}
	must(t, len(faults("open")) == 1, "faults: %+v", faults("open"))
	must(t, k.count(`SELECT count(*) FROM alerts WHERE org_id = $1 AND kind = 'sensor_fault'`, k.org) == 1, "sensor_fault alerts")
	must(t, k.count(`SELECT count(*) FROM events WHERE org_id = $1 AND name = 'alert.created' AND data->>'kind' = 'sensor_fault'`, k.org) == 1, "alert.created events")
	must(t, k.count(`SELECT count(*) FROM tasks WHERE org_id = $1 AND source = 'sensor_alert' AND source_id = $2`, k.org, open[0].ID) == 1, "the fault's follow-up task")
	must(t, k.count(`SELECT count(*) FROM sensor_excursions`) == 0 && len(k.alerts("temperature_excursion", "open")) == 0, "an impossible reading opened an excursion")
	must(t, k.get(probe.ID).LastReading.Value == "38", "last reading: %+v", k.get(probe.ID).LastReading)

	send(30, "38.5") // the probe is mended
	must(t, len(faults("open")) == 0, "the fault stayed open: %+v", faults("open"))
	closed := faults("resolved")
	must(t, len(closed) == 1 && closed[0].ResolvedAt != nil, "resolved faults: %+v", closed)

	// A member may resolve a fault while the probe still reads the impossible; the same run does
	// not open it again, a new one does.
	for i := 31; i < 34; i++ {
		send(i, "-500")
	}
	again := faults("open")
	must(t, len(again) == 1, "a new run opened no fault: %+v", again)
	env.Call(http.MethodPost, k.path("alerts", again[0].ID.String(), "resolve")).Token(k.token()).Do().Expect(http.StatusOK)
	send(34, "-500")
	must(t, len(faults("open")) == 0, "the resolved fault reopened within its run")
}

// Gateways resending overlapping windows of impossible readings at once: each reading counts
// once and the fault opens once.
func TestConcurrentImplausibleReadingsOpenOneFault(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Fault race")
	probe := k.sensor("probe-7", nil)
	start := env.Clock.Now()
	rs := series("probe-7", start, 10, func(int) string { return "-1000" })
	env.Clock.Set(start.Add(10 * time.Minute))
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			from := i % 5
			var res result
			env.With(t).Call(http.MethodPost, "device/readings").DeviceToken(k.gwToken).
				JSON(map[string]any{"readings": rs[from : from+5]}).Do().Expect(http.StatusOK).Decode(&res)
			if len(res.Rejected) != 5 {
				t.Errorf("call %d: %+v", i, res)
			}
		}()
	}
	wg.Wait()
	must(t, k.count(`SELECT count(*) FROM alerts WHERE org_id = $1 AND kind = 'sensor_fault'`, k.org) == 1, "sensor_fault alerts")
	// Each reading counts once, and only after the latest counted: 9 distinct, of which a call
	// that came after a later window counted none of its earlier ones.
	run := k.count(`SELECT fault_run FROM sensor_states WHERE sensor_id = $1`, probe.ID)
	must(t, run >= 5 && run <= 9, "fault run %d", run)
	must(t, k.count(`SELECT count(*) FROM sensor_readings`) == 0, "impossible readings were stored")
}

// The metric's outcomes are the spec's rejection reasons, each there from the start.
func TestReadingOutcomesAreTheSpecsReasons(t *testing.T) {
	reasons := []api.ReadingRejectionReason{api.UnknownSensor, api.InactiveSensor, api.UnitMismatch, api.InFuture, api.TooOld, api.Implausible}
	must(t, len(reasons) == len(metrics.ReadingRejections), "metrics.ReadingRejections: %v", metrics.ReadingRejections)
	for i, r := range reasons {
		must(t, r.Valid() && metrics.ReadingRejections[i] == string(r), "reason %d: %s, metrics has %v", i, r, metrics.ReadingRejections)
	}
	// accepted, duplicate, other and each reason: made at start, and no other label is ever made.
	n := testutil.CollectAndCount(metrics.SensorReadings, "sous_sensor_readings_total")
	must(t, n == 3+len(reasons), "sous_sensor_readings_total has %d series, want %d", n, 3+len(reasons))
}
