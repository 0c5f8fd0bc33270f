package trayline

import (
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/devices"
)

func traysOf(n int) devices.EncodedTrays {
	return devices.EncodedTrays{JSON: make([]byte, n)}
}

func keyOf(i int) trayKey {
	return trayKey{site: uuid.UUID{byte(i)}, date: "2026-03-02", dayPart: "lunch"}
}

// The cache answers only the revision it holds, keeps one revision per key, and stays within
// its entries and bytes, the least recently used going first.
func TestTrayCacheBounds(t *testing.T) {
	c := newTrayCache(3, 100)
	c.put(keyOf(1), 1, traysOf(10), nil)
	if _, ok := c.get(keyOf(1), 2); ok {
		t.Fatal("answered another revision")
	}
	c.put(keyOf(1), 2, traysOf(20), nil)
	if _, ok := c.get(keyOf(1), 1); ok || len(c.entries) != 1 || c.size != 20 {
		t.Fatalf("kept the old revision: %d entries, %d bytes", len(c.entries), c.size)
	}
	c.put(keyOf(2), 1, traysOf(10), nil)
	c.put(keyOf(3), 1, traysOf(10), nil)
	c.get(keyOf(1), 2) // 2 is now the least recently used
	c.put(keyOf(4), 1, traysOf(10), nil)
	if _, ok := c.get(keyOf(2), 1); ok || len(c.entries) != 3 {
		t.Fatalf("entries bound: %d entries", len(c.entries))
	}
	// 60 more bytes: 1 (20), 3 (10) and 4 (10) would make 100; the oldest go until it fits.
	c.put(keyOf(5), 1, traysOf(70), nil)
	if c.size > 100 || len(c.entries) > 3 {
		t.Fatalf("bytes bound: %d bytes, %d entries", c.size, len(c.entries))
	}
	if _, ok := c.get(keyOf(5), 1); !ok {
		t.Fatal("the newest entry was evicted")
	}
	// A queue larger than the whole cache is not kept.
	c.put(keyOf(6), 1, traysOf(101), nil)
	if _, ok := c.get(keyOf(6), 1); ok {
		t.Fatal("kept a queue over the byte bound")
	}
}

// Concurrent polls and fills keep the cache's accounting right (run with -race).
func TestTrayCacheConcurrent(t *testing.T) {
	c := newTrayCache(8, 1000)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				k := keyOf((g + i) % 12)
				rev := int64(i % 5)
				if _, ok := c.get(k, rev); !ok {
					c.put(k, rev, traysOf(10+i%90), nil)
				}
			}
		}()
	}
	wg.Wait()
	size := 0
	for _, e := range c.entries {
		size += e.size
	}
	if size != c.size || len(c.entries) > 8 || c.size > 1000 {
		t.Fatalf("accounting: %d entries, %d bytes counted, %d held", len(c.entries), c.size, size)
	}
}
