package pg

import (
	"net"
	"sync"
	"time"
)

// watchedConn is a connection to the database that tells its fence when the server leaves a
// request unanswered: something was written, and nothing has been received since for
// stallAfter. That catches a server that froze while requests wait on it, whatever they wait
// in (a query, a pool's ping, a connection's start-up), within seconds and with no traffic of
// its own; a slow query looks the same for a while, and its server answers the probe.
//
// A connection that waits without having asked anything (LISTEN between notifications) is
// not waiting on an answer, and is never suspected.
type watchedConn struct {
	net.Conn
	f             *fence
	network, addr string

	mu      sync.Mutex
	waiting bool      // written to since the last byte received
	since   time.Time // when it started waiting
	// timer, while armed, fires at most stallAfter after since. It is armed by the first write
	// after it last found the connection idle, and only check (its own firing) re-arms or
	// disarms it: a query costs no timer operation while others keep the connection busy.
	timer  timer
	armed  bool
	closed bool
}

// watch registers c, a new connection to addr, with the fence.
func (f *fence) watch(c net.Conn, network, addr string) *watchedConn {
	w := &watchedConn{Conn: c, f: f, network: network, addr: addr}
	w.timer = f.clock.AfterFunc(stallAfter, w.check)
	w.timer.Stop()
	f.mu.Lock()
	f.conns[w] = struct{}{}
	f.mu.Unlock()
	return w
}

func (c *watchedConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	if !c.waiting && !c.closed {
		c.waiting, c.since = true, c.f.clock.Now()
		if !c.armed {
			c.armed = true
			c.timer.Reset(stallAfter)
		}
	}
	c.mu.Unlock()
	return c.Conn.Write(b)
}

func (c *watchedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.mu.Lock()
		c.waiting = false
		c.mu.Unlock()
	}
	return n, err
}

// check runs when the timer fires: if the connection has waited stallAfter for an answer, its
// server is suspected, and the connection is looked at again stallAfter later; if it waits on a
// newer request, the timer is set for that one's stallAfter; idle, the timer is left disarmed.
func (c *watchedConn) check() {
	c.mu.Lock()
	if !c.waiting || c.closed {
		c.armed = false
		c.mu.Unlock()
		return
	}
	waited := c.f.clock.Now().Sub(c.since)
	stalled := waited >= stallAfter
	if stalled {
		c.timer.Reset(stallAfter)
	} else {
		// The timer was set for an earlier request that was answered in the meantime.
		c.timer.Reset(stallAfter - waited)
	}
	c.mu.Unlock()
	if stalled {
		c.f.suspect(c.network, c.addr)
	}
}

func (c *watchedConn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.timer.Stop()
	c.mu.Unlock()
	c.f.mu.Lock()
	delete(c.f.conns, c)
	c.f.mu.Unlock()
	return c.Conn.Close()
}
