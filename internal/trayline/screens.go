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
	"github.com/jackc/pgx/v5"
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
// a screen shows). A poll reads that one row; only when the revision moved are the tickets
// read again, and then only those whose row changed are encoded (encode). The revision is a database row, so a change committed through any
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
		t, frags, err := s.encode(ctx, orgID, siteID, date, dayPart, units, s.cache.fragments(key))
		if err == nil {
			s.cache.put(key, rev, t, frags)
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

// rowVersion identifies a version of a ticket's row: its xmin (every update writes a new one)
// and updated_at, so that even an xmin reused after wraparound is not taken for the old one.
type rowVersion struct {
	xmin int64
	at   int64 // updated_at, Unix microseconds
}

func versionOf(xmin int64, at time.Time) rowVersion {
	return rowVersion{xmin: xmin, at: at.UnixMicro()}
}

// trayFrag is one ticket's encoded tray within a queue's bytes, at the ticket's row version.
type trayFrag struct {
	version rowVersion
	json    []byte // a slice of the queue's bytes
}

// encode reads the queue and encodes it with its sum. The queue's order and row versions are
// read first; the stored columns only of the tickets whose version prev does not hold, in the
// same snapshot (a read-only repeatable-read transaction), the others copied from prev's bytes:
// a poll after one ticket's change reads and encodes one ticket.
func (s Screens) encode(ctx context.Context, orgID, siteID uuid.UUID, date time.Time, dayPart string, units []string,
	prev map[uuid.UUID]trayFrag) (devices.EncodedTrays, map[uuid.UUID]trayFrag, error) {
	var (
		order   []db.TrayQueueRow
		changed = map[uuid.UUID][]byte{}
		read    = map[uuid.UUID]rowVersion{}
	)
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		q := db.New(tx)
		var err error
		if order, err = q.TrayQueue(ctx, db.TrayQueueParams{OrgID: orgID, SiteID: siteID, Date: pgtype.Date{Time: date, Valid: true}, DayPart: dayPart}); err != nil {
			return err
		}
		var ids []uuid.UUID
		for _, r := range order {
			if len(units) > 0 && !slices.Contains(units, r.Unit) {
				continue
			}
			if f, ok := prev[r.ID]; !ok || f.version != versionOf(r.Xmin, r.UpdatedAt) {
				ids = append(ids, r.ID)
			}
		}
		if len(ids) == 0 {
			return nil
		}
		rows, err := q.TrayScreenTickets(ctx, db.TrayScreenTicketsParams{OrgID: orgID, Ids: ids})
		if err != nil {
			return err
		}
		for _, r := range rows {
			diets := make([]screenDiet, 0, len(r.Diets))
			for _, d := range r.Diets {
				diets = append(diets, screenDiet{Code: d, Name: dietName(d)})
			}
			allergens := r.Allergens
			if allergens == nil {
				allergens = []string{}
			}
			b, err := json.Marshal(screenTray{TicketID: r.ID, Status: r.Status, Unit: r.Unit, Room: r.Room, Bed: r.Bed,
				Diets: diets, Allergens: allergens, Texture: r.Texture, Items: json.RawMessage(r.Items), Conflict: r.Conflict})
			if err != nil {
				return err
			}
			changed[r.ID], read[r.ID] = b, versionOf(r.Xmin, r.UpdatedAt)
		}
		return nil
	})
	if err != nil {
		return devices.EncodedTrays{}, nil, err
	}
	type span struct {
		version    rowVersion
		start, end int
	}
	spans := make(map[uuid.UUID]span, len(order))
	size := 2
	for _, f := range prev {
		size += len(f.json) + 1
	}
	buf := make([]byte, 0, size)
	buf = append(buf, '[')
	for _, r := range order {
		if len(units) > 0 && !slices.Contains(units, r.Unit) {
			continue
		}
		b, v := changed[r.ID], read[r.ID]
		if b == nil {
			f, ok := prev[r.ID]
			if !ok {
				return devices.EncodedTrays{}, nil, fmt.Errorf("trayline: ticket %s of the queue not read", r.ID)
			}
			b, v = f.json, f.version
		}
		if len(buf) > 1 {
			buf = append(buf, ',')
		}
		spans[r.ID] = span{version: v, start: len(buf), end: len(buf) + len(b)}
		buf = append(buf, b...)
	}
	buf = append(buf, ']')
	frags := make(map[uuid.UUID]trayFrag, len(spans))
	for id, sp := range spans {
		frags[id] = trayFrag{version: sp.version, json: buf[sp.start:sp.end:sp.end]}
	}
	return devices.EncodedTrays{JSON: buf, Sum: sha256.Sum256(buf)}, frags, nil
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
	frags map[uuid.UUID]trayFrag // never modified once kept
	size  int
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

// fragments answers k's tickets as last encoded, at whatever revision, for the next encoding
// to copy those that have not changed; nil if none.
func (c *trayCache) fragments(k trayKey) map[uuid.UUID]trayFrag {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[k]; ok {
		return e.frags
	}
	return nil
}

// fragBytes is what a fragment's bookkeeping costs beside its bytes (id, version, map slot),
// counted against the byte bound.
const fragBytes = 96

// put keeps t as k's queue at rev, in place of whatever revision k had: revisions are only
// compared for equality, and a poll that raced a newer one only costs the next poll a read.
func (c *trayCache) put(k trayKey, rev int64, t devices.EncodedTrays, frags map[uuid.UUID]trayFrag) {
	size := len(t.JSON) + fragBytes*len(frags)
	if size > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[k]; ok {
		c.size -= old.size
		delete(c.entries, k)
	}
	for len(c.entries) >= c.maxEntries || c.size+size > c.maxBytes {
		c.evictOldest()
	}
	c.tick++
	c.entries[k] = &trayEntry{rev: rev, trays: t, frags: frags, size: size, used: c.tick}
	c.size += size
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
	c.size -= c.entries[oldest].size
	delete(c.entries, oldest)
}
