package sensors

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// SetHeavyLogWait makes heavy logs wait d for a slot (0 restores the default).
func SetHeavyLogWait(d time.Duration) { heavyWait.Store(int64(d)) }

// OnHeavyLogHeld calls fn while a heavy log holds its slot (nil removes it).
func OnHeavyLogHeld(fn func(orgID uuid.UUID)) {
	if fn == nil {
		heavyHeld.Store(nil)
		return
	}
	heavyHeld.Store(&fn)
}

// HeavyLogs reads sous_heavy_reports_total for outcome.
func HeavyLogs(outcome string) float64 {
	return testutil.ToFloat64(heavyReports.WithLabelValues(outcome))
}

// HeavyLogsWaiting reads sous_heavy_reports_waiting.
func HeavyLogsWaiting() float64 { return testutil.ToFloat64(heavyReportsWaiting) }

// HeavyLogWaiters is how many heavy logs may wait for a slot on a replica.
const HeavyLogWaiters = heavyLogWaiters

// PDFPageTexts are the strings each page of a PDF the package wrote shows, page by page.
func PDFPageTexts(t testing.TB, b []byte) [][]string {
	var out [][]string
	for _, p := range readPDF(t, b) {
		out = append(out, p.texts())
	}
	return out
}
