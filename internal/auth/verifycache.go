package auth

import (
	"sync"
	"time"

	"github.com/google/uuid"
)

// verifiedCache remembers access tokens whose signature already checked out, until they expire.
// An EdDSA verification costs more CPU than the database round trip of a typical request (see
// docs/benchmarks.md), and a client sends the same token for up to 15 minutes. Only tokens that
// verified are cached, keyed by the whole token string, so a cached answer is exactly what
// verifying again would give, except after a signing key is withdrawn: its tokens stay accepted
// until they expire, at most AccessTokenTTL later.
type verifiedCache struct {
	mu      sync.RWMutex
	entries map[string]verifiedToken
	max     int
}

type verifiedToken struct {
	userID uuid.UUID
	exp    time.Time
}

func newVerifiedCache(max int) *verifiedCache {
	return &verifiedCache{entries: make(map[string]verifiedToken), max: max}
}

// get returns the cached verification of token, if it has not expired at now.
func (c *verifiedCache) get(token string, now time.Time) (verifiedToken, bool) {
	c.mu.RLock()
	v, ok := c.entries[token]
	c.mu.RUnlock()
	if !ok || !now.Before(v.exp) {
		return verifiedToken{}, false
	}
	return v, true
}

func (c *verifiedCache) put(token string, v verifiedToken, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		for k, e := range c.entries {
			if !now.Before(e.exp) {
				delete(c.entries, k)
			}
		}
		// Still full of live tokens: start over rather than track recency; the cost is one
		// verification per active client.
		if len(c.entries) >= c.max {
			clear(c.entries)
		}
	}
	c.entries[token] = v
}
