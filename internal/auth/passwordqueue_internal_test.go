package auth

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/apierr"
)

// fakeNow is a monotonic clock that moves only when told to.
type fakeNow struct {
	mu sync.Mutex
	t  time.Time
}

func (f *fakeNow) now() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.t }
func (f *fakeNow) advance(d time.Duration) {
	f.mu.Lock()
	f.t = f.t.Add(d)
	f.mu.Unlock()
}

// testCtx is a request context whose deadline is read on the fake clock and whose end the test
// decides: expire() as its deadline passing, cancel() as its client leaving.
type testCtx struct {
	context.Context
	deadline time.Time
	done     chan struct{}
	once     sync.Once
	mu       sync.Mutex
	err      error
}

func newTestCtx(deadline time.Time) *testCtx {
	return &testCtx{Context: context.Background(), deadline: deadline, done: make(chan struct{})}
}

func (c *testCtx) Deadline() (time.Time, bool) { return c.deadline, !c.deadline.IsZero() }
func (c *testCtx) Done() <-chan struct{}       { return c.done }
func (c *testCtx) Err() error                  { c.mu.Lock(); defer c.mu.Unlock(); return c.err }
func (c *testCtx) end(err error) {
	c.once.Do(func() { c.mu.Lock(); c.err = err; c.mu.Unlock(); close(c.done) })
}
func (c *testCtx) expire() { c.end(context.DeadlineExceeded) }
func (c *testCtx) cancel() { c.end(context.Canceled) }

// op is one operation sent to the queue: ran is closed when its fn starts, and fn then waits
// for release (closed at once for operations that need not be held).
type op struct {
	ran, release chan struct{}
	err          chan error
}

// send runs an operation for addr in the background and returns once it is running, queued or
// refused, so that operations sent one after another arrive in that order.
func send(ctx context.Context, q *passwordQueue, addr string, hold bool, during func()) *op {
	o := &op{ran: make(chan struct{}), release: make(chan struct{}), err: make(chan error, 1)}
	if !hold {
		close(o.release)
	}
	settled := make(chan struct{}, 3)
	go func() {
		err := q.run(ctx, addr, func() { settled <- struct{}{} }, func() {
			close(o.ran)
			settled <- struct{}{}
			if during != nil {
				during()
			}
			<-o.release
		})
		settled <- struct{}{}
		o.err <- err
	}()
	<-settled
	return o
}

func (q *passwordQueue) state() (running, waiting, addrs int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.running, q.waiting.Len(), len(q.perAddr)
}

func expectBusy(t *testing.T, err error) *apierr.Error {
	t.Helper()
	e, ok := apierr.As(err)
	if !ok || e.Code != apierr.CodeServiceBusy || e.RetryAfter < time.Second {
		t.Fatalf("err %v, want service_busy with Retry-After", err)
	}
	return e
}

func expectIdle(t *testing.T, q *passwordQueue) {
	t.Helper()
	if r, w, a := q.state(); r != 0 || w != 0 || a != 0 {
		t.Fatalf("after everything finished: %d running, %d waiting, %d addresses counted", r, w, a)
	}
}

var far = time.Now().Add(time.Hour)

func TestQueueAdmitsInArrivalOrder(t *testing.T) {
	clock := &fakeNow{t: time.Now()}
	q := newPasswordQueue(1, 10, 10, clock.now, 0)
	holder := send(newTestCtx(far), q, "198.51.100.1", true, nil)
	<-holder.ran
	var mu sync.Mutex
	var order []int
	var ops []*op
	for i := range 6 {
		ops = append(ops, send(newTestCtx(far), q, "198.51.100.2", false, func() {
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
		}))
	}
	if _, w, _ := q.state(); w != 6 {
		t.Fatalf("%d waiting, want 6", w)
	}
	close(holder.release)
	for _, o := range append(ops, holder) {
		if err := <-o.err; err != nil {
			t.Fatal(err)
		}
	}
	if want := []int{0, 1, 2, 3, 4, 5}; !equal(order, want) {
		t.Fatalf("ran in order %v, want %v", order, want)
	}
	expectIdle(t, q)
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The queue's bound and an address's share, each refusing while the other has room.
func TestQueueRefusesBeyondItsBoundAndAnAddressBeyondItsShare(t *testing.T) {
	clock := &fakeNow{t: time.Now()}
	q := newPasswordQueue(1, 3, 2, clock.now, 0)
	holder := send(newTestCtx(far), q, "198.51.100.1", true, nil)
	<-holder.ran

	a1 := send(newTestCtx(far), q, "198.51.100.2", false, nil)
	a2 := send(newTestCtx(far), q, "198.51.100.2", false, nil)
	expectBusy(t, <-send(newTestCtx(far), q, "198.51.100.2", false, nil).err) // a's share
	b1 := send(newTestCtx(far), q, "198.51.100.3", false, nil)
	expectBusy(t, <-send(newTestCtx(far), q, "198.51.100.4", false, nil).err) // the bound
	if r, w, a := q.state(); r != 1 || w != 3 || a != 2 {
		t.Fatalf("%d running, %d waiting from %d addresses; want 1, 3, 2", r, w, a)
	}

	close(holder.release)
	for _, o := range []*op{holder, a1, a2, b1} {
		if err := <-o.err; err != nil {
			t.Fatal(err)
		}
	}
	expectIdle(t, q)
}

// 40 operations at once from 5 addresses, 2 slots held: exactly the queue's 10 places are
// taken, no address holds more than its share of 3, and the other 30 are refused at once.
func TestQueueCountsWinnersUnderConcurrentArrivals(t *testing.T) {
	clock := &fakeNow{t: time.Now()}
	q := newPasswordQueue(2, 10, 3, clock.now, 0)
	h1 := send(newTestCtx(far), q, "198.51.100.1", true, nil)
	h2 := send(newTestCtx(far), q, "198.51.100.1", true, nil)

	addrs := []string{"203.0.113.1", "203.0.113.2", "203.0.113.3", "203.0.113.4", "203.0.113.5"}
	type result struct {
		addr string
		err  error
	}
	results := make(chan result, 40)
	arrived := make(chan struct{}, 40)
	for i := range 40 {
		addr := addrs[i%len(addrs)]
		go func() {
			queued := false
			err := q.run(newTestCtx(far), addr, func() { queued = true; arrived <- struct{}{} }, func() {})
			if !queued {
				arrived <- struct{}{}
			}
			results <- result{addr, err}
		}()
	}
	for range 40 {
		<-arrived
	}
	close(h1.release)
	close(h2.release)
	won := map[string]int{}
	refused := 0
	for range 40 {
		r := <-results
		if r.err != nil {
			expectBusy(t, r.err)
			refused++
			continue
		}
		won[r.addr]++
	}
	total := 0
	for addr, n := range won {
		if n > 3 {
			t.Errorf("%s got %d places, its share is 3", addr, n)
		}
		total += n
	}
	if total != 10 || refused != 30 {
		t.Fatalf("%d ran (%v), %d refused; want 10 and 30", total, won, refused)
	}
	<-h1.err
	<-h2.err
	expectIdle(t, q)
}

// A waiter whose client leaves, or whose deadline passes, leaves the queue: its place and its
// address's share are free again, and the slot goes to the next in line.
func TestQueueWaiterThatEndsLeavesTheQueue(t *testing.T) {
	clock := &fakeNow{t: time.Now()}
	q := newPasswordQueue(1, 10, 1, clock.now, 0)
	holder := send(newTestCtx(far), q, "198.51.100.1", true, nil)
	<-holder.ran

	leaving, expiring := newTestCtx(far), newTestCtx(far)
	gone := send(leaving, q, "198.51.100.2", false, nil)
	late := send(expiring, q, "198.51.100.3", false, nil)
	next := send(newTestCtx(far), q, "198.51.100.4", false, nil)

	leaving.cancel()
	if err := <-gone.err; !errors.Is(err, context.Canceled) {
		t.Fatalf("client gone: %v, want context.Canceled", err)
	}
	expiring.expire()
	expectBusy(t, <-late.err)
	if _, w, a := q.state(); w != 1 || a != 1 {
		t.Fatalf("%d waiting from %d addresses, want the one still waiting", w, a)
	}
	// The address's share is free again.
	again := send(newTestCtx(far), q, "198.51.100.2", false, nil)

	close(holder.release)
	for _, o := range []*op{holder, next, again} {
		if err := <-o.err; err != nil {
			t.Fatal(err)
		}
	}
	expectIdle(t, q)
}

// A waiter handed the slot just as its request ends passes the slot on rather than keep it.
func TestQueueWaiterEndingAsItIsAdmittedPassesTheSlotOn(t *testing.T) {
	clock := &fakeNow{t: time.Now()}
	q := newPasswordQueue(1, 10, 10, clock.now, 0)
	if w, err := q.enter(context.Background(), "198.51.100.1"); w != nil || err != nil {
		t.Fatalf("first: %v, %v", w, err)
	}
	ctx := newTestCtx(far)
	w, err := q.enter(ctx, "198.51.100.2")
	if w == nil || err != nil {
		t.Fatalf("second: %v, %v", w, err)
	}
	q.done(clock.now()) // the slot is handed to w
	ctx.cancel()        // and its client leaves at the same moment
	if err := q.await(ctx, w); !errors.Is(err, context.Canceled) {
		t.Fatalf("await: %v", err)
	}
	expectIdle(t, q)
}

// A newcomer is refused at once when the operations ahead of it, at the measured pace, would
// not leave it time to finish before its deadline; with time enough it waits.
func TestQueueRefusesWhenTheWaitWouldPassTheDeadline(t *testing.T) {
	clock := &fakeNow{t: time.Now()}
	q := newPasswordQueue(2, 10, 10, clock.now, 0)
	// Two operations of 2 s each set the pace: one slot frees every second.
	for range 2 {
		<-send(newTestCtx(far), q, "198.51.100.1", false, func() { clock.advance(2 * time.Second) }).err
	}
	h1 := send(newTestCtx(far), q, "198.51.100.1", true, nil)
	h2 := send(newTestCtx(far), q, "198.51.100.1", true, nil)

	at := func(d time.Duration) *testCtx { return newTestCtx(clock.now().Add(d)) }
	// First in line: a slot in 1 s, then its own 2 s.
	first := send(at(3*time.Second), q, "198.51.100.2", false, nil)
	// Second in line: 2 s + 2 s does not fit in 3.5 s; Retry-After is the 2 s wait.
	if e := expectBusy(t, <-send(at(3500*time.Millisecond), q, "198.51.100.3", false, nil).err); e.RetryAfter != 2*time.Second {
		t.Fatalf("Retry-After %s, want 2s", e.RetryAfter)
	}
	second := send(at(4*time.Second), q, "198.51.100.3", false, nil)
	// No deadline: the queue's bound alone limits the wait.
	third := send(context.Background(), q, "198.51.100.4", false, nil)
	if _, w, _ := q.state(); w != 3 {
		t.Fatalf("%d waiting, want 3", w)
	}

	close(h1.release)
	close(h2.release)
	for _, o := range []*op{h1, h2, first, second, third} {
		if err := <-o.err; err != nil {
			t.Fatal(err)
		}
	}
	expectIdle(t, q)
}
