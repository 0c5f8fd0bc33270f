package trayline

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/singleflight"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/devices"
)

// Screens answers tray-line screens' tray queue (devices.Trays). Patients' names and MRNs are
// never on a screen: it shows the room and bed.
//
// A screen polls its state every few seconds and the queue is hundreds of tickets (~300 KB of
// JSON for 600), so the encoded queue is kept per site, date, day part and units, for the
// site's tray revision (tray_revisions, bumped by triggers in the transaction of every change
// a screen shows). A poll reads that one row; the tickets are read and encoded again only when
// the revision moved. The revision is a database row, so a change committed through any
// replica is seen by every replica's next poll.
type Screens struct {
	pool  *pgxpool.Pool
	cache *trayCache
}

func NewScreens(pool *pgxpool.Pool) Screens {
	return Screens{pool: pool, cache: newTrayCache(trayCacheEntries, trayCacheBytes)}
}

// The cache's bounds: a site has one queue per screen configuration (units) in use, so 256
// covers many sites' screens; 600 tickets are ~300 KB, so 64 MB holds ~200 such queues.
const (
	trayCacheEntries = 256
	trayCacheBytes   = 64 << 20
)

type screenDiet struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// screenTray is one ticket on a screen; a struct rather than a map so that encoding hundreds of
// them is cheap.
type screenTray struct {
	TicketID  uuid.UUID       `json:"ticketId"`
	Status    string          `json:"status"`
	Unit      string          `json:"unit"`
	Room      string          `json:"room"`
	Bed       string          `json:"bed"`
	Diets     []screenDiet    `json:"diets"`
	Allergens []string        `json:"allergens"`
	Texture   *int32          `json:"texture,omitempty"`
	Items     json.RawMessage `json:"items"`
	Conflict  bool            `json:"conflict"`
}

// Queue lists the site's tickets of the date and day part (cancelled ones left out) by unit,
// room and bed: status, where, diets, allergens, texture, items with their checks, conflict;
// encoded as the state's `trays` array.
func (s Screens) Queue(ctx context.Context, orgID, siteID uuid.UUID, date time.Time, dayPart string, units []string) (devices.EncodedTrays, error) {
	q := db.New(s.pool)
	// The revision is read before the tickets, in a statement of its own: the tickets read
	// after it are at least as new, so bytes are never kept under a revision newer than they
	// are. (Newer bytes under an older revision are harmless: that revision is already past.)
	rev, err := q.TrayRevision(ctx, db.TrayRevisionParams{OrgID: orgID, SiteID: siteID})
	if err != nil {
		return devices.EncodedTrays{}, err
	}
	key := trayKey{org: orgID, site: siteID, date: date.Format(time.DateOnly), dayPart: dayPart, units: strings.Join(units, "\x00")}
	if t, ok := s.cache.get(key, rev); ok {
		return t, nil
	}
	// Every screen of the site polls at once after a change's hint: one of them reads and
	// encodes the queue, the others wait for its bytes. A waiter whose leader failed (its
	// request cancelled, say) reads the queue itself rather than answer the leader's error.
	fill := func() (any, error) {
		t, err := s.encode(ctx, q, orgID, siteID, date, dayPart, units)
		if err == nil {
			s.cache.put(key, rev, t)
		}
		return t, err
	}
	v, err, shared := s.cache.fills.Do(key.flight(rev), fill)
	if err != nil && shared {
		v, err = fill()
	}
	if err != nil {
		return devices.EncodedTrays{}, err
	}
	return v.(devices.EncodedTrays), nil
}

// encode reads the queue and encodes it with its sum.
func (s Screens) encode(ctx context.Context, q *db.Queries, orgID, siteID uuid.UUID, date time.Time, dayPart string, units []string) (devices.EncodedTrays, error) {
	rows, err := q.TrayQueue(ctx, db.TrayQueueParams{OrgID: orgID, SiteID: siteID, Date: pgtype.Date{Time: date, Valid: true}, DayPart: dayPart})
	if err != nil {
		return devices.EncodedTrays{}, err
	}
	out := make([]screenTray, 0, len(rows))
	for _, r := range rows {
		if len(units) > 0 && !slices.Contains(units, r.Unit) {
			continue
		}
		diets := make([]screenDiet, 0, len(r.Diets))
		for _, d := range r.Diets {
			diets = append(diets, screenDiet{Code: d, Name: dietName(d)})
		}
		allergens := r.Allergens
		if allergens == nil {
			allergens = []string{}
		}
		out = append(out, screenTray{TicketID: r.ID, Status: r.Status, Unit: r.Unit, Room: r.Room, Bed: r.Bed,
			Diets: diets, Allergens: allergens, Texture: r.Texture, Items: json.RawMessage(r.Items), Conflict: r.Conflict})
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return devices.EncodedTrays{}, err
	}
	return devices.EncodedTrays{JSON: raw, Sum: sha256.Sum256(raw)}, nil
}

// trayKey is one screen configuration's queue: the site's meal, filtered by units.
type trayKey struct {
	org, site     uuid.UUID
	date, dayPart string
	units         string
}

// flight names the key at a revision for fills, unambiguously (strings quoted).
func (k trayKey) flight(rev int64) string {
	return fmt.Sprintf("%s %s %q %q %q %d", k.org, k.site, k.date, k.dayPart, k.units, rev)
}

type trayEntry struct {
	rev   int64
	trays devices.EncodedTrays
	used  uint64 // the cache's clock at the last use, for eviction
}

// trayCache keeps the latest encoded queue of each key, bounded in entries and bytes, the
// least recently used going first. The bytes are shared with every response that writes them
// and never modified.
type trayCache struct {
	mu             sync.Mutex
	maxEntries     int
	maxBytes, size int
	tick           uint64
	entries        map[trayKey]*trayEntry
	// fills shares one read of a queue between the polls that miss it at the same revision.
	fills singleflight.Group
}

func newTrayCache(maxEntries, maxBytes int) *trayCache {
	return &trayCache{maxEntries: maxEntries, maxBytes: maxBytes, entries: map[trayKey]*trayEntry{}}
}

func (c *trayCache) get(k trayKey, rev int64) (devices.EncodedTrays, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok || e.rev != rev {
		return devices.EncodedTrays{}, false
	}
	c.tick++
	e.used = c.tick
	return e.trays, true
}

// put keeps t as k's queue at rev, in place of whatever revision k had: revisions are only
// compared for equality, and a poll that raced a newer one only costs the next poll a read.
func (c *trayCache) put(k trayKey, rev int64, t devices.EncodedTrays) {
	if len(t.JSON) > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[k]; ok {
		c.size -= len(old.trays.JSON)
		delete(c.entries, k)
	}
	for len(c.entries) >= c.maxEntries || c.size+len(t.JSON) > c.maxBytes {
		c.evictOldest()
	}
	c.tick++
	c.entries[k] = &trayEntry{rev: rev, trays: t, used: c.tick}
	c.size += len(t.JSON)
}

// evictOldest drops the least recently used entry; a linear scan, as there are at most a few
// hundred and it runs only when a new queue is encoded.
func (c *trayCache) evictOldest() {
	var oldest trayKey
	var at uint64
	found := false
	for k, e := range c.entries {
		if !found || e.used < at {
			oldest, at, found = k, e.used, true
		}
	}
	if !found {
		return
	}
	c.size -= len(c.entries[oldest].trays.JSON)
	delete(c.entries, oldest)
}
