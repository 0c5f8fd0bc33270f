package foods

import (
	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/memo"
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
var profiles = profileCache{m: memo.Map[profileKey, cachedProfile]{Max: maxCachedProfiles}}

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
	m memo.Map[profileKey, cachedProfile]
}

type cachedProfile struct {
	revision string
	food     nutrition.Food
}

// get is the profile of k if it is kept at revision.
func (c *profileCache) get(k profileKey, revision string) (nutrition.Food, bool) {
	e, ok := c.m.Get(k)
	if !ok || e.revision != revision {
		return nutrition.Food{}, false
	}
	return e.food, true
}

// put keeps f as k's profile at revision.
func (c *profileCache) put(k profileKey, revision string, f nutrition.Food) {
	c.m.Put(k, cachedProfile{revision: revision, food: f})
}
