package authz

import (
	"testing"

	"github.com/google/uuid"
)

// An entry answers only at the version it was read at, an absent membership is kept as absent,
// and a full cache starts over rather than grow.
func TestMemberCache(t *testing.T) {
	t.Parallel()
	c := newMemberCache(3)
	org, user := uuid.New(), uuid.New()
	c.put(org, user, cachedMember{version: 7, found: true, role: Admin})
	if m, ok := c.get(org, user, 7); !ok || !m.found || m.role != Admin {
		t.Fatalf("at its version: %+v %v", m, ok)
	}
	for _, v := range []int64{6, 8} {
		if _, ok := c.get(org, user, v); ok {
			t.Fatalf("answered at version %d, read at 7", v)
		}
	}
	stranger := uuid.New()
	c.put(org, stranger, cachedMember{version: 7})
	if m, ok := c.get(org, stranger, 7); !ok || m.found {
		t.Fatalf("absent membership: %+v %v", m, ok)
	}
	c.put(uuid.New(), user, cachedMember{version: 1, found: true})
	if len(c.entries) != 3 {
		t.Fatalf("%d entries, want 3", len(c.entries))
	}
	c.put(uuid.New(), user, cachedMember{version: 1, found: true}) // a fourth: starts over
	if len(c.entries) != 1 {
		t.Fatalf("%d entries after the bound, want 1", len(c.entries))
	}
	c.put(org, user, cachedMember{version: 8, found: true, role: Viewer}) // an update does not count
	c.put(org, user, cachedMember{version: 9, found: true, role: Viewer})
	if len(c.entries) != 2 {
		t.Fatalf("%d entries, want 2", len(c.entries))
	}
}

// Requests read and fill the cache at once; it stays within its bound.
func TestMemberCacheConcurrentUse(t *testing.T) {
	t.Parallel()
	const bound = 50
	c := newMemberCache(bound)
	orgs := make([]uuid.UUID, 80)
	for i := range orgs {
		orgs[i] = uuid.New()
	}
	user := uuid.New()
	done := make(chan struct{})
	for g := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 2000 {
				org := orgs[(g*7+i)%len(orgs)]
				if _, ok := c.get(org, user, int64(i%3)); !ok {
					c.put(org, user, cachedMember{version: int64(i % 3), found: true})
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
	if n := len(c.entries); n > bound {
		t.Fatalf("%d entries, bound %d", n, bound)
	}
}
