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
	b, err := logPDF(monthLog(), loc)
	if err != nil || !bytes.HasPrefix(b, []byte("%PDF-")) || !bytes.Contains(b, []byte("%%EOF")) {
		t.Fatalf("pdf: %v, %d bytes", err, len(b))
	}
}

func BenchmarkMonthPDF(b *testing.B) {
	loc, _ := time.LoadLocation("America/Chicago")
	log := monthLog()
	for b.Loop() {
		if _, err := logPDF(log, loc); err != nil {
			b.Fatal(err)
		}
	}
}
