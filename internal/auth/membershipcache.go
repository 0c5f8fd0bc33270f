package auth

import (
	"encoding/json"
	"sync"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/db"
)

// membershipCache keeps each user's memberships as GET /auth/me shows them, with the
// users.memberships_version they were read at. An entry is used only when the version read from
// the user's row by the same request is equal, and the database changes the version with every
// change of a membership or of an organization's name (migration 0029), so an entry can never be
// older than the request's own read: a role changed through another replica shows on the next
// request. What it saves is the join over memberships and organizations, which must be planned
// for its parameters on every run (it is not a primary-key lookup).
type membershipCache struct {
	mu      sync.RWMutex
	entries map[uuid.UUID]cachedMemberships
	max     int
}

type cachedMemberships struct {
	version     int64
	memberships []db.ListMembershipsForUserRow
	// encoded is memberships as the JSON array GET /auth/me writes, made once per version
	// instead of reflected over on every call.
	encoded []byte
}

// membershipCacheSize bounds the cache: a few hundred bytes a user (twice that with the encoding).
const membershipCacheSize = 100_000

func newMembershipCache(max int) *membershipCache {
	return &membershipCache{entries: make(map[uuid.UUID]cachedMemberships), max: max}
}

// get returns the user's memberships if they were read at version.
func (c *membershipCache) get(userID uuid.UUID, version int64) (cachedMemberships, bool) {
	c.mu.RLock()
	e, ok := c.entries[userID]
	c.mu.RUnlock()
	if !ok || e.version != version {
		return cachedMemberships{}, false
	}
	return e, true
}

// put remembers memberships read at version, with their encoding, which it returns. Full, it
// starts over rather than track recency: the cost is one join per active user.
func (c *membershipCache) put(userID uuid.UUID, version int64, ms []db.ListMembershipsForUserRow) ([]byte, error) {
	encoded, err := json.Marshal(toAPIMemberships(ms))
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[userID]; !ok && len(c.entries) >= c.max {
		clear(c.entries)
	}
	c.entries[userID] = cachedMemberships{version: version, memberships: ms, encoded: encoded}
	return encoded, nil
}
