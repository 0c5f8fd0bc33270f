package apitest

import (
	"runtime"
	"runtime/metrics"
	"sync"
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
