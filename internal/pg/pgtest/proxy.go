package pgtest

import (
	"net"
	"net/url"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/internal/pg"
)

// Proxy is a TCP proxy in front of the test server that injects the faults of a failover:
// Freeze holds every byte in both directions while connections stay open and new ones are
// accepted (a primary stopped with SIGSTOP: its port answers, nothing else does), and Close
// drops every connection and refuses new ones (a primary that went away).
type Proxy struct {
	t      testing.TB
	ln     net.Listener
	target string

	mu      sync.Mutex
	cond    *sync.Cond
	frozen  bool
	closed  bool
	conns   map[net.Conn]struct{}
	stopped bool
}

// NewProxy starts a proxy to the host and port of url; it stops when the test ends.
func NewProxy(t testing.TB, rawURL string) *Proxy {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{t: t, ln: ln, target: u.Host, conns: map[net.Conn]struct{}{}}
	p.cond = sync.NewCond(&p.mu)
	go p.accept()
	t.Cleanup(p.stop)
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// URL returns rawURL with its host and port replaced by the proxy's.
func (p *Proxy) URL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		p.t.Fatal(err)
	}
	u.Host = p.Addr()
	return u.String()
}

// Freeze holds all traffic until Thaw.
func (p *Proxy) Freeze() {
	p.mu.Lock()
	p.frozen = true
	p.mu.Unlock()
}

// Thaw lets held and new traffic through again, and accepts connections again after Close.
func (p *Proxy) Thaw() {
	p.mu.Lock()
	p.frozen, p.closed = false, false
	p.cond.Broadcast()
	p.mu.Unlock()
}

// Close drops every open connection and closes new ones at once, until Thaw.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		_ = c.Close()
	}
	p.cond.Broadcast()
	p.mu.Unlock()
}

func (p *Proxy) stop() {
	p.mu.Lock()
	p.stopped, p.frozen = true, false
	for c := range p.conns {
		_ = c.Close()
	}
	p.cond.Broadcast()
	p.mu.Unlock()
	_ = p.ln.Close()
}

func (p *Proxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.closed || p.stopped {
			p.mu.Unlock()
			_ = client.Close()
			continue
		}
		p.conns[client] = struct{}{}
		p.mu.Unlock()
		go p.serve(client)
	}
}

func (p *Proxy) serve(client net.Conn) {
	defer p.forget(client)
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.conns[server] = struct{}{}
	p.mu.Unlock()
	defer p.forget(server)
	done := make(chan struct{}, 2)
	go func() { p.pipe(server, client); done <- struct{}{} }()
	go func() { p.pipe(client, server); done <- struct{}{} }()
	<-done
}

func (p *Proxy) forget(c net.Conn) {
	_ = c.Close()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// pipe copies src to dst, holding each chunk while the proxy is frozen.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.pass() {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// pass waits while the proxy is frozen and reports whether the connection may go on.
func (p *Proxy) pass() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.frozen && !p.closed && !p.stopped {
		p.cond.Wait()
	}
	return !p.closed && !p.stopped
}

// ConnectThrough opens a pool with short fault-detection timeouts (the subject of the failover
// tests) but tolerates a slow first connection: on a loaded machine the initial ping can miss a
// sub-second connect timeout before any fault is injected, which says nothing about the code
// under test. It retries the opening a few times, then fails the test.
func ConnectThrough(t testing.TB, url string, o pg.Options) *pgxpool.Pool {
	t.Helper()
	var err error
	for range 5 {
		var pool *pgxpool.Pool
		if pool, err = pg.ConnectWith(t.Context(), url, o); err == nil {
			t.Cleanup(pool.Close)
			return pool
		}
	}
	t.Fatalf("connect %s: %v", url, err)
	return nil
}
