package sensors_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// A walk-in cooler that warms slowly, sent live one reading a minute: one excursion opens once
// it has been above 41 °F for 15 minutes (not before), its task follows due an hour later, and it
// resolves 15 minutes after the cooler is back in range, with its duration and peak.
func TestWarmingCoolerOpensOneExcursionThenResolves(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Warm")
	s := k.sensor("probe-7", nil)
	start := env.Clock.Now()
	rs := series("probe-7", start, 75, warming)
	for i, r := range rs {
		env.Clock.Set(r.At.Add(10 * time.Second))
		res := k.send([]reading{r})
		must(t, res.Accepted == 1 && res.Duplicates == 0 && len(res.Rejected) == 0, "minute %d: %+v", i, res)
		open := k.alerts("temperature_excursion", "open")
		switch {
		case i < 32:
			must(t, len(open) == 0, "minute %d: open before 15 minutes out of range: %+v", i, open)
		case i < 59:
			must(t, len(open) == 1, "minute %d: want one open excursion, got %+v", i, open)
		default:
			must(t, len(open) == 0, "minute %d: still open after 15 minutes back in range", i)
		}
		if i == 32 {
			a := open[0]
			must(t, a.Subject.Type == "sensor" && a.Subject.ID == s.ID && a.Severity == "critical", "alert: %+v", a)
			must(t, strings.Contains(a.Message, "Probe probe-7 (Walk-in cooler) above 41 °F since Mar 2") &&
				strings.Contains(a.Message, "worst 46 °F"), "message: %q", a.Message)
			var due time.Time
			err := env.Pool.QueryRow(t.Context(), `SELECT due_at FROM tasks WHERE org_id = $1 AND source = 'sensor_alert' AND source_id = $2`, k.org, a.ID).Scan(&due)
			must(t, err == nil && due.Equal(env.Clock.Now().Add(time.Hour)), "task due %v (%v), want an hour after %v", due, err, env.Clock.Now())
			got := k.get(s.ID)
			must(t, got.Excursion != nil && got.Excursion.StartedAt.Equal(start.Add(17*time.Minute)) && got.Excursion.Peak == "46" &&
				got.Excursion.AlertID != nil && *got.Excursion.AlertID == a.ID, "sensor excursion: %+v", got.Excursion)
		}
	}
	resolved := k.alerts("temperature_excursion", "resolved")
	must(t, len(resolved) == 1 && strings.Contains(resolved[0].Message, "(27 min), peak 46 °F"), "resolved: %+v", resolved)
	must(t, k.count(`SELECT count(*) FROM events WHERE org_id = $1 AND name = 'alert.created'`, k.org) == 1, "one alert.created")
	must(t, k.count(`SELECT count(*) FROM tasks WHERE org_id = $1 AND source = 'sensor_alert'`, k.org) == 1, "one task")
	got := k.get(s.ID)
	must(t, got.Excursion == nil && got.LastReading != nil && got.LastReading.Value == "38", "sensor after: %+v", got)
	var ended, peak string
	if err := env.Pool.QueryRow(t.Context(), `SELECT (ended_at - started_at)::text, peak::text FROM sensor_excursions WHERE sensor_id = $1`, s.ID).Scan(&ended, &peak); err != nil {
		t.Fatal(err)
	}
	must(t, ended == "00:27:00" && peak == "46", "excursion row: %s %s", ended, peak)
}

// A delivery: the door stands open 6 minutes and the cooler spikes to 50 °F for 5 minutes,
// then both recover. Nothing opens.
func TestDeliverySpikeOpensNothing(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Delivery")
	k.sensor("probe-7", nil)
	k.sensor("door-1", map[string]any{"kind": "door", "name": "Walk-in door", "minTempF": nil})
	start := env.Clock.Now()
	var rs []reading
	for i := range 40 {
		at := start.Add(time.Duration(i) * time.Minute)
		v, door := "38", "closed"
		if i >= 10 && i < 15 {
			v = "50"
		}
		if i >= 9 && i < 15 {
			door = "open"
		}
		rs = append(rs, reading{Sensor: "probe-7", At: at, Value: v, Unit: "F"}, reading{Sensor: "door-1", At: at, Value: "0", Unit: door})
	}
	env.Clock.Set(start.Add(40 * time.Minute))
	res := k.send(rs)
	must(t, res.Accepted == 80, "accepted %+v", res)
	must(t, len(k.alerts("temperature_excursion", "open"))+len(k.alerts("door_open", "open")) == 0, "a spike opened an alert")
	must(t, k.count(`SELECT count(*) FROM sensor_excursions`) == 0, "a spike recorded an excursion")
}

// A door left open 20 minutes opens door_open once; it closes 15 minutes after the door shuts.
func TestDoorLeftOpen(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Door")
	d := k.sensor("door-1", map[string]any{"kind": "door", "name": "Walk-in door"})
	start := env.Clock.Now()
	var rs []reading
	for i := range 60 {
		unit := "closed"
		if i >= 5 && i < 25 {
			unit = "open"
		}
		rs = append(rs, reading{Sensor: "door-1", At: start.Add(time.Duration(i) * time.Minute), Value: "1", Unit: unit})
	}
	env.Clock.Set(start.Add(21 * time.Minute))
	k.send(rs[:21]) // open 16 minutes
	open := k.alerts("door_open", "open")
	must(t, len(open) == 1 && open[0].Subject.ID == d.ID && open[0].Severity == "warning" &&
		strings.Contains(open[0].Message, "Walk-in door (Walk-in cooler) open since"), "open: %+v", open)
	env.Clock.Set(start.Add(60 * time.Minute))
	k.send(rs[21:])
	resolved := k.alerts("door_open", "resolved")
	must(t, len(resolved) == 1 && strings.Contains(resolved[0].Message, "(20 min)"), "resolved: %+v", resolved)
}

// A gateway offline for an hour that then flushes its buffer (oldest first, in three calls)
// produces the same alerts as the same readings sent live, and its silence alert closes.
func TestBufferedFlushMatchesLive(t *testing.T) {
	env := apitest.New(t)
	live := newKitchen(t, env, "Live")
	buffered := newKitchen(t, env, "Buffered")
	live.sensor("probe-7", nil)
	buffered.sensor("probe-7", nil)
	start := env.Clock.Now()
	rs := series("probe-7", start, 75, warming)
	for _, r := range rs {
		env.Clock.Set(r.At.Add(10 * time.Second))
		live.send([]reading{r})
	}
	// The buffered gateway spoke once at the start, then went silent: the sweep reports it.
	env.Clock.Set(start.Add(75 * time.Minute))
	sweep := alerts.SensorTask(env.Pool, env.Clock)
	if err := sweep.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	must(t, len(buffered.alerts("sensor_offline", "open")) == 1, "the silent gateway is not reported")
	for _, part := range [][]reading{rs[:30], rs[30:50], rs[50:]} {
		buffered.send(part)
	}
	must(t, len(buffered.alerts("sensor_offline", "open")) == 0, "the gateway's flush did not close its silence alert")
	for _, status := range []string{"open", "resolved"} {
		l, b := live.alerts("temperature_excursion", status), buffered.alerts("temperature_excursion", status)
		must(t, len(l) == len(b), "%s: live %d, buffered %d", status, len(l), len(b))
		for i := range l {
			must(t, l[i].Message == b[i].Message && l[i].Severity == b[i].Severity, "%s: live %q, buffered %q", status, l[i].Message, b[i].Message)
		}
	}
	must(t, len(buffered.alerts("temperature_excursion", "resolved")) == 1, "the flush opened no excursion")
}

// Resending a batch (a lost answer) stores nothing new and opens nothing more.
func TestResendChangesNothing(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Resend")
	s := k.sensor("probe-7", nil)
	start := env.Clock.Now()
	rs := series("probe-7", start, 40, warming)
	env.Clock.Set(start.Add(40 * time.Minute))
	first := k.send(rs)
	must(t, first.Accepted == 40 && first.Duplicates == 0, "first: %+v", first)
	before := k.get(s.ID)
	again := k.send(rs)
	must(t, again.Accepted == 0 && again.Duplicates == 40 && len(again.Rejected) == 0, "again: %+v", again)
	after := k.get(s.ID)
	must(t, before.LastReading.At.Equal(after.LastReading.At) && before.Excursion != nil && after.Excursion != nil &&
		before.Excursion.StartedAt.Equal(after.Excursion.StartedAt), "the resend moved the sensor: %+v → %+v", before, after)
	must(t, k.count(`SELECT count(*) FROM sensor_readings WHERE sensor_id = $1`, s.ID) == 40, "readings stored twice")
	must(t, k.count(`SELECT count(*) FROM events WHERE org_id = $1 AND name = 'alert.created'`, k.org) == 1, "alerts opened again")
	// The same reading twice in one call counts once.
	dup := k.send([]reading{rs[0], rs[0]})
	must(t, dup.Accepted == 0 && dup.Duplicates == 2, "dup: %+v", dup)
}

// 20 gateways' worth of the same flush at once (overlapping windows): one excursion, one alert,
// one alert.created, one task.
func TestConcurrentFlushesOpenOneAlert(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Race")
	k.sensor("probe-7", nil)
	start := env.Clock.Now()
	rs := series("probe-7", start, 60, warming)
	env.Clock.Set(start.Add(60 * time.Minute))
	var wg sync.WaitGroup
	results := make([]result, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			from := i % 5 * 5 // windows starting at 0..20 minutes, all covering the excursion's opening
			env.With(t).Call(http.MethodPost, "device/readings").DeviceToken(k.gwToken).
				JSON(map[string]any{"readings": rs[from:]}).Do().Expect(http.StatusOK).Decode(&results[i])
		}()
	}
	wg.Wait()
	accepted := 0
	for _, r := range results {
		accepted += r.Accepted
	}
	must(t, accepted == 60, "accepted %d readings in all, want each once", accepted)
	must(t, k.count(`SELECT count(*) FROM sensor_excursions`) == 1, "excursions recorded")
	must(t, k.count(`SELECT count(*) FROM alerts WHERE org_id = $1 AND kind = 'temperature_excursion'`, k.org) == 1, "alerts opened")
	must(t, k.count(`SELECT count(*) FROM events WHERE org_id = $1 AND name = 'alert.created'`, k.org) == 1, "alert.created events")
	must(t, k.count(`SELECT count(*) FROM tasks WHERE org_id = $1 AND source = 'sensor_alert'`, k.org) == 1, "tasks made")
}

// A gateway that reconnects, sends its current reading, then flushes the hour it buffered: the
// late readings are judged in their place in time, and the alerts are those of live readings.
func TestBufferFlushedAfterCurrentReading(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Late")
	k.sensor("probe-7", nil)
	start := env.Clock.Now()
	rs := series("probe-7", start, 75, warming)
	env.Clock.Set(start.Add(75 * time.Minute))
	k.send(rs[:5])  // before the outage
	k.send(rs[74:]) // back online: the current reading first
	k.send(rs[5:74])
	resolved := k.alerts("temperature_excursion", "resolved")
	must(t, len(resolved) == 1 && strings.Contains(resolved[0].Message, "(27 min), peak 46 °F"), "resolved: %+v", resolved)
	must(t, len(k.alerts("temperature_excursion", "open")) == 0, "left open")
	must(t, k.count(`SELECT count(*) FROM tasks WHERE org_id = $1 AND source = 'sensor_alert'`, k.org) == 1, "one task")
}

// Late readings that fall inside an excursion already alerted do not rewrite it: one alert.
func TestLateReadingsInsideAnExcursionChangeNothing(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Inside")
	s := k.sensor("probe-7", nil)
	start := env.Clock.Now()
	rs := series("probe-7", start, 50, warming)
	env.Clock.Set(start.Add(50 * time.Minute))
	k.send(rs)
	// In-range readings between the excursion's minutes: they would have broken the run.
	var late []reading
	for i := 18; i < 40; i += 3 {
		late = append(late, reading{Sensor: "probe-7", At: start.Add(time.Duration(i)*time.Minute + 30*time.Second), Value: "38", Unit: "F"})
	}
	res := k.send(late)
	must(t, res.Accepted == len(late), "late: %+v", res)
	must(t, k.count(`SELECT count(*) FROM sensor_excursions WHERE sensor_id = $1`, s.ID) == 1, "excursions")
	must(t, k.count(`SELECT count(*) FROM events WHERE org_id = $1 AND name = 'alert.created'`, k.org) == 1, "alerts opened again")
	must(t, len(k.alerts("temperature_excursion", "open")) == 1, "the excursion is not open")
}

// Late readings more than a week behind the last judged one are logged, not judged.
func TestLateReadingsBeyondTheReplayWindowAreOnlyLogged(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Week")
	s := k.sensor("probe-7", nil)
	now := env.Clock.Now()
	k.send([]reading{{Sensor: "probe-7", At: now, Value: "38", Unit: "F"}})
	res := k.send(series("probe-7", now.Add(-8*24*time.Hour), 75, warming))
	must(t, res.Accepted == 75, "late: %+v", res)
	must(t, k.count(`SELECT count(*) FROM sensor_excursions WHERE sensor_id = $1`, s.ID) == 0, "judged beyond the window")
	res = k.send(series("probe-7", now.Add(-6*24*time.Hour), 75, warming))
	must(t, res.Accepted == 75 && k.count(`SELECT count(*) FROM sensor_excursions WHERE sensor_id = $1`, s.ID) == 1, "not judged within the window")
}
