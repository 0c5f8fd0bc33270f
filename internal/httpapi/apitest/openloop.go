package apitest

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/gctune"
	"github.com/sous-app/sous/internal/pg/pgtest"
)

// OpenLoop sends n requests at rate a second, each at its scheduled time whatever the ones
// before it are doing, and returns each one's latency counted from that scheduled time (so a
// server that falls behind shows its queue in the numbers, as an open-loop load generator must)
// and how many failed. do(i) sends the i-th request.
func OpenLoop(rate, n int, do func(i int) error) (latencies []time.Duration, failed int) {
	interval := time.Second / time.Duration(rate)
	latencies = make([]time.Duration, n)
	var wg sync.WaitGroup
	var failures atomic.Int64
	start := time.Now()
	for i := range n {
		at := start.Add(time.Duration(i) * interval)
		time.Sleep(time.Until(at)) // pacing the load generator, not waiting on the system under test
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := do(i); err != nil {
				failures.Add(1)
			}
			latencies[i] = time.Since(at)
		}()
	}
	wg.Wait()
	return latencies, int(failures.Load())
}

// Percentile is the p-th quantile (0 ≤ p ≤ 1) of latencies in milliseconds; it sorts latencies.
func Percentile(latencies []time.Duration, p float64) float64 {
	slices.Sort(latencies)
	i := min(len(latencies)-1, int(p*float64(len(latencies))))
	return float64(latencies[i].Microseconds()) / 1000
}

// ReportLatencies reports p50, p99 and max of latencies in ms, each name prefixed by prefix.
func ReportLatencies(b *testing.B, prefix string, latencies []time.Duration) {
	b.ReportMetric(Percentile(latencies, 0.50), prefix+"p50-ms")
	b.ReportMetric(Percentile(latencies, 0.99), prefix+"p99-ms")
	b.ReportMetric(Percentile(latencies, 1), prefix+"max-ms")
}

// BenchOpenLoop is an open-loop benchmark at rate requests a second: a first second of the same
// load, reported apart as first-p50-ms, first-p99-ms and first-max-ms (the pool's connections
// opening and each new database session planning its statements for the first time, what a
// replica's first second after start-up sees), then b.N requests measured as p50-ms, p99-ms and
// max-ms, with the requests that failed in either. The process's collector is set as a server's
// (gctune): the server measured shares this process with its load generator. It starts once the
// test databases' background work is done (pgtest.Quiesce): a clone made ahead during the window
// stalled the server for 300 ms in two of twelve runs.
func BenchOpenLoop(b *testing.B, rate int, do func(i int) error) {
	b.Helper()
	gctune.Apply()
	pgtest.Quiesce()
	first, firstFailed := OpenLoop(rate, rate, do)
	b.ResetTimer()
	latencies, failed := OpenLoop(rate, b.N, do)
	b.StopTimer()
	ReportLatencies(b, "first-", first)
	ReportLatencies(b, "", latencies)
	b.ReportMetric(float64(firstFailed+failed), "failed")
	b.ReportMetric(0, "ns/op")
}
