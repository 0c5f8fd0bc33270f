package sensors

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
)

// monthLog is a month of hourly buckets for 20 sensors, as the temperature log renders it.
func monthLog() api.TemperatureLog {
	start := time.Date(2026, 3, 1, 6, 0, 0, 0, time.UTC)
	log := api.TemperatureLog{Site: api.TemperatureLogSite{Name: "Main Kitchen", Timezone: "America/Chicago"}, Interval: api.LogEvery1h, GeneratedAt: start}
	loc, hi := "Walk-in cooler", "41"
	for range 20 {
		s := api.TemperatureLogSensor{SensorId: uuid.New(), Name: "Probe", Location: &loc, MaxTempF: &hi}
		for h := range 743 {
			s.Buckets = append(s.Buckets, api.SensorLogBucket{At: start.Add(time.Duration(h) * time.Hour), Min: "37", Mean: "38.45", Max: "40.9", Count: 60})
		}
		log.Sensors = append(log.Sensors, s)
	}
	return log
}

// The PDF of a month: every bucket a row, and a document a reader opens.
func TestMonthPDF(t *testing.T) {
	loc, _ := time.LoadLocation("America/Chicago")
	b, err := logPDF("Harbor Foods", monthLog(), loc)
	if err != nil || !bytes.HasPrefix(b, []byte("%PDF-")) || !bytes.Contains(b, []byte("%%EOF")) {
		t.Fatalf("pdf: %v, %d bytes", err, len(b))
	}
}

func BenchmarkMonthPDF(b *testing.B) {
	loc, _ := time.LoadLocation("America/Chicago")
	log := monthLog()
	for b.Loop() {
		if _, err := logPDF("Harbor Foods", log, loc); err != nil {
			b.Fatal(err)
		}
	}
}

// quarterLog is the heaviest log the API answers at 5 minutes: 92 days for 7 sensors, 185,472
// buckets, with an excursion a day per sensor.
func quarterLog() api.TemperatureLog {
	start := time.Date(2026, 1, 1, 6, 0, 0, 0, time.UTC)
	log := api.TemperatureLog{Site: api.TemperatureLogSite{Name: "Main Kitchen", Timezone: "America/Chicago"}, Interval: api.LogEvery5m, GeneratedAt: start}
	loc, hi := "Walk-in cooler", "41"
	for range 7 {
		s := api.TemperatureLogSensor{SensorId: uuid.New(), Name: "Probe", Location: &loc, MaxTempF: &hi}
		for i := range 92 * 288 {
			s.Buckets = append(s.Buckets, api.SensorLogBucket{At: start.Add(time.Duration(i) * 5 * time.Minute), Min: "37.1", Mean: "38.45", Max: "40.9", Count: 5})
		}
		for d := range 92 {
			at := start.Add(time.Duration(d)*24*time.Hour + 3*time.Hour)
			end := at.Add(25 * time.Minute)
			s.Excursions = append(s.Excursions, api.TemperatureLogExcursion{StartedAt: at, EndedAt: &end, DurationMinutes: 25, Peak: "44.2", MaxTempF: &hi})
		}
		log.Sensors = append(log.Sensors, s)
	}
	return log
}

// The quarter at 5 minutes for 7 sensors, the heaviest PDF a viewer can ask for.
func BenchmarkTemperatureLogPDF92Days(b *testing.B) {
	loc, _ := time.LoadLocation("America/Chicago")
	log := quarterLog()
	b.ReportAllocs()
	for b.Loop() {
		out, err := logPDF("Harbor Foods", log, loc)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(out))/1e6, "MB")
	}
}
