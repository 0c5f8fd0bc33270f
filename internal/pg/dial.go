package pg

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// dialer makes the pool's TCP connections: none to a server the fence keeps out, keepalives that
// notice a lost peer within seconds, a bound on how long a new connection waits for the server's
// first byte, and each connection watched for requests its server leaves unanswered.
//
// That bound matters beyond connecting. When a query times out, pgx closes its connection and,
// in the background, opens another one to send the server a cancel request, then waits up to
// 15 seconds for the server to hang up; the pool keeps the connection's slot until then. A server
// that froze (its port accepts, nothing answers) would hold a slot for those 15 seconds for every
// connection it owned, starving the pool just when it should be reconnecting elsewhere. With
// the bound, a silent server releases them after the connect timeout.
type dialer struct {
	net          net.Dialer
	firstByteMax time.Duration
	fence        *fence
}

func newDialer(connectTimeout time.Duration, f *fence) *dialer {
	return &dialer{
		fence: f,
		net: net.Dialer{
			Timeout: connectTimeout,
			KeepAliveConfig: net.KeepAliveConfig{
				Enable: true, Idle: keepaliveIdle, Interval: keepaliveInterval, Count: keepaliveCount,
			},
		},
		firstByteMax: connectTimeout,
	}
}

func (d *dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if err := d.fence.allow(ctx, network, addr); err != nil {
		return nil, err
	}
	c, err := d.net.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if d.firstByteMax > 0 {
		c = &firstByteConn{Conn: c, limit: time.Now().Add(d.firstByteMax)}
	}
	return d.fence.watch(c, network, addr), nil
}

// firstByteConn fails reads that wait past limit while nothing has been received yet; after the
// first byte it is the plain connection, honouring only the deadlines its user sets.
type firstByteConn struct {
	net.Conn
	limit time.Time

	mu       sync.Mutex
	received bool
	asked    time.Time // the read deadline the user set
	// done is received, for the reads after the first byte, which then take no lock.
	done atomic.Bool
}

func (c *firstByteConn) Read(b []byte) (int, error) {
	if c.done.Load() {
		return c.Conn.Read(b)
	}
	c.mu.Lock()
	if !c.received {
		_ = c.Conn.SetReadDeadline(c.bounded(c.asked))
	}
	c.mu.Unlock()
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.mu.Lock()
		if !c.received {
			c.received = true
			_ = c.Conn.SetReadDeadline(c.asked)
			c.done.Store(true)
		}
		c.mu.Unlock()
	}
	return n, err
}

func (c *firstByteConn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.Conn.SetWriteDeadline(t)
}

func (c *firstByteConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = t
	if !c.received {
		t = c.bounded(t)
	}
	return c.Conn.SetReadDeadline(t)
}

// bounded is the earlier of t (zero: none) and the first-byte limit.
func (c *firstByteConn) bounded(t time.Time) time.Time {
	if t.IsZero() || c.limit.Before(t) {
		return c.limit
	}
	return t
}
