package foods

import (
	"sync"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/nutrition"
)

// maxCachedProfiles bounds the profiles a replica keeps: SR28's 8,789 foods and as many of the
// organizations' own, about 1 KB each.
const maxCachedProfiles = 20_000

// profiles is the replica's memory of food profiles. It is safe to share between tests and
// databases: an organization's food is keyed by the organization and a random id, and USDA's
// revision is a random id made by the import that wrote the data (see the migration
// 0084_food_profile_revisions), so two databases never hold different profiles under one key
// and revision.
var profiles = newProfileCache(maxCachedProfiles)

// profileKey names a food: USDA's by its id alone (org is uuid.Nil), an organization's by both.
type profileKey struct{ org, id uuid.UUID }

func profileKeyOf(source string, orgID, id uuid.UUID) profileKey {
	if source == "org" {
		return profileKey{org: orgID, id: id}
	}
	return profileKey{id: id}
}

// profileCache keeps food profiles by key and the revision they were read at. A profile is
// never changed once kept (nutrition only reads a Food), so one may be handed to any number of
// requests at once.
type profileCache struct {
	mu      sync.RWMutex
	max     int
	entries map[profileKey]cachedProfile
}

type cachedProfile struct {
	revision string
	food     nutrition.Food
}

func newProfileCache(max int) *profileCache {
	return &profileCache{max: max, entries: make(map[profileKey]cachedProfile)}
}

// get is the profile of k if it is kept at revision.
func (c *profileCache) get(k profileKey, revision string) (nutrition.Food, bool) {
	c.mu.RLock()
	e, ok := c.entries[k]
	c.mu.RUnlock()
	if !ok || e.revision != revision {
		return nutrition.Food{}, false
	}
	return e.food, true
}

// put keeps f as k's profile at revision. When the cache is full it first forgets a tenth of
// what it holds, whichever entries the map yields first: a bound, not a ranking, since a
// forgotten profile is simply read again when it is next needed.
func (c *profileCache) put(k profileKey, revision string, f nutrition.Food) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[k]; !ok && len(c.entries) >= c.max {
		drop := max(1, c.max/10)
		for old := range c.entries {
			delete(c.entries, old)
			if drop--; drop == 0 {
				break
			}
		}
	}
	c.entries[k] = cachedProfile{revision: revision, food: f}
}
