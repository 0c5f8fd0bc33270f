// Package memo keeps results that cost more to compute than to keep, shared by every request
// of a replica: a hospital feed's few hundred diet and allergy codes (internal/hl7), the few
// shapes of an organization's item columns (internal/inventory), food profiles by revision
// (internal/foods).
//
// Reads take no lock: they load an immutable snapshot. New results collect in a small pending
// map under a mutex and are merged into a fresh snapshot in batches, so the copying stays
// proportional to the entries added. A Map is bounded in entries; when it fills up it starts
// over, so a flood of one-off keys cannot crowd out a working set for good. Callers bound their
// keys' size and copy keys out of request bodies, so a Map never pins a body. A Map changes
// nothing but speed: a miss computes the same result.
package memo

import (
	"sync"
	"sync/atomic"
)

// DefaultMax is a Map's bound when its Max is zero.
const DefaultMax = 4096

// Map is a bounded memo from K to V. The zero value is ready, bounded by DefaultMax. Values are
// handed to every caller as they were put: a V holding maps or slices must be treated as read
// only, or copied by the caller.
type Map[K comparable, V any] struct {
	// Max bounds the entries (0: DefaultMax). Set before first use.
	Max     int
	snap    atomic.Pointer[map[K]V]
	mu      sync.Mutex
	pending map[K]V
}

// Get returns the value kept for k. A miss of the snapshot looks at the pending entries under
// the mutex: misses are rare once warm, and each one saves a computation.
func (m *Map[K, V]) Get(k K) (V, bool) {
	if p := m.snap.Load(); p != nil {
		if v, ok := (*p)[k]; ok {
			return v, true
		}
	}
	m.mu.Lock()
	v, ok := m.pending[k]
	m.mu.Unlock()
	return v, ok
}

// Put keeps v for k, which the caller has already copied out of any request body.
func (m *Map[K, V]) Put(k K, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pending == nil {
		m.pending = make(map[K]V)
	}
	m.pending[k] = v
	var cur map[K]V
	if p := m.snap.Load(); p != nil {
		cur = *p
	}
	// Merge when pending is a sixteenth of the snapshot: early entries become hits at once, and
	// a full memo has been copied about sixteen times over.
	if len(m.pending) < 1+len(cur)/16 {
		return
	}
	limit := m.Max
	if limit <= 0 {
		limit = DefaultMax
	}
	if len(cur)+len(m.pending) > limit {
		cur = nil // start over
	}
	next := make(map[K]V, len(cur)+len(m.pending))
	for key, val := range cur {
		next[key] = val
	}
	for key, val := range m.pending {
		next[key] = val
	}
	m.pending = nil
	m.snap.Store(&next)
}

// Len is the number of entries kept (snapshot and pending).
func (m *Map[K, V]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.pending)
	if p := m.snap.Load(); p != nil {
		n += len(*p)
	}
	return n
}
