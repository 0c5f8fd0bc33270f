package apitest

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// Memory is what a piece of work cost the process's heap: the peak of live and not yet
// collected heap objects above where it started, and everything it allocated.
type Memory struct {
	PeakGrowth uint64 // bytes
	Allocated  uint64 // bytes
}

// heapObjects is the runtime's count of bytes in heap objects, reachable or not yet swept: what
// the process must hold in memory at that instant.
const heapObjects = "/memory/classes/heap/objects:bytes"

// MeasureMemory runs work and reports its heap cost. The peak is sampled every 200µs from a
// goroutine, so it can miss a spike shorter than that; Allocated is exact and bounds the peak
// from above. Run it from a test that is not parallel, so other tests' allocations stay out.
func MeasureMemory(work func()) Memory {
	sample := []metrics.Sample{{Name: heapObjects}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	base := read()
	peak := base
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(200 * time.Microsecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				peak = max(peak, read())
			}
		}
	}()
	work()
	close(stop)
	wg.Wait()
	peak = max(peak, read())
	runtime.ReadMemStats(&after)
	return Memory{PeakGrowth: peak - base, Allocated: after.TotalAlloc - before.TotalAlloc}
}

// MaxBodyMemory is the documented bound of a request body's memory (docs/reference/http-conventions.md):
// while bodies are read, checked and handled, the heap grows by at most this multiple of their
// bytes as sent. The ingests and imports whose handlers build a result per message or row have
// their own, larger bounds in the same table.
const MaxBodyMemory = 6

// BodiesMemory sends reqs at once and measures the heap while the server answers them (their
// responses are read, not yet validated, so that the test's own decoding stays out of the
// measure); then it expects each answer to be want and to match the spec. It logs what the
// bodies cost and fails the test when the heap's peak grew by more than bound times the bytes
// sent. Call it from a test that is not parallel.
func BodiesMemory(t testing.TB, bound float64, want int, reqs ...*Request) Memory {
	t.Helper()
	var sent, largest int
	for _, r := range reqs {
		sent += len(r.body)
		largest = max(largest, len(r.body))
	}
	res := make([]*Response, len(reqs))
	mem := MeasureMemory(func() {
		var wg sync.WaitGroup
		for i, r := range reqs {
			wg.Go(func() { res[i] = r.Send() })
		}
		wg.Wait()
	})
	for i, r := range reqs {
		r.Check(res[i]).Expect(want)
	}
	ratio := float64(mem.PeakGrowth) / float64(sent)
	t.Logf("%d × %.2f MB: heap peak +%.1f MB (%.2f× what was sent), allocated %.1f MB (%.2f×)", len(reqs), float64(largest)/(1<<20),
		float64(mem.PeakGrowth)/(1<<20), ratio, float64(mem.Allocated)/(1<<20), float64(mem.Allocated)/float64(sent))
	if ratio > bound {
		t.Errorf("heap peak grew %.1f MB for %.1f MB sent: %.1f×, more than %g× (docs/reference/http-conventions.md)",
			float64(mem.PeakGrowth)/(1<<20), float64(sent)/(1<<20), ratio, bound)
	}
	return mem
}
