package pg

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// fakeTimers is a clock that moves only when told to, firing the timers that fall due.
type fakeTimers struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	armed  chan struct{} // receives once per AfterFunc
}

type fakeTimer struct {
	c      *fakeTimers
	at     time.Time
	f      func()
	active bool
}

func newFakeTimers() *fakeTimers {
	return &fakeTimers{now: time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC), armed: make(chan struct{}, 100)}
}

func (c *fakeTimers) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeTimers) AfterFunc(d time.Duration, f func()) timer {
	c.mu.Lock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f, active: true}
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	c.armed <- struct{}{}
	return t
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.at, t.active = t.c.now.Add(d), true
	return was
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.active = false
	return was
}

// Advance moves the clock by d, firing each timer that falls due (in its own turn, as
// time.AfterFunc does, but before Advance returns).
func (c *fakeTimers) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*fakeTimer
	for _, t := range c.timers {
		if t.active && !t.at.After(c.now) {
			t.active = false
			due = append(due, t)
		}
	}
	c.mu.Unlock()
	for _, t := range due {
		t.f()
	}
}

// probes stands in for the servers' answers to the fence's probes.
type probes struct {
	mu      sync.Mutex
	alive   map[string]bool
	asked   []string
	release chan struct{} // when set, each probe waits for it
}

func (p *probes) answers(_, addr string, _ time.Duration) bool {
	p.mu.Lock()
	p.asked = append(p.asked, addr)
	release := p.release
	p.mu.Unlock()
	if release != nil {
		<-release
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.alive[addr]
}

func (p *probes) set(addr string, alive bool) {
	p.mu.Lock()
	p.alive[addr] = alive
	p.mu.Unlock()
}

func (p *probes) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.asked)
}

// testFence is a fence on a fake clock whose probes run at once, in the caller's goroutine.
func testFence(t *testing.T) (*fence, *fakeTimers, *probes) {
	t.Helper()
	clock := newFakeTimers()
	p := &probes{alive: map[string]bool{}}
	f := newFence(2 * time.Second)
	f.clock, f.answers, f.spawn = clock, p.answers, func(fn func()) { fn() }
	return f, clock, p
}

// serverConn is a watched connection to addr whose server side reads everything; answer sends
// the client a byte.
type serverConn struct {
	*watchedConn
	server net.Conn
}

func dialFake(t *testing.T, f *fence, addr string) serverConn {
	t.Helper()
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close(); server.Close() })
	go func() { _, _ = io.Copy(io.Discard, server) }()
	return serverConn{f.watch(client, "tcp", addr), server}
}

func (c serverConn) ask(t *testing.T) {
	t.Helper()
	if _, err := c.Write([]byte("Q")); err != nil {
		t.Fatal(err)
	}
}

func (c serverConn) answer(t *testing.T) {
	t.Helper()
	go func() { _, _ = c.server.Write([]byte("Z")) }()
	var b [1]byte
	if _, err := c.Read(b[:]); err != nil {
		t.Fatal(err)
	}
}

func (c serverConn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

func TestFenceSuspectsAServerThatLeavesARequestUnanswered(t *testing.T) {
	f, clock, p := testFence(t)
	conn := dialFake(t, f, "db1:5432")
	conn.ask(t)
	clock.Advance(stallAfter - time.Millisecond)
	if p.count() != 0 {
		t.Fatalf("probed after %v", stallAfter-time.Millisecond)
	}
	clock.Advance(time.Millisecond)
	if p.count() != 1 {
		t.Fatalf("%d probes after waiting %v for an answer, want 1", p.count(), stallAfter)
	}
	// The server did not answer the probe: the connection is closed, new ones fail at once.
	if !conn.isClosed() {
		t.Fatal("the connection to the silent server is still open")
	}
	if err := f.allow(t.Context(), "tcp", "db1:5432"); !errors.Is(err, errFenced) {
		t.Fatalf("dial to the fenced server: %v, want errFenced", err)
	}
	if err := f.allow(t.Context(), "tcp", "db2:5432"); err != nil {
		t.Fatalf("dial to another server: %v", err)
	}
	// The pool hands out no pooled connection to it either, and still does to another server.
	if f.usable(remoteAt("db1:5432")) {
		t.Fatal("a pooled connection to the fenced server is handed out")
	}
	if !f.usable(remoteAt("db2:5432")) {
		t.Fatal("a pooled connection to another server is held back")
	}
	// Once it answers a probe again, the next dial gets through.
	p.set("db1:5432", true)
	if err := f.allow(t.Context(), "tcp", "db1:5432"); err != nil {
		t.Fatalf("dial to the server that answers again: %v", err)
	}
	if f.fenced("db1:5432") {
		t.Fatal("still fenced")
	}
	if !f.usable(remoteAt("db1:5432")) {
		t.Fatal("a pooled connection to the server that answers again is held back")
	}
}

// remoteAt is a connection whose server is at addr (only RemoteAddr is used).
func remoteAt(addr string) net.Conn { return addrConn{addr: addr} }

type addrConn struct {
	net.Conn
	addr string
}

func (c addrConn) RemoteAddr() net.Addr { return fakeAddr(c.addr) }

type fakeAddr string

func (a fakeAddr) Network() string { return "tcp" }
func (a fakeAddr) String() string  { return string(a) }

func TestFenceLeavesAnsweringServersAlone(t *testing.T) {
	for _, tc := range []struct {
		name   string
		act    func(t *testing.T, conn serverConn, clock *fakeTimers)
		probes int
	}{
		{"answered within the stall time", func(t *testing.T, conn serverConn, clock *fakeTimers) {
			conn.ask(t)
			clock.Advance(stallAfter / 2)
			conn.answer(t)
			clock.Advance(10 * stallAfter)
		}, 0},
		{"a new request after an answer gets its own time", func(t *testing.T, conn serverConn, clock *fakeTimers) {
			conn.ask(t)
			clock.Advance(stallAfter * 3 / 4)
			conn.answer(t)
			conn.ask(t)
			clock.Advance(stallAfter / 2) // the first request's time has passed, not the second's
		}, 0},
		{"waiting without having asked (LISTEN)", func(t *testing.T, conn serverConn, clock *fakeTimers) {
			conn.ask(t)
			conn.answer(t)
			clock.Advance(time.Minute)
		}, 0},
		{"a slow query on a live server, probed once a stall time", func(t *testing.T, conn serverConn, clock *fakeTimers) {
			conn.ask(t)
			clock.Advance(stallAfter)
			clock.Advance(stallAfter / 2)
			clock.Advance(stallAfter / 2)
		}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, clock, p := testFence(t)
			p.set("db1:5432", true)
			conn := dialFake(t, f, "db1:5432")
			tc.act(t, conn, clock)
			if p.count() != tc.probes {
				t.Fatalf("%d probes, want %d", p.count(), tc.probes)
			}
			if conn.isClosed() || f.fenced("db1:5432") {
				t.Fatal("a server that answers was fenced")
			}
		})
	}
}

// TestFenceProbesOnceForManyStalls: however many connections wait on the same server, it is
// probed at most once per probeEvery, and only its own connections are closed.
func TestFenceProbesOnceForManyStalls(t *testing.T) {
	f, clock, p := testFence(t)
	var stuck []serverConn
	for range 5 {
		c := dialFake(t, f, "db1:5432")
		c.ask(t)
		stuck = append(stuck, c)
	}
	other := dialFake(t, f, "db2:5432")
	p.set("db2:5432", true)
	clock.Advance(stallAfter)
	if p.count() != 1 {
		t.Fatalf("%d probes for five stalled connections, want 1", p.count())
	}
	for i, c := range stuck {
		if !c.isClosed() {
			t.Fatalf("stalled connection %d still open", i)
		}
	}
	if other.isClosed() {
		t.Fatal("the connection to the other server was closed")
	}
}

// TestFencedDialWaitsOnlyForItsOwnProbe: while a fenced server's probe is in flight, dials to it
// fail at once; the dial that started the probe waits probeWait at most.
func TestFencedDialWaitsOnlyForItsOwnProbe(t *testing.T) {
	f, clock, p := testFence(t)
	conn := dialFake(t, f, "db1:5432")
	conn.ask(t)
	clock.Advance(stallAfter) // fenced: the probe went unanswered
	<-clock.armed             // the connection's stall timer
	p.mu.Lock()
	p.release = make(chan struct{}) // the next probe hangs, as on a frozen server
	p.mu.Unlock()
	var probing sync.WaitGroup
	f.spawn = func(fn func()) { probing.Go(fn) }

	first := make(chan error, 1)
	go func() { first <- f.allow(context.Background(), "tcp", "db1:5432") }()
	<-clock.armed // the first dial waits for its probe
	if err := f.allow(t.Context(), "tcp", "db1:5432"); !errors.Is(err, errFenced) {
		t.Fatalf("second dial during the probe: %v, want errFenced at once", err)
	}
	clock.Advance(probeWait)
	if err := <-first; !errors.Is(err, errFenced) {
		t.Fatalf("first dial: %v, want errFenced after probeWait", err)
	}
	// The probe in flight is answered now: the server is let back in.
	p.set("db1:5432", true)
	close(p.release)
	probing.Wait()
	if p.count() != 2 {
		t.Fatalf("%d probes, want 2 (the stall's, then the first dial's)", p.count())
	}
	if f.fenced("db1:5432") {
		t.Fatal("a server that answered its probe is still fenced")
	}
}

// TestStallTimerFiringLate: a stall timer that fires for a request answered meanwhile, while a
// newer one waits, waits out the newer one's time instead of suspecting the server early.
func TestStallTimerFiringLate(t *testing.T) {
	f, clock, p := testFence(t)
	conn := dialFake(t, f, "db1:5432")
	conn.ask(t)
	clock.Advance(stallAfter / 2)
	conn.check() // as if the timer of an earlier request had just fired
	if p.count() != 0 {
		t.Fatalf("probed after %v", stallAfter/2)
	}
	clock.Advance(stallAfter / 2)
	if p.count() != 1 {
		t.Fatalf("%d probes after waiting %v, want 1", p.count(), stallAfter)
	}
}
