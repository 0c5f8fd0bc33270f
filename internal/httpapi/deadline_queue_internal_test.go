package httpapi

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// joined makes a scope of parent in q, as requestScope does.
func joined(q *deadlineQueue, parent context.Context) (*scope, func()) {
	s := &scope{parent: parent}
	q.join(s)
	return s, func() { q.leave(s); s.end() }
}

// TestDeadlineQueueEndsRequestsAsATimeoutWould: a request past its deadline is done with
// DeadlineExceeded, the deadline it reports is the one that ended it, what waits on a context
// made from it is woken (with the deadline as the cause), and a request that ended in time
// leaves nothing behind.
func TestDeadlineQueueEndsRequestsAsATimeoutWould(t *testing.T) {
	t.Parallel()
	q := newDeadlineQueue(20 * time.Millisecond)
	start := time.Now()
	s, done := joined(q, context.Background())
	defer done()
	d, ok := s.Deadline()
	if !ok || d.Before(start.Add(20*time.Millisecond)) || d.After(time.Now().Add(20*time.Millisecond)) {
		t.Fatalf("deadline %v (%v), want 20ms after %v", d, ok, start)
	}
	child, cancelChild := context.WithCancel(s)
	defer cancelChild()
	woken := make(chan struct{})
	stop := context.AfterFunc(s, func() { close(woken) })
	defer stop()

	<-s.Done()
	if time.Now().Before(d) {
		t.Fatalf("ended %v before its deadline", time.Until(d))
	}
	if !errors.Is(s.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err %v, want DeadlineExceeded", s.Err())
	}
	<-child.Done()
	<-woken
	if !errors.Is(context.Cause(child), context.DeadlineExceeded) || !errors.Is(context.Cause(s), context.DeadlineExceeded) {
		t.Fatalf("causes %v, %v; want DeadlineExceeded", context.Cause(child), context.Cause(s))
	}
	if n := q.len(); n != 0 {
		t.Fatalf("%d left in the queue", n)
	}

	quick, end := joined(q, context.Background())
	end()
	if n := q.len(); n != 0 || quick.Err() != context.Canceled {
		t.Fatalf("%d left in the queue, Err %v; want 0 and Canceled", n, quick.Err())
	}
}

// TestDeadlineQueueKeepsTheClientsCancel: a client that went away ends the request with
// Canceled, not a deadline, even when the deadline passes afterwards; an earlier deadline of the
// parent's is the one reported.
func TestDeadlineQueueKeepsTheClientsCancel(t *testing.T) {
	t.Parallel()
	q := newDeadlineQueue(time.Hour)
	parent, leave := context.WithCancel(context.Background())
	s, done := joined(q, parent)
	defer done()
	leave()
	<-s.Done()
	if s.Err() != context.Canceled {
		t.Fatalf("Err %v, want Canceled", s.Err())
	}
	// Its deadline passes (moved into the past rather than waited for): ending it changes nothing.
	q.mu.Lock()
	s.deadline = time.Now().Add(-time.Millisecond)
	q.mu.Unlock()
	q.expire()
	if q.len() != 0 || s.Err() != context.Canceled {
		t.Fatalf("Err %v after the deadline, want Canceled", s.Err())
	}

	early := time.Now().Add(time.Millisecond)
	parent2, cancel2 := context.WithDeadline(context.Background(), early)
	defer cancel2()
	s2, done2 := joined(q, parent2)
	defer done2()
	if d, _ := s2.Deadline(); !d.Equal(early) {
		t.Fatalf("deadline %v, want the parent's %v", d, early)
	}
	<-s2.Done()
	if !errors.Is(s2.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err %v, want the parent's DeadlineExceeded", s2.Err())
	}
}

// TestDeadlineQueueUnderConcurrentRequests: 64 requests at once, every other one ending in time;
// every one that stayed is ended by its deadline, none ends before it, and the queue ends empty.
func TestDeadlineQueueUnderConcurrentRequests(t *testing.T) {
	t.Parallel()
	q := newDeadlineQueue(30 * time.Millisecond)
	const n = 64
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		timedOut int
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, done := joined(q, context.Background())
			defer done()
			if i%2 == 0 {
				return // ended in time
			}
			<-s.Done()
			d, _ := s.Deadline()
			if time.Now().Before(d) {
				t.Errorf("ended %v before its deadline", time.Until(d))
			}
			mu.Lock()
			defer mu.Unlock()
			if errors.Is(s.Err(), context.DeadlineExceeded) {
				timedOut++
			}
		}()
	}
	wg.Wait()
	if timedOut != n/2 {
		t.Fatalf("%d ended by their deadline, want %d", timedOut, n/2)
	}
	if left := q.len(); left != 0 {
		t.Fatalf("%d left in the queue", left)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head != nil || q.tail != nil {
		t.Fatal("queue ends not cleared")
	}
}

// A request's cancelable context is made only when something asks for Done, or when its
// deadline passes first; made late, it answers as if it had been there all along.
func TestScopeMakesItsCancelationWhenAsked(t *testing.T) {
	t.Parallel()
	q := newDeadlineQueue(time.Hour)

	// Never asked: nothing is made, and the ended request answers Canceled.
	quiet, end := joined(q, context.Background())
	if quiet.Err() != nil {
		t.Fatalf("Err %v before anything happened", quiet.Err())
	}
	end()
	if quiet.inner.Load() != nil || quiet.Err() != context.Canceled {
		t.Fatalf("made %v, Err %v; want nothing made and Canceled", quiet.inner.Load() != nil, quiet.Err())
	}
	select {
	case <-quiet.Done(): // asked after the end: already closed
	default:
		t.Fatal("Done asked after the end is not closed")
	}

	// Its deadline passes while nothing asked: made then, canceled with the deadline.
	late, end2 := joined(q, context.Background())
	defer end2()
	q.mu.Lock()
	late.deadline = time.Now().Add(-time.Millisecond)
	q.mu.Unlock()
	q.expire()
	<-late.Done()
	if late.Err() != context.DeadlineExceeded || !errors.Is(context.Cause(late), context.DeadlineExceeded) {
		t.Fatalf("Err %v, cause %v; want DeadlineExceeded", late.Err(), context.Cause(late))
	}

	// The client leaves while nothing asked: Canceled at once, and when asked later.
	parent, leave := context.WithCancel(context.Background())
	gone, end3 := joined(q, parent)
	defer end3()
	leave()
	if gone.Err() != context.Canceled {
		t.Fatalf("Err %v after the client left, want Canceled", gone.Err())
	}
	<-gone.Done()
	if !errors.Is(context.Cause(gone), context.Canceled) {
		t.Fatalf("cause %v, want Canceled", context.Cause(gone))
	}

	// Asked by many at once: one context, registered with the parent once.
	busy, end4 := joined(q, context.Background())
	var wg sync.WaitGroup
	chans := make(chan (<-chan struct{}), 32)
	for range 32 {
		wg.Go(func() { chans <- busy.Done() })
	}
	wg.Wait()
	close(chans)
	first := <-chans
	for ch := range chans {
		if ch != first {
			t.Fatal("Done answered different channels")
		}
	}
	child, cancelChild := context.WithCancel(busy)
	defer cancelChild()
	end4()
	<-child.Done()
	// quiet and busy left when they ended, late when it expired; gone has not ended yet.
	if n := q.len(); n != 1 {
		t.Fatalf("%d in the queue, want 1", n)
	}
}
