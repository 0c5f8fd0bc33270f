package inventory

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Bounds of one shared posting: a transaction holds its items' cost-row locks for as long as it
// takes to write every adjustment it carries.
const (
	maxSharedAdjustments = 64
	maxSharedLines       = 500
	// maxSitePostings postings of a site may be in flight at once: the next one reads what
	// it names while the one before holds the items' locks.
	maxSitePostings = 2
)

// siteKey names the site adjustments are posted at.
type siteKey struct{ org, site uuid.UUID }

// adjustQueue posts concurrent adjustments of one site together. Stock writes of a site meet
// at its items' cost-row locks, and each costs a dozen statements whatever it carries, so
// under load most of a write's time went to statements and waiting. Here, while one posting
// of a site is in flight, the adjustments that arrive wait for it and then go into the next
// one together: one transaction, one read of what they name, one lock of the items and one
// write, each adjustment with its own ledger rows, source, actor, audit row and answer. An
// adjustment arriving at an idle site is posted at once. Each server process keeps its own
// queue; several processes still meet at the database's locks.
type adjustQueue struct {
	postFn func(ctx context.Context, orgID, siteID uuid.UUID, adjs []*adjustment) (time.Time, error)

	mu    sync.Mutex
	sites map[siteKey]*siteAdjustments
}

type siteAdjustments struct {
	pending []*queuedAdjustment
	running int // postings in flight
}

type queuedAdjustment struct {
	ctx  context.Context
	adj  *adjustment
	done chan postOutcome
}

type postOutcome struct {
	at  time.Time
	err error
}

func newAdjustQueue(post func(ctx context.Context, orgID, siteID uuid.UUID, adjs []*adjustment) (time.Time, error)) *adjustQueue {
	return &adjustQueue{postFn: post, sites: map[siteKey]*siteAdjustments{}}
}

// post posts adj at the site with whatever else is waiting there, and returns the posting's
// time and the error that concerns the whole posting; adj.err holds adj's own failure.
func (q *adjustQueue) post(ctx context.Context, key siteKey, adj *adjustment) (time.Time, error) {
	w := &queuedAdjustment{ctx: ctx, adj: adj, done: make(chan postOutcome, 1)}
	q.mu.Lock()
	s, ok := q.sites[key]
	if !ok {
		s = &siteAdjustments{}
		q.sites[key] = s
	}
	s.pending = append(s.pending, w)
	start := s.running < maxSitePostings
	if start {
		s.running++
	}
	q.mu.Unlock()
	if start {
		go q.drain(key, s)
	}
	select {
	case o := <-w.done:
		return o.at, o.err
	case <-ctx.Done():
		q.mu.Lock()
		if i := slices.Index(s.pending, w); i >= 0 {
			s.pending = slices.Delete(s.pending, i, i+1)
			q.mu.Unlock()
			return time.Time{}, ctx.Err()
		}
		q.mu.Unlock()
		// Already in a posting, which may commit: its outcome is the answer. The posting's
		// deadline is its earliest member's, so this wait is short.
		o := <-w.done
		return o.at, o.err
	}
}

// drain posts the site's waiting adjustments, as many as a posting takes at a time, until
// none is left.
func (q *adjustQueue) drain(key siteKey, s *siteAdjustments) {
	for {
		q.mu.Lock()
		n, lines := 0, 0
		for n < len(s.pending) && n < maxSharedAdjustments {
			lines += len(s.pending[n].adj.in)
			if n > 0 && lines > maxSharedLines {
				break
			}
			n++
		}
		if n == 0 {
			if s.running--; s.running == 0 {
				delete(q.sites, key)
			}
			q.mu.Unlock()
			return
		}
		batch := slices.Clone(s.pending[:n])
		s.pending = slices.Delete(s.pending, 0, n)
		q.mu.Unlock()
		q.postBatch(key, batch)
	}
}

// postBatch posts a batch and answers each member. When the posting as a whole fails (the
// database, not one member's input), each member is posted again alone, so that no request
// fails for another's sake.
func (q *adjustQueue) postBatch(key siteKey, batch []*queuedAdjustment) {
	ctx, cancel := batchContext(batch)
	defer cancel()
	adjs := make([]*adjustment, len(batch))
	for i, w := range batch {
		adjs[i] = w.adj
	}
	at, err := q.safePost(ctx, key.org, key.site, adjs)
	if err != nil && len(batch) > 1 && !isRequestError(err) {
		for _, w := range batch {
			at, err := q.safePost(w.ctx, key.org, key.site, []*adjustment{w.adj})
			w.done <- postOutcome{at: at, err: err}
		}
		return
	}
	for _, w := range batch {
		w.done <- postOutcome{at: at, err: err}
	}
}

// safePost posts, turning a panic into the posting's error: the posting runs on the queue's
// goroutine, beyond the reach of the HTTP server's recovery, and its requests still want an
// answer.
func (q *adjustQueue) safePost(ctx context.Context, orgID, siteID uuid.UUID, adjs []*adjustment) (at time.Time, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("inventory: stock posting panicked: %v\n%s", r, debug.Stack())
		}
	}()
	return q.postFn(ctx, orgID, siteID, adjs)
}

// batchContext is the context a batch is posted under: not cancelled by any one member going
// away (the others still want their answer), with the earliest deadline among the members.
func batchContext(batch []*queuedAdjustment) (context.Context, context.CancelFunc) {
	ctx := context.WithoutCancel(batch[0].ctx)
	var earliest time.Time
	for _, w := range batch {
		if d, ok := w.ctx.Deadline(); ok && (earliest.IsZero() || d.Before(earliest)) {
			earliest = d
		}
	}
	if earliest.IsZero() {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, earliest)
}
