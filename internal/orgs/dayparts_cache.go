package orgs

import (
	"encoding/json"
	"sync"

	"github.com/sous-app/sous/gen/api"
)

// dayPartsCacheSize bounds the decoded day-part sets kept; past it the cache starts over.
const dayPartsCacheSize = 1024

// dayPartsCache keeps the API form of a site's stored day parts by the stored JSON itself, so a
// site list decodes each distinct set once instead of once per site and request (most sites keep
// the defaults): decoding was a tenth of the sites list's CPU. Keyed by content, an entry can never
// be stale; the slices handed out are shared and must not be changed.
type dayPartsCache struct {
	mu    sync.RWMutex
	parts map[string][]api.DayPart
}

var siteDayParts = dayPartsCache{parts: map[string][]api.DayPart{}}

func (c *dayPartsCache) get(raw []byte) []api.DayPart {
	c.mu.RLock()
	out, ok := c.parts[string(raw)]
	c.mu.RUnlock()
	if ok {
		return out
	}
	var parts []DayPart
	_ = json.Unmarshal(raw, &parts)
	out = make([]api.DayPart, 0, len(parts))
	for _, p := range parts {
		out = append(out, api.DayPart{Name: p.Name, Start: p.Start, End: p.End})
	}
	c.mu.Lock()
	if len(c.parts) >= dayPartsCacheSize {
		clear(c.parts)
	}
	c.parts[string(raw)] = out
	c.mu.Unlock()
	return out
}
