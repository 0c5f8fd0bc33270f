package pg

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// fence keeps a pool off a server that stopped answering. Something makes it suspect a server:
// one of its connections left a request unanswered for stallAfter (see watchedConn), or pgx gave
// up on one of its connections. It then asks the server the first question of the protocol (an
// SSLRequest, which any live postmaster or pooler answers at once, before TLS or
// authentication). If no answer comes within the connect timeout, the server is fenced: every
// connection to it is closed, and new connections to it fail at once instead of waiting out the
// connect timeout, until it answers a probe again.
//
// Without it, requests already waiting on a primary that froze (a paused VM or a stopped
// process: its sockets stay open, its port accepts, nothing answers) would hold their pooled
// connections until their deadlines, and every new connection of a multi-host URL would first
// spend the connect timeout on the frozen host before reaching the new primary. A server that
// answers is left alone, so a slow query costs one probe a second.
type fence struct {
	timeout time.Duration // how long a server may take to answer a probe
	clock   timers
	answers func(network, addr string, timeout time.Duration) bool
	spawn   func(func()) // runs a probe: in a goroutine of its own, but for tests

	mu    sync.Mutex
	conns map[*watchedConn]struct{}
	hosts map[string]*hostState
	// fencedHosts counts the hosts fenced now (changed under mu), so that handing out a pooled
	// connection, on every query, costs one atomic load while no server is fenced.
	fencedHosts atomic.Int32
}

// hostState is what the fence knows of one server address.
type hostState struct {
	fenced  bool      // its last probe went unanswered
	probing bool      // a probe is in flight
	probed  time.Time // when the last probe started
}

// Timing of the fence.
const (
	// stallAfter is how long a connection may wait for any answer to what it sent before its
	// server is suspected (and probed, which a live server answers at once).
	stallAfter = time.Second
	// probeEvery spaces the probes of a server that is not fenced: however many slow queries
	// wait on it, it is probed at most twice a second.
	probeEvery = 500 * time.Millisecond
	// probeWait is how long a connection attempt to a fenced server waits for the probe it
	// started: a live server answers in milliseconds.
	probeWait = 200 * time.Millisecond
)

// errFenced is the dial error of a fenced server: pgx goes on to the next host of the URL at
// once, and a request with no host left answers 503.
var errFenced = errors.New("the server did not answer within the connect timeout; not connecting until it does")

// timers is the clock of the fence and of its connections' stall detection; tests drive it.
type timers interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) timer
}

type timer interface {
	Reset(d time.Duration) bool
	Stop() bool
}

type realTimers struct{}

func (realTimers) Now() time.Time                            { return time.Now() }
func (realTimers) AfterFunc(d time.Duration, f func()) timer { return time.AfterFunc(d, f) }

func newFence(timeout time.Duration) *fence {
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	return &fence{
		timeout: timeout,
		clock:   realTimers{},
		answers: answers,
		spawn:   func(f func()) { go f() },
		conns:   map[*watchedConn]struct{}{},
		hosts:   map[string]*hostState{},
	}
}

// allow returns nil if a connection to addr may be attempted, and errFenced while the server is
// fenced. A fenced server is probed again when something tries to reach it and no probe is in
// flight; the attempt that started the probe waits up to probeWait for its answer, so a server
// that is back is let in at once, and one that is still frozen costs that attempt little and
// the others nothing.
func (f *fence) allow(ctx context.Context, network, addr string) error {
	f.mu.Lock()
	h := f.hosts[addr]
	if h == nil || !h.fenced {
		f.mu.Unlock()
		return nil
	}
	due := f.dueLocked(h)
	f.mu.Unlock()
	if due {
		done := make(chan struct{})
		f.spawn(func() {
			defer close(done)
			f.probe(network, addr)
		})
		expired := make(chan struct{})
		wait := f.clock.AfterFunc(probeWait, func() { close(expired) })
		select {
		case <-done:
		case <-expired:
		case <-ctx.Done():
		}
		wait.Stop()
		if !f.fenced(addr) {
			return nil
		}
	}
	return fmt.Errorf("dial %s %s: %w", network, addr, errFenced)
}

// fenced reports whether the server at addr is fenced.
func (f *fence) fenced(addr string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := f.hosts[addr]
	return h != nil && h.fenced
}

// suspect probes the server at addr, unless a probe is in flight or one started less than
// probeEvery ago.
func (f *fence) suspect(network, addr string) {
	f.mu.Lock()
	h := f.hosts[addr]
	if h == nil {
		h = &hostState{}
		f.hosts[addr] = h
	}
	due := f.dueLocked(h)
	f.mu.Unlock()
	if due {
		f.spawn(func() { f.probe(network, addr) })
	}
}

// dueLocked reports whether a probe of h is due, and if so marks it started: due when none is
// in flight and, unless h is fenced, none started in the last probeEvery. A fenced server is not
// probed more often than that for it: one that refuses connections answers a probe at once,
// and one that froze holds a probe for the timeout.
func (f *fence) dueLocked(h *hostState) bool {
	now := f.clock.Now()
	if h.probing || (!h.fenced && !h.probed.IsZero() && now.Sub(h.probed) < probeEvery) {
		return false
	}
	h.probing, h.probed = true, now
	return true
}

// probe asks the server at addr whether it answers, then fences it (closing every connection to
// it) or lets it back in.
func (f *fence) probe(network, addr string) {
	ok := f.answers(network, addr, f.timeout)
	f.mu.Lock()
	h := f.hosts[addr]
	if h.fenced != !ok {
		if ok {
			f.fencedHosts.Add(-1)
		} else {
			f.fencedHosts.Add(1)
		}
	}
	h.probing, h.fenced = false, !ok
	var doomed []*watchedConn
	if !ok {
		for c := range f.conns {
			if c.addr == addr {
				doomed = append(doomed, c)
			}
		}
	}
	f.mu.Unlock()
	// What waits on these fails now, and pgx and the pool discard the connection.
	for _, c := range doomed {
		_ = c.Close()
	}
}

// beforeClose suspects the server of a connection pgx gave up on (it is already closed: a query
// timed out or the connection failed).
func (f *fence) beforeClose(c *pgx.Conn) {
	if !c.IsClosed() {
		return
	}
	if nc := c.PgConn().Conn(); nc != nil {
		ra := nc.RemoteAddr()
		f.suspect(ra.Network(), ra.String())
	}
}

// prepareConn keeps the pool from handing out a connection to a fenced server: the fence closed
// its socket, and it would fail the request that took it.
func (f *fence) prepareConn(c *pgx.Conn) bool { return f.usable(c.PgConn().Conn()) }

// usable reports whether nc's server is not fenced.
func (f *fence) usable(nc net.Conn) bool {
	if nc == nil || f.fencedHosts.Load() == 0 {
		return true
	}
	return !f.fenced(nc.RemoteAddr().String())
}

// sslRequest is the protocol's SSLRequest message: length 8, code 80877103.
var sslRequest = []byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f}

// answers reports whether the server at addr replies to an SSLRequest within timeout.
func answers(network, addr string, timeout time.Duration) bool {
	c, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	if _, err := c.Write(sslRequest); err != nil {
		return false
	}
	var b [1]byte
	_, err = c.Read(b[:])
	return err == nil
}
