package orgs

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
)

// sitesCache keeps each organization's sites as GET /orgs/{orgId}/sites lists them, with the
// orgs.sites_version they were read at. An entry is used only when the version the request's own
// authorizing read returned (authz.Access.SitesVersion) is equal, and the database changes the
// version with every insert, update or delete of a site (migration 0071), so a site created
// through another replica is listed on the next request. The rows are read after the version,
// so an entry is never older than the version it is kept at.
//
// What it saves is the list's own statement, a second round trip to PostgreSQL on a read whose
// authorization is already one; and, for members who see every site, encoding the list.
type sitesCache struct {
	mu      sync.RWMutex
	entries map[uuid.UUID]*cachedSites
	bytes   int // sum of the entries' encoded lists
}

type cachedSites struct {
	version int64
	sites   []api.Site
	body    []byte // the whole list encoded as the generated response encodes it
}

const (
	// sitesCacheEntries and sitesCacheBytes bound the memory: full, the cache starts over rather
	// than track recency (the cost is one statement per active organization).
	sitesCacheEntries = 10_000
	sitesCacheBytes   = 32 << 20
	// sitesCacheEntryBytes leaves an organization with an unusually long list out of the cache
	// (it is still listed, read each time).
	sitesCacheEntryBytes = 1 << 20
)

func newSitesCache() *sitesCache {
	return &sitesCache{entries: make(map[uuid.UUID]*cachedSites)}
}

// get returns the organization's sites if they were read at version.
func (c *sitesCache) get(orgID uuid.UUID, version int64) (*cachedSites, bool) {
	c.mu.RLock()
	e, ok := c.entries[orgID]
	c.mu.RUnlock()
	if !ok || e.version != version {
		return nil, false
	}
	return e, true
}

// load builds the entry for rows read at version and keeps it when it fits.
func (c *sitesCache) load(orgID uuid.UUID, version int64, rows []db.Site) (*cachedSites, error) {
	e := &cachedSites{version: version, sites: make([]api.Site, 0, len(rows))}
	for _, s := range rows {
		e.sites = append(e.sites, toAPISite(s))
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(api.ListSites200JSONResponse(e.sites)); err != nil {
		return nil, err
	}
	e.body = buf.Bytes()
	if len(e.body) > sitesCacheEntryBytes {
		return e, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[orgID]; ok {
		if old.version > version {
			return e, nil // a concurrent request kept a newer list
		}
		c.bytes -= len(old.body)
		delete(c.entries, orgID)
	}
	if len(c.entries) >= sitesCacheEntries || c.bytes+len(e.body) > sitesCacheBytes {
		clear(c.entries)
		c.bytes = 0
	}
	c.entries[orgID] = e
	c.bytes += len(e.body)
	return e, nil
}

// encodedSites answers a whole cached list: the bytes the generated
// ListSites200JSONResponse would write, encoded once per version instead of per request.
type encodedSites []byte

func (b encodedSites) VisitListSitesResponse(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(b)
	return err
}
