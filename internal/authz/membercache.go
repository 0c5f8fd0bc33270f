package authz

import (
	"sync"

	"github.com/google/uuid"
)

// memberCache keeps memberships as the authorization reads them, each with the
// orgs.members_version it was read at. An entry is used only when the version read from the
// organization's row by the same request is equal, and the database changes the version with
// every insert, update or delete of any of the organization's memberships (migration 0072), so an
// entry can never be older than the request's own read: a role changed or a member removed
// through another replica applies on the next request. What it saves is the membership's
// relation and index opened on every request: the authorizing read is then one row by primary
// key, like the ceiling's.
//
// A membership is read after the version it is kept at, so it is at least as new as that
// version. Absent memberships are kept too: a non-member's requests are refused without reading
// again until the organization's memberships change.
type memberCache struct {
	mu      sync.RWMutex
	entries map[memberKey]cachedMember
	max     int
}

type memberKey struct{ org, user uuid.UUID }

type cachedMember struct {
	version int64
	found   bool
	role    Role
	// siteIDs and credentials are shared by every request that uses the entry: read only.
	siteIDs     []uuid.UUID
	credentials []string
}

// memberCacheSize bounds the cache: a hundred-odd bytes a membership.
const memberCacheSize = 100_000

func newMemberCache(max int) *memberCache {
	return &memberCache{entries: make(map[memberKey]cachedMember), max: max}
}

// get returns the membership of user in org if it was read at version.
func (c *memberCache) get(org, user uuid.UUID, version int64) (cachedMember, bool) {
	c.mu.RLock()
	e, ok := c.entries[memberKey{org, user}]
	c.mu.RUnlock()
	if !ok || e.version != version {
		return cachedMember{}, false
	}
	return e, true
}

// put remembers m, read at version. Full, it starts over rather than track recency: the cost
// is one more primary-key read per active member.
func (c *memberCache) put(org, user uuid.UUID, m cachedMember) {
	k := memberKey{org, user}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[k]; !ok && len(c.entries) >= c.max {
		clear(c.entries)
	}
	c.entries[k] = m
}
