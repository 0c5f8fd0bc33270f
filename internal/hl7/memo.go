package hl7

import (
	"sync"
	"sync/atomic"
)

// memo remembers the results of MapDiet and MapAllergen. Mapping free text
// costs a scan of every word, while a feed sends the same few hundred codes
// and texts (one hospital's diet catalogue, its allergy pick list) over and
// over, so after warming up nearly every lookup is one map hit.
//
// Reads take no lock: they load an immutable snapshot. New results collect in
// a small pending map under a mutex and are merged into a fresh snapshot in
// batches, so the copying stays proportional to the entries added. The cache
// is bounded in entries and in key length, and keys are copied, so hostile or
// unusual input costs at most a few megabytes and never pins request bodies;
// when it fills up it starts over, so a flood of one-off texts cannot crowd
// out a feed's working set for good. It changes nothing but speed: a miss
// computes the same result.
type memo[K comparable, V any] struct {
	snap    atomic.Pointer[map[K]V]
	mu      sync.Mutex
	pending map[K]V
}

const (
	memoMaxEntries = 4096
	memoMaxKey     = 160 // bytes of code and text together
)

// get returns the remembered result. A miss of the snapshot looks at the
// pending entries under the mutex: misses are rare once a feed is warm, and
// each one saves a full mapping.
func (m *memo[K, V]) get(k K) (V, bool) {
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

// put records v for k, which the caller has already copied out of the body.
func (m *memo[K, V]) put(k K, v V) {
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
	// Merge when pending is a sixteenth of the snapshot: early entries become
	// hits at once, and a full cache has been copied about sixteen times over.
	if len(m.pending) < 1+len(cur)/16 {
		return
	}
	if len(cur)+len(m.pending) > memoMaxEntries {
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
