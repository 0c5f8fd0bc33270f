package sensors_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// Per-reading problems are listed and the rest is taken; Celsius is kept in °F.
func TestReadingRejections(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Rejects")
	s := k.sensor("probe-7", nil)
	k.sensor("door-1", map[string]any{"kind": "door", "minTempF": nil})
	k.sensor("old-1", map[string]any{"active": false})
	now := env.Clock.Now()
	res := k.send([]reading{
		{Sensor: "probe-7", At: now.Add(-2 * time.Minute), Value: "3.5", Unit: "C"},
		{Sensor: "probe-9", At: now, Value: "38", Unit: "F"},
		{Sensor: "probe-7", At: now, Value: "38", Unit: "percent"},
		{Sensor: "door-1", At: now, Value: "38", Unit: "F"},
		{Sensor: "probe-7", At: now.Add(6 * time.Minute), Value: "38", Unit: "F"},
		{Sensor: "probe-7", At: now.AddDate(-2, 0, -1), Value: "38", Unit: "F"},
		{Sensor: "old-1", At: now, Value: "38", Unit: "F"},
		{Sensor: "probe-7", At: now.Add(4 * time.Minute), Value: "-0.5", Unit: "F"},
		{Sensor: "door-1", At: now, Value: "1", Unit: "open"},
	})
	must(t, res.Accepted == 3 && res.Duplicates == 0, "result: %+v", res)
	want := []string{"1 probe-9 unknown_sensor", "2 probe-7 unit_mismatch", "3 door-1 unit_mismatch", "4 probe-7 in_future", "5 probe-7 too_old", "6 old-1 inactive_sensor"}
	must(t, len(res.Rejected) == len(want), "rejected: %+v", res.Rejected)
	for i, r := range res.Rejected {
		must(t, fmt.Sprintf("%d %s %s", r.Index, r.Sensor, r.Reason) == want[i] && r.Message != "", "rejected[%d] = %+v, want %s", i, r, want[i])
	}
	var log struct {
		Readings []struct {
			At    time.Time `json:"at"`
			Value string    `json:"value"`
		} `json:"readings"`
	}
	env.Call(http.MethodGet, k.path("sensors", s.ID.String(), "readings")+"?to="+now.Add(time.Hour).Format(time.RFC3339)).Token(k.token()).
		Do().Expect(http.StatusOK).Decode(&log)
	must(t, len(log.Readings) == 2 && log.Readings[0].Value == "38.3" && log.Readings[1].Value == "-0.5", "log: %+v", log.Readings)
}

// Hostile or oversized input is 400 and nothing is stored; a screen's token cannot send readings.
func TestHostileReadings(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Hostile")
	k.sensor("probe-7", nil)
	now := env.Clock.Now()
	good := reading{Sensor: "probe-7", At: now, Value: "38", Unit: "F"}
	post := func(body any) *apitest.Response {
		return env.Call(http.MethodPost, "device/readings").DeviceToken(k.gwToken).JSON(body).Do()
	}
	for _, v := range []string{"38,5", "1e3", "NaN", "", " 38", "0x20", "123456789", "38.12345", "--1"} {
		post(map[string]any{"readings": []reading{good, {Sensor: "probe-7", At: now.Add(time.Minute), Value: v, Unit: "F"}}}).Expect(http.StatusBadRequest)
	}
	many := make([]reading, 1001)
	for i := range many {
		many[i] = reading{Sensor: "probe-7", At: now.Add(-time.Duration(i) * time.Second), Value: "38", Unit: "F"}
	}
	post(map[string]any{"readings": many}).Expect(http.StatusBadRequest)
	post(map[string]any{"readings": []reading{}}).Expect(http.StatusBadRequest)
	post(map[string]any{"readings": []any{map[string]any{"sensor": "probe-7", "at": "yesterday", "value": "38", "unit": "F"}}}).Expect(http.StatusBadRequest)
	post(map[string]any{"readings": []any{map[string]any{"sensor": "probe-7", "at": now, "value": "38", "unit": "K"}}}).Expect(http.StatusBadRequest)
	post(map[string]any{"readings": []reading{good}, "extra": 1}).Expect(http.StatusBadRequest)
	must(t, k.count(`SELECT count(*) FROM sensor_readings`) == 0, "a refused call stored readings")

	_, screen := env.PairDevice(k.token(), k.org, k.site, "wallboard_boh")
	e := env.Call(http.MethodPost, "device/readings").DeviceToken(screen).JSON(map[string]any{"readings": []reading{good}}).Do().Expect(http.StatusForbidden).Err()
	must(t, strings.Contains(e.Error, "sensor gateway"), "error: %+v", e)
	env.Call(http.MethodPost, "device/readings").DeviceToken("sous_dev_nope").JSON(map[string]any{"readings": []reading{good}}).Do().Expect(http.StatusUnauthorized)
	env.Call(http.MethodPost, "device/readings").Token(k.token()).JSON(map[string]any{"readings": []reading{good}}).Do().Expect(http.StatusUnauthorized)
	must(t, k.count(`SELECT count(*) FROM sensor_readings`) == 0, "a refused call stored readings")
	// 1,000 is fine.
	res := k.send(many[:1000])
	must(t, res.Accepted == 1000, "1000: %+v", res)
}

// The log: raw readings in [from, to), and min/mean/max per 5 minutes and per hour.
func TestReadingsLog(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Log")
	s := k.sensor("probe-7", nil)
	start := env.Clock.Now()
	rs := series("probe-7", start, 120, func(i int) string { return fmt.Sprint(36 + i%5) }) // 36..40 repeating
	env.Clock.Set(start.Add(2 * time.Hour))
	k.send(rs)
	type logBody struct {
		Unit     string `json:"unit"`
		Readings []struct {
			Value string `json:"value"`
		} `json:"readings"`
		Buckets []struct {
			At    time.Time `json:"at"`
			Min   string    `json:"min"`
			Mean  string    `json:"mean"`
			Max   string    `json:"max"`
			Count int       `json:"count"`
		} `json:"buckets"`
	}
	get := func(query string, status int) logBody {
		var b logBody
		r := env.Call(http.MethodGet, k.path("sensors", s.ID.String(), "readings")+query).Token(k.token()).Do().Expect(status)
		if status == http.StatusOK {
			r.Decode(&b)
		}
		return b
	}
	from, to := start.Format(time.RFC3339), start.Add(2*time.Hour).Format(time.RFC3339)
	raw := get("?from="+from+"&to="+start.Add(10*time.Minute).Format(time.RFC3339), http.StatusOK)
	must(t, len(raw.Readings) == 10 && raw.Unit == "F" && len(raw.Buckets) == 0, "raw: %+v", raw)
	five := get("?from="+from+"&to="+to+"&resolution=5m", http.StatusOK)
	must(t, len(five.Buckets) == 24, "5m buckets: %d", len(five.Buckets))
	b := five.Buckets[0]
	must(t, b.At.Equal(start) && b.Min == "36" && b.Mean == "38" && b.Max == "40" && b.Count == 5, "5m bucket: %+v", b)
	hourly := get("?from="+from+"&to="+to+"&resolution=1h", http.StatusOK)
	must(t, len(hourly.Buckets) == 2 && hourly.Buckets[1].Count == 60 && hourly.Buckets[1].Mean == "38", "1h: %+v", hourly.Buckets)
	get("?from="+to+"&to="+from, http.StatusBadRequest)
	get("?from="+start.AddDate(0, 0, -8).Format(time.RFC3339)+"&to="+to, http.StatusBadRequest)
	get("?resolution=1d", http.StatusBadRequest)
	get("?from=yesterday", http.StatusBadRequest)
}
