package memo

import (
	"fmt"
	"sync"
	"testing"
)

func TestMapIsBoundedAndStartsOver(t *testing.T) {
	for _, max := range []int{0, 100} {
		m := Map[string, int]{Max: max}
		limit := max
		if limit == 0 {
			limit = DefaultMax
		}
		for i := range 3 * limit {
			m.Put(fmt.Sprint(i), i)
			if p := m.snap.Load(); p != nil && len(*p) > limit {
				t.Fatalf("max %d: %d entries", max, len(*p))
			}
		}
		// Recent entries are kept.
		for i := range limit / 8 {
			m.Put(fmt.Sprint("later", i), i)
		}
		if v, ok := m.Get(fmt.Sprint("later", 0)); !ok || v != 0 {
			t.Fatalf("max %d: recent entry missing", max)
		}
		if m.Len() > limit+limit/16+1 {
			t.Fatalf("max %d: %d entries kept", max, m.Len())
		}
	}
}

// Requests read and fill one Map at once.
func TestMapUnderParallelUse(t *testing.T) {
	var m Map[int, int]
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				k := (g*2000 + i) % 300
				if v, ok := m.Get(k); ok && v != k*k {
					t.Errorf("%d kept as %d", k, v)
					return
				}
				m.Put(k, k*k)
			}
		})
	}
	wg.Wait()
}
