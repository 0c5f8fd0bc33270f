package clinical

import (
	"context"
	"hash/fnv"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/metrics"
)

// Census locking. A body of messages locks what it touches: each patient (by site and MRN, the
// census's identity of a patient) and each control id it may consume (by sender), hashed to
// 64-bit keys. Bodies with no key in common run concurrently; a body that shares a key with an
// earlier one waits for it, so one patient's messages apply in arrival order. Every ingest also
// holds its organization in shared mode, and what rewrites the census across patients (a code
// mapping re-applied, or a body too large to lock key by key) holds it exclusively.
//
// The keys are taken twice. In this process first (censusLocks), before a database connection is
// taken, so that a queued body holds no pooled connection and the queue can be bounded. Then in
// the database, as transaction-scoped advisory locks (LockClinicalKeys, LockClinicalOrg), for the
// other replicas; within one replica they are uncontended, the in-process grant having excluded
// every other holder of the keys.

// maxBodyKeys bounds the advisory locks one body takes: they live in the server's shared lock
// table (max_locks_per_transaction × max_connections slots), which a few bodies of thousands of
// messages would exhaust. A body needing more locks its whole organization instead, as every
// body did before, and runs alone. An interface engine's body of 100 messages needs at most 200.
const maxBodyKeys = 256

// lockKey hashes one lockable thing of an organization. The parts are separated by a byte no
// MRN, control id or sender field holds (the parser cuts fields at control characters).
func lockKey(orgID uuid.UUID, kind byte, parts ...string) int64 {
	h := fnv.New64a()
	h.Write(orgID[:])
	h.Write([]byte{kind})
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return int64(h.Sum64())
}

// bodyLock is what one body locks: keys (sorted, distinct), or its whole organization.
type bodyLock struct {
	keys  []int64
	whole bool
}

// bodyKeys returns the lock of a body's messages at a site.
func bodyKeys(orgID, siteID uuid.UUID, msgs []prepared) bodyLock {
	keys := make([]int64, 0, 2*len(msgs))
	site := siteID.String()
	for i := range msgs {
		p := &msgs[i]
		if p.reject != "" {
			continue // applies nothing and consumes nothing
		}
		if p.controlID != "" {
			keys = append(keys, lockKey(orgID, 'c', p.sender.app, p.sender.facility, p.controlID))
		}
		if mrn, _ := p.mrn(); mrn != "" {
			keys = append(keys, lockKey(orgID, 'p', site, mrn))
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	if len(keys) > maxBodyKeys {
		return bodyLock{whole: true}
	}
	return bodyLock{keys: keys}
}

// lockBody takes a body's locks in this process, waiting in arrival order behind the bodies
// that share a key with it; ingestBody takes them in the database.
func (h *Handlers) lockBody(ctx context.Context, orgID, siteID uuid.UUID, msgs []prepared) (bodyLock, func(), error) {
	lk := bodyKeys(orgID, siteID, msgs)
	unlock, err := h.locks.lock(ctx, orgID, lk.keys, lk.whole)
	return lk, unlock, err
}

// lockInTx takes a body's locks in the database, for the other replicas.
func lockInTx(ctx context.Context, q *db.Queries, orgID uuid.UUID, lk bodyLock) error {
	if lk.whole {
		return q.LockClinicalOrg(ctx, orgID)
	}
	return q.LockClinicalKeys(ctx, db.LockClinicalKeysParams{OrgID: orgID, Keys: lk.keys})
}

// testHookLocked, when set (tests only), runs once a body holds its locks in the database,
// before it loads the census.
var testHookLocked atomic.Pointer[func(msgs []prepared)]

// censusLocks grants census writers of this replica their keys in arrival order. A request is
// queued on every one of its keys at once, under one mutex, and is granted when it is first in
// each of its queues (its organization's queue in shared mode: when no exclusive request is
// before it). Since every queue is in arrival order, a request only ever waits for earlier ones,
// so there is no deadlock whatever keys bodies share, and a later body never overtakes an
// earlier one on a key they share.
type censusLocks struct {
	mu   sync.Mutex
	orgs map[uuid.UUID]*orgQueue
}

type orgQueue struct {
	all     []*lockRequest           // every request of the organization, in arrival order
	keys    map[int64][]*lockRequest // each key's requests, in arrival order
	wholes  int                      // requests in all that lock the organization exclusively
	waiting int                      // requests in all not granted yet
}

type lockRequest struct {
	keys    []int64
	whole   bool
	granted bool
	ready   chan struct{} // closed when granted
}

func newCensusLocks() censusLocks { return censusLocks{orgs: map[uuid.UUID]*orgQueue{}} }

// maxWaiting bounds the census writers of one organization queued on this replica: beyond it an
// ingest that cannot start at once answers 429 instead of holding its body in memory until the
// client gives up. Interface engines send one batch at a time per connection, so only a burst of
// retries or a runaway client gets there.
const maxWaiting = 64

// lock waits until the request for keys (sorted and distinct; whole: the organization
// exclusively) is granted, and returns its release.
func (l *censusLocks) lock(ctx context.Context, orgID uuid.UUID, keys []int64, whole bool) (func(), error) {
	r := &lockRequest{keys: keys, whole: whole}
	l.mu.Lock()
	o := l.orgs[orgID]
	if o == nil {
		o = &orgQueue{keys: map[int64][]*lockRequest{}}
		l.orgs[orgID] = o
	}
	o.all = append(o.all, r)
	if whole {
		o.wholes++
	}
	for _, k := range keys {
		o.keys[k] = append(o.keys[k], r)
	}
	if o.grantable(r) {
		r.granted = true
		l.mu.Unlock()
		return func() { l.release(orgID, o, r) }, nil
	}
	if o.waiting >= maxWaiting {
		// Last in every queue: removing it unblocks no one.
		l.remove(orgID, o, r)
		l.mu.Unlock()
		metrics.RateLimitedBy("census_writers")
		return nil, apierr.RateLimited(time.Second)
	}
	o.waiting++
	r.ready = make(chan struct{})
	l.mu.Unlock()
	select {
	case <-r.ready:
		return func() { l.release(orgID, o, r) }, nil
	case <-ctx.Done():
		l.mu.Lock()
		if !r.granted {
			o.waiting--
		}
		l.mu.Unlock()
		l.release(orgID, o, r)
		return nil, ctx.Err()
	}
}

// grantable reports whether every request before r in its queues is compatible with it.
func (o *orgQueue) grantable(r *lockRequest) bool {
	if r.whole {
		return o.all[0] == r
	}
	if o.wholes > 0 {
		for _, x := range o.all {
			if x == r {
				break
			}
			if x.whole {
				return false
			}
		}
	}
	for _, k := range r.keys {
		if o.keys[k][0] != r {
			return false
		}
	}
	return true
}

// release takes r out of its queues and grants what that unblocks.
func (l *censusLocks) release(orgID uuid.UUID, o *orgQueue, r *lockRequest) {
	l.mu.Lock()
	defer l.mu.Unlock()
	wholes := o.wholes > 0
	l.remove(orgID, o, r)
	if wholes {
		// An exclusive request, released or still queued, may have held back any other.
		for _, x := range o.all {
			o.grant(x)
		}
		return
	}
	for _, k := range r.keys {
		if q := o.keys[k]; len(q) > 0 {
			o.grant(q[0])
		}
	}
}

func (o *orgQueue) grant(x *lockRequest) {
	if !x.granted && o.grantable(x) {
		x.granted = true
		o.waiting--
		close(x.ready)
	}
}

func (l *censusLocks) remove(orgID uuid.UUID, o *orgQueue, r *lockRequest) {
	o.all = slices.DeleteFunc(o.all, func(x *lockRequest) bool { return x == r })
	if r.whole {
		o.wholes--
	}
	for _, k := range r.keys {
		q := slices.DeleteFunc(o.keys[k], func(x *lockRequest) bool { return x == r })
		if len(q) == 0 {
			delete(o.keys, k)
		} else {
			o.keys[k] = q
		}
	}
	if len(o.all) == 0 {
		delete(l.orgs, orgID)
	}
}
