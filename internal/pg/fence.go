package pg

import (
	"context"
	"net"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// fence keeps a pool off a server that stopped answering. When one of the pool's connections
// fails, it asks that connection's server the first question of the protocol (an SSLRequest, which
// any live postmaster or pooler answers at once, before TLS or authentication); if no answer comes
// within the connect timeout, every connection the pool still holds to that server is closed.
//
// Without it, requests already waiting on a primary that froze (a paused VM: its sockets stay
// open, nothing answers) would hold their pooled connections until their deadlines, and under
// load every connection of the pool would be held that way, long after a standby took over. A
// server that answers is left alone, so a query cancelled by its client costs one round trip.
type fence struct {
	cfg *pgconn.Config

	mu      sync.Mutex
	conns   map[*pgconn.PgConn]struct{}
	probing bool
}

func newFence(cfg *pgconn.Config) *fence {
	return &fence{cfg: cfg, conns: map[*pgconn.PgConn]struct{}{}}
}

func (f *fence) afterConnect(_ context.Context, c *pgx.Conn) error {
	f.mu.Lock()
	f.conns[c.PgConn()] = struct{}{}
	f.mu.Unlock()
	return nil
}

// beforeClose forgets c and, when pgx gave up on it (it is already closed), suspects its server.
func (f *fence) beforeClose(c *pgx.Conn) {
	pc := c.PgConn()
	f.mu.Lock()
	delete(f.conns, pc)
	start := c.IsClosed() && !f.probing
	if start {
		f.probing = true
	}
	f.mu.Unlock()
	if start {
		ra := pc.Conn().RemoteAddr()
		go f.probe(ra.Network(), ra.String())
	}
}

func (f *fence) probe(network, addr string) {
	defer func() {
		f.mu.Lock()
		f.probing = false
		f.mu.Unlock()
	}()
	if !answers(network, addr, f.timeout()) {
		f.closeAll(addr)
	}
}

func (f *fence) timeout() time.Duration {
	if f.cfg.ConnectTimeout > 0 {
		return f.cfg.ConnectTimeout
	}
	return DefaultConnectTimeout
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

// closeAll closes the socket of every connection to addr: what waits on it fails now, and pgx
// and the pool discard the connection.
func (f *fence) closeAll(addr string) {
	f.mu.Lock()
	var doomed []net.Conn
	for pc := range f.conns {
		if nc := pc.Conn(); nc != nil && nc.RemoteAddr().String() == addr {
			doomed = append(doomed, nc)
		}
	}
	f.mu.Unlock()
	for _, nc := range doomed {
		_ = nc.Close()
	}
}
