package httpapi

import (
	"sync"
	"time"
)

// deadlineQueue ends the requests of one timeout when their deadline passes, all of them from
// one timer. context.WithTimeout arms a runtime timer of its own for every request and stops it
// when the request ends: the arming and stopping (a lock and a heap update each, and the
// timer's allocations) were the largest single cost of an authenticated read's middleware.
// Requests of one timeout join in the order of their deadlines, so the queue is a list whose
// head expires first: joining and leaving are a few pointer writes under a lock, and the timer
// is moved only when it fires (once per timeout when requests finish in time) or when a request
// joins an empty queue.
//
// The queue ends a request through its scope (scope.expire), whose context is then canceled
// with the cause context.DeadlineExceeded; the scope reports that as its Err and its Deadline
// as the queue set it, so the request and whatever it waits on see an ordinary deadline. (A
// context made from the request's answers context.Canceled with that cause, as a child of any
// context canceled with a cause does.)
type deadlineQueue struct {
	timeout time.Duration

	mu         sync.Mutex
	head, tail *scope
	timer      *time.Timer
	armed      bool // timer will fire (the queue was not empty when it was last armed)
}

func newDeadlineQueue(timeout time.Duration) *deadlineQueue {
	q := &deadlineQueue{timeout: timeout}
	q.timer = time.AfterFunc(time.Hour, q.expire)
	q.timer.Stop()
	return q
}

// join gives s its deadline, ending it with context.DeadlineExceeded when the deadline passes;
// leave must follow when the request ends.
func (q *deadlineQueue) join(s *scope) {
	q.mu.Lock()
	// Taken under the lock, so deadlines rise from head to tail.
	s.deadline = time.Now().Add(q.timeout)
	s.prev, s.next, s.queued = q.tail, nil, true
	if q.tail != nil {
		q.tail.next = s
	} else {
		q.head = s
	}
	q.tail = s
	if !q.armed {
		q.armed = true
		q.timer.Reset(q.timeout)
	}
	q.mu.Unlock()
}

// leave takes s out of the queue (the request ended, in time or not).
func (q *deadlineQueue) leave(s *scope) {
	q.mu.Lock()
	q.unlink(s)
	q.mu.Unlock()
}

func (q *deadlineQueue) unlink(s *scope) {
	if !s.queued {
		return
	}
	if s.prev != nil {
		s.prev.next = s.next
	} else {
		q.head = s.next
	}
	if s.next != nil {
		s.next.prev = s.prev
	} else {
		q.tail = s.prev
	}
	s.prev, s.next, s.queued = nil, nil, false
}

// expire ends every request whose deadline has passed and arms the timer for the next one.
func (q *deadlineQueue) expire() {
	var expired []*scope
	q.mu.Lock()
	now := time.Now()
	for q.head != nil && !q.head.deadline.After(now) {
		s := q.head
		expired = append(expired, s)
		q.unlink(s)
	}
	if q.head != nil {
		q.timer.Reset(q.head.deadline.Sub(now))
	} else {
		q.armed = false
	}
	q.mu.Unlock()
	for _, s := range expired {
		s.expire()
	}
}

// len is how many requests are waiting for their deadline (tests).
func (q *deadlineQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for s := q.head; s != nil; s = s.next {
		n++
	}
	return n
}
