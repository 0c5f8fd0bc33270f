package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// wsConfig describes the idle-connection load: many clients that connect
// once and then only listen, like kitchen screens waiting for pushes.
type wsConfig struct {
	URL string
	// Tokens replace {token} in URL, one per connection in turn (a fleet of devices, each
	// with its own socket).
	Tokens      []string
	Conns       int
	Header      http.Header
	DialTimeout time.Duration
	// DialConcurrency bounds simultaneous handshakes; an unbounded burst of
	// thousands of dials measures the listen backlog, not the server.
	DialConcurrency int
}

// WSReport summarises the held connections.
type WSReport struct {
	URL            string        `json:"url"`
	Requested      int           `json:"requested"`
	Opened         int           `json:"opened"`
	DialFailed     int           `json:"dial_failed"`
	StillConnected int           `json:"still_connected"`
	Dropped        int           `json:"dropped"`
	Frames         uint64        `json:"frames"`
	Bytes          uint64        `json:"bytes"`
	Connect        Latencies     `json:"connect_ms"`
	Errors         []ErrorSample `json:"errors"`
}

// wsHolder keeps the connections open and counts what arrives on them.
type wsHolder struct {
	cfg     wsConfig
	ctx     context.Context
	cancel  context.CancelFunc
	frames  atomic.Uint64
	bytes   atomic.Uint64
	live    atomic.Int64
	stopped atomic.Bool
	wg      sync.WaitGroup

	mu       sync.Mutex
	conns    []*websocket.Conn
	opened   int
	failed   int
	dropped  int
	connect  []time.Duration
	errs     map[string]*ErrorSample
	errOrder []string
}

// startWS dials every connection before returning, so HTTP load starts
// against a server that already carries the full connection count.
func startWS(ctx context.Context, cfg wsConfig) *wsHolder {
	if cfg.DialConcurrency <= 0 {
		cfg.DialConcurrency = 64
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = 10 * time.Second
	}
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	h := &wsHolder{cfg: cfg, ctx: hctx, cancel: cancel, errs: map[string]*ErrorSample{}}

	client := &http.Client{Transport: &http.Transport{
		DialContext:       (&net.Dialer{Timeout: cfg.DialTimeout, KeepAlive: 30 * time.Second}).DialContext,
		DisableKeepAlives: true, // every handshake is hijacked; pooling buys nothing
	}}
	sem := make(chan struct{}, cfg.DialConcurrency)
	var dials sync.WaitGroup
	for i := range cfg.Conns {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		dials.Go(func() {
			defer func() { <-sem }()
			h.dialOne(ctx, client, h.connURL(i))
		})
	}
	dials.Wait()
	return h
}

// connURL is connection i's URL: {token} replaced by the i-th token (round-robin).
func (h *wsHolder) connURL(i int) string {
	if len(h.cfg.Tokens) == 0 {
		return h.cfg.URL
	}
	return strings.ReplaceAll(h.cfg.URL, "{token}", url.QueryEscape(h.cfg.Tokens[i%len(h.cfg.Tokens)]))
}

func (h *wsHolder) dialOne(ctx context.Context, client *http.Client, target string) {
	dctx, cancel := context.WithTimeout(ctx, h.cfg.DialTimeout)
	defer cancel()
	t0 := time.Now()
	c, resp, err := websocket.Dial(dctx, target, &websocket.DialOptions{
		HTTPClient: client,
		HTTPHeader: h.cfg.Header,
	})
	took := time.Since(t0)
	if err != nil {
		msg := err.Error()
		if resp != nil {
			// The status is more telling than the library's wrapping,
			// e.g. a 401 from missing credentials.
			msg = fmt.Sprintf("handshake: HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
		}
		h.mu.Lock()
		h.failed++
		h.addErrLocked(msg)
		h.mu.Unlock()
		return
	}
	// Pushed payloads (menus, order snapshots) can exceed the library's 32 KiB
	// default, and closing on them would be counted as a drop.
	c.SetReadLimit(16 << 20)
	h.mu.Lock()
	h.opened++
	h.connect = append(h.connect, took)
	h.conns = append(h.conns, c)
	h.mu.Unlock()
	h.live.Add(1)
	h.wg.Go(func() { h.readLoop(c) })
}

// readLoop drains frames; reading is also what lets the library answer
// server pings, so connections stay alive without any writes of our own.
func (h *wsHolder) readLoop(c *websocket.Conn) {
	for {
		_, r, err := c.Reader(h.ctx)
		if err == nil {
			var n int64
			n, err = io.Copy(io.Discard, r)
			h.bytes.Add(uint64(n))
			if err == nil {
				h.frames.Add(1)
				continue
			}
		}
		h.live.Add(-1)
		if h.stopped.Load() {
			return
		}
		msg := err.Error()
		if st := websocket.CloseStatus(err); st != -1 {
			msg = fmt.Sprintf("closed by server: %v", st)
		} else if errors.Is(err, io.EOF) {
			msg = "connection closed without close frame"
		}
		h.mu.Lock()
		h.dropped++
		h.addErrLocked(msg)
		h.mu.Unlock()
		return
	}
}

func (h *wsHolder) addErrLocked(msg string) {
	msg = truncate(msg, 240)
	if s, ok := h.errs[msg]; ok {
		s.Count++
		return
	}
	if len(h.errs) >= maxErrorKinds {
		msg = "(other errors)"
		if s, ok := h.errs[msg]; ok {
			s.Count++
			return
		}
	}
	h.errs[msg] = &ErrorSample{Error: msg, Count: 1}
	h.errOrder = append(h.errOrder, msg)
}

// snapshot reports the current state without disturbing the connections.
func (h *wsHolder) snapshot() *WSReport {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := &WSReport{
		URL:            h.cfg.URL,
		Requested:      h.cfg.Conns,
		Opened:         h.opened,
		DialFailed:     h.failed,
		StillConnected: int(h.live.Load()),
		Dropped:        h.dropped,
		Frames:         h.frames.Load(),
		Bytes:          h.bytes.Load(),
		Connect:        summarize(h.connect),
		Errors:         []ErrorSample{},
	}
	for _, k := range h.errOrder {
		r.Errors = append(r.Errors, *h.errs[k])
	}
	sort.SliceStable(r.Errors, func(i, j int) bool { return r.Errors[i].Count > r.Errors[j].Count })
	return r
}

// stop takes the final snapshot, then closes every connection politely. The
// snapshot comes first so our own closing is never reported as drops.
func (h *wsHolder) stop() *WSReport {
	rep := h.snapshot()
	h.stopped.Store(true)
	h.mu.Lock()
	conns := h.conns
	h.conns = nil
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { _ = c.Close(websocket.StatusNormalClosure, "load test finished") })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); h.cancel(); h.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(6 * time.Second):
		// The library waits up to 5 s per peer for the close reply; a server
		// that never answers must not hang the report.
		h.cancel()
	}
	return rep
}
