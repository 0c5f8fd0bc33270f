package sensors

import (
	"os"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
)

// knownLog is three days of 5-minute buckets at a Chicago site for two sensors: the walk-in
// (33–41 °F) with out-of-range values at known buckets and 70 excursions, and a probe with no
// range. Bucket i of the walk-in, counted from the period's start, reads:
//
//	i % 100 == 10: 36 / 37.5 / 42.5   the maximum out
//	i % 100 == 20: 32 / 37.5 / 39     the minimum out
//	i % 100 == 30: 41.5 / 42 / 43     all three out
//	i % 100 == 40: 33 / 37 / 41       on the limits: in range
//	otherwise      36 / 37.5 / 39
func knownLog() api.TemperatureLog {
	chicago, _ := time.LoadLocation("America/Chicago")
	start := time.Date(2026, 3, 2, 0, 0, 0, 0, chicago).UTC()
	log := api.TemperatureLog{Site: api.TemperatureLogSite{Name: "Main Kitchen", Timezone: "America/Chicago"}, Interval: api.LogEvery5m,
		PeriodStart: start, PeriodEnd: start.Add(3 * 24 * time.Hour), GeneratedAt: start.Add(4 * 24 * time.Hour)}
	log.From.Time, log.To.Time = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
	place, lo, hi := "Walk-in cooler", "33", "41"
	walkIn := api.TemperatureLogSensor{SensorId: uuid.New(), Name: "Probe A", Location: &place, MinTempF: &lo, MaxTempF: &hi}
	probe := api.TemperatureLogSensor{SensorId: uuid.New(), Name: "Hand probe"}
	for i := range knownBuckets {
		at := start.Add(time.Duration(i) * 5 * time.Minute)
		b := api.SensorLogBucket{At: at, Min: "36", Mean: "37.5", Max: "39", Count: 5}
		switch i % 100 {
		case 10:
			b.Max = "42.5"
		case 20:
			b.Min = "32"
		case 30:
			b.Min, b.Mean, b.Max = "41.5", "42", "43"
		case 40:
			b.Min, b.Mean, b.Max = "33", "37", "41"
		}
		walkIn.Buckets = append(walkIn.Buckets, b)
		probe.Buckets = append(probe.Buckets, api.SensorLogBucket{At: at, Min: "70", Mean: "71", Max: "72", Count: 5})
	}
	for d := range 70 {
		at := start.Add(time.Duration(d) * time.Hour)
		end := at.Add(20 * time.Minute)
		walkIn.Excursions = append(walkIn.Excursions, api.TemperatureLogExcursion{StartedAt: at, EndedAt: &end, DurationMinutes: 20, Peak: "43", MinTempF: &lo, MaxTempF: &hi})
	}
	log.Sensors = []api.TemperatureLogSensor{walkIn, probe}
	return log
}

const knownBuckets = 3 * 288

func TestWriteSample(t *testing.T) {
	chicago, _ := time.LoadLocation("America/Chicago")
	b, err := logPDF("Harbor Foods & Co", knownLog(), chicago)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile("/tmp/engD/sample.pdf", b, 0o644)
}
