package auth

import (
	"container/list"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/metrics"
)

// passwordQueue admits the operations that run argon2id (sign-in, registration, password
// change) in arrival order, a bounded number at a time. Waiting costs a request nothing but its
// goroutine: only an operation in progress holds a database connection, a hash's memory and a
// core. So a burst that the slots cannot take at once (a shift change signing in, a CI suite
// registering users) waits its turn instead of being refused, and is refused only when waiting
// cannot help:
//   - the queue is full (queueLimit waiters): what bounds the memory of the waiters;
//   - the client address already holds its share of the queue (queueShare), so that one address
//     cannot fill the queue and shut everyone else out;
//   - the request would not finish before its deadline (see estimate).
//
// The refusal is 503 service_busy with Retry-After, before any query, so it does not count as
// a sign-in attempt.
type passwordQueue struct {
	slots int // operations in progress at most
	limit int // waiters at most
	share int // waiters per client address at most
	// now reads the monotonic clock the request deadlines are set on; tests move it by hand.
	// It is not the service's clock, which is for business rules and may be set anywhere.
	now func() time.Time
	// pace is how long a refusal is held before it is answered (see refusalPace).
	pace time.Duration

	mu      sync.Mutex
	running int
	waiting list.List // of *waiter, oldest first
	perAddr map[string]int
	// mean is a moving average of how long an admitted operation took (0 until one finished).
	mean time.Duration
}

// queueLimit bounds the waiters on one server. A waiter holds its goroutine and its request
// (a few tens of KiB: the bodies of these operations are small), so a few hundred cost a few
// MiB, while a full queue drains within a request's deadline at OWASP cost on two cores.
const queueLimit = 256

// queueShare is how many of the queue's places one client address may hold: an office or a
// CI runner behind one address gets far more than it signs in at once, and it takes eight
// addresses to fill the queue. (An address is also held to its sign-in and registration rates,
// but those are checked once admitted, with a query.)
const queueShare = 32

// maxRetryAfter caps the Retry-After of a refusal, which is otherwise the estimated time for
// the queue to drain.
const maxRetryAfter = 30 * time.Second

// refusalPace holds a refusal this long before answering it. A client that keeps many requests
// open (a flood's usual shape) would otherwise turn instant refusals into a fast loop of
// requests that each cost the server a parse and a validation; holding the answer costs only a
// goroutine, as before the queue (when every refusal came after a 250 ms wait). A legitimate
// client waits Retry-After (1 s at least) anyway.
const refusalPace = 250 * time.Millisecond

// meanWeight is how much one operation's duration moves the average (1/meanWeight): enough
// history to ride out one slow operation, little enough to follow the load within seconds.
const meanWeight = 8

type waiter struct {
	addr     string
	admitted chan struct{} // closed when the waiter is handed a slot
	granted  bool          // under mu: the slot is the waiter's (it must pass it on if it leaves)
	elem     *list.Element
}

func newPasswordQueue(slots, limit, share int, now func() time.Time, pace time.Duration) *passwordQueue {
	return &passwordQueue{slots: slots, limit: limit, share: share, now: now, pace: pace, perAddr: map[string]int{}}
}

// run runs fn once the operation's turn comes, or answers why it will not: service_busy (the
// queue is full, the address has its share, or the deadline would pass first) or the context's
// error when the client went away. onQueued, when not nil, is called once the request joined
// the queue (tests wait on it).
func (q *passwordQueue) run(ctx context.Context, addr string, onQueued func(), fn func()) error {
	w, err := q.enter(ctx, addr)
	if err != nil {
		metrics.PasswordHashRefused.Inc()
		q.hold(ctx)
		return err
	}
	if w != nil {
		queued := q.now()
		metrics.PasswordHashWaiting.Inc()
		if onQueued != nil {
			onQueued()
		}
		err := q.await(ctx, w)
		metrics.PasswordHashWaiting.Dec()
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) { // answered service_busy
				metrics.PasswordHashRefused.Inc()
			}
			return err
		}
		metrics.PasswordHashWait.Observe(q.now().Sub(queued).Seconds())
	} else {
		metrics.PasswordHashWait.Observe(0)
	}
	start := q.now()
	defer q.done(start)
	fn()
	return nil
}

// enter takes a free slot (nil waiter) or a place at the back of the queue.
func (q *passwordQueue) enter(ctx context.Context, addr string) (*waiter, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.running < q.slots && q.waiting.Len() == 0 {
		q.running++
		return nil, nil
	}
	ahead := q.waiting.Len()
	wait := q.estimate(ahead)
	if ahead >= q.limit || q.perAddr[addr] >= q.share {
		return nil, busy(wait)
	}
	if d, ok := ctx.Deadline(); ok && q.now().Add(wait+q.mean).After(d) {
		return nil, busy(wait)
	}
	w := &waiter{addr: addr, admitted: make(chan struct{})}
	w.elem = q.waiting.PushBack(w)
	q.perAddr[addr]++
	return w, nil
}

// hold waits out the refusal pace, or until the request ends.
func (q *passwordQueue) hold(ctx context.Context) {
	if q.pace <= 0 {
		return
	}
	t := time.NewTimer(q.pace)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// estimate is how long a newcomer with ahead waiters in front of it waits for a slot: it is
// admitted once ahead+1 operations have finished, and operations finish at slots per mean
// duration (Little's law: the mean is measured under the same contention, waiting for a hash
// slot included). The request must also run its own operation (one mean more) before its
// deadline. With nothing measured yet the estimate is 0, and only the deadline itself, through
// the context, ends the wait.
func (q *passwordQueue) estimate(ahead int) time.Duration {
	return time.Duration(ahead+1) * q.mean / time.Duration(q.slots)
}

// await waits for w's turn. A waiter whose request ends first leaves the queue, and one that was
// handed a slot at that very moment passes it on.
func (q *passwordQueue) await(ctx context.Context, w *waiter) error {
	select {
	case <-w.admitted:
		if ctx.Err() == nil {
			return nil
		}
	case <-ctx.Done():
	}
	q.mu.Lock()
	if w.granted {
		q.release()
	} else {
		q.waiting.Remove(w.elem)
		q.dropAddr(w.addr)
	}
	wait := q.estimate(q.waiting.Len())
	q.mu.Unlock()
	return abandoned(ctx, wait)
}

// done records how long the operation took and hands its slot on.
func (q *passwordQueue) done(start time.Time) {
	took := q.now().Sub(start)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.mean == 0 {
		q.mean = took
	} else {
		q.mean += (took - q.mean) / meanWeight
	}
	q.release()
}

// release hands a finished slot to the oldest waiter, or frees it. Called with mu held.
func (q *passwordQueue) release() {
	if e := q.waiting.Front(); e != nil {
		w := q.waiting.Remove(e).(*waiter)
		q.dropAddr(w.addr)
		w.granted = true
		close(w.admitted)
		return
	}
	q.running--
}

func (q *passwordQueue) dropAddr(addr string) {
	if q.perAddr[addr]--; q.perAddr[addr] <= 0 {
		delete(q.perAddr, addr)
	}
}

// busy is the refusal, with the estimated time for the queue to drain as Retry-After.
func busy(wait time.Duration) error {
	return apierr.Unavailable(apierr.CodeServiceBusy,
		"The server is busy checking passwords; retry after the time in Retry-After",
		min(max(wait, time.Second), maxRetryAfter))
}

// abandoned is the answer to a request whose context ended while it waited: service_busy when
// its deadline passed (the client is still there), the context's error when the client left.
func abandoned(ctx context.Context, wait time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return busy(wait)
	}
	return ctx.Err()
}
