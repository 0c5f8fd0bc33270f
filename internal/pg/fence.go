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
// fails, it checks the server that connection was on by connecting afresh with the pool's own
// settings (every host of the URL, the writable one chosen); if that does not land on the same
// server, the server is no longer the primary, or no longer answers, and every connection the
// pool still holds to it is closed at once.
//
// Without it, requests already waiting on a primary that froze (a paused VM: its sockets stay
// open, nothing answers) would hold their pooled connections until their deadlines, and under
// load every connection of the pool would be held that way, long after a standby took over.
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
		go f.probe(pc.Conn().RemoteAddr().String())
	}
}

func (f *fence) probe(addr string) {
	defer func() {
		f.mu.Lock()
		f.probing = false
		f.mu.Unlock()
	}()
	timeout := f.cfg.ConnectTimeout
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	// Every host may cost a connect timeout before the writable one answers.
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(2+len(f.cfg.Fallbacks))*timeout)
	defer cancel()
	if c, err := pgconn.ConnectConfig(ctx, f.cfg); err == nil {
		same := c.Conn().RemoteAddr().String() == addr
		if same {
			same = c.Exec(ctx, "SELECT 1").Close() == nil
		}
		_ = c.Close(ctx)
		if same {
			return // the server answers and is still the one to write to
		}
	}
	f.closeAll(addr)
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
