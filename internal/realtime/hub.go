package realtime

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/internal/metrics"
)

// Tuning of the listener connection. Variables so that tests can shorten
// them.
var (
	// A notification is only seen when the server sends it, so a half-open
	// TCP connection (failover, a NAT dropping state) would leave the hub
	// deaf without any error. After this long without traffic the hub pings;
	// short, so that boards hear hints again within seconds of a failover
	// (a ping every few seconds on one connection per replica costs nothing).
	idleCheck   = 5 * time.Second
	pingTimeout = 2 * time.Second

	connectTimeout = 10 * time.Second
	minBackoff     = 100 * time.Millisecond
	maxBackoff     = 10 * time.Second
	// A session that lasted at least this long was not a flap, so the next
	// failure starts again from minBackoff.
	stableSession = time.Minute
)

// Hub holds this replica's one listening connection and fans hints out to
// the local subscribers. Create it with NewHub and start it with Run.
type Hub struct {
	pool *pgxpool.Pool
	// listen, when set, configures the listening connection instead of the pool's config: a
	// direct connection when the pool goes through a transaction pooler (see ListenVia).
	listen *pgx.ConnConfig
	logger *slog.Logger

	mu      sync.RWMutex
	devices map[uuid.UUID]map[*subscriber]struct{}
	orgs    map[uuid.UUID]map[*subscriber]struct{}
	sockets map[uuid.UUID]*subscriber // by socket id, for replacement

	// slots hold this replica's sockets against its ceiling; ledger, once SetLimits is called,
	// holds them against the caps shared by every replica (nil: none).
	slots  slots
	ledger *ledger

	running   atomic.Bool
	ready     chan struct{}
	readyOnce sync.Once
	stopped   chan struct{}
	pid       atomic.Uint32 // backend of the current listening session; 0 when none
}

type subscriber struct {
	id, device, org uuid.UUID
	ch              chan struct{}
	removed         bool // under Hub.mu; set when revoked, replaced or cancelled
	// replaced, set under Hub.mu before ch is closed, tells a replacement from a revocation.
	replaced bool
}

// ListenVia makes the hub listen through a connection of cfg rather than one configured like
// the pool's: LISTEN needs a session of its own, which a transaction pooler (PgBouncer in
// transaction mode) does not give. Call it before Run.
func (h *Hub) ListenVia(cfg *pgx.ConnConfig) { h.listen = cfg }

// NewHub returns a hub that will listen through a connection configured like
// pool's connections. The pool itself is not used for listening, so the hub
// never competes with requests for a pooled connection when it reconnects.
// A nil logger means slog.Default().
func NewHub(pool *pgxpool.Pool, logger *slog.Logger) *Hub {
	if logger == nil {
		logger = slog.Default()
	}
	h := &Hub{
		pool:    pool,
		logger:  logger,
		devices: make(map[uuid.UUID]map[*subscriber]struct{}),
		orgs:    make(map[uuid.UUID]map[*subscriber]struct{}),
		sockets: make(map[uuid.UUID]*subscriber),
		ready:   make(chan struct{}),
		stopped: make(chan struct{}),
	}
	h.slots.ceiling.Store(int64(DerivedCeiling()))
	return h
}

// SetLimits bounds the sockets this hub serves (zero fields take their defaults) and counts
// them in the database's socket ledger (migration realtime_sockets), so that the caps per
// device, organization and client address hold across replicas. Call it before Run and before
// any socket; without it a hub only keeps to the ceiling derived from the file limit.
func (h *Hub) SetLimits(l Limits) {
	l = l.withDefaults()
	h.slots.ceiling.Store(int64(l.Ceiling))
	h.ledger = newLedger(h.pool, h.logger, l)
	metrics.SetRealtimeLimits(l.PerDevice, l.PerOrg, l.PerAddress, l.Ceiling)
}

// Ceiling is the most sockets this hub serves at once.
func (h *Hub) Ceiling() int { return int(h.slots.ceiling.Load()) }

// Ready is closed once the hub listens for the first time. From then on, a
// subscriber hears of every change committed after it subscribed, a
// reconnection included (see Run).
func (h *Hub) Ready() <-chan struct{} { return h.ready }

// Subscribe registers interest in one device, which belongs to orgID (uuid.Nil
// if none). The returned channel receives a value when the device should
// refetch its state; hints that arrive while one is pending are merged into
// it, so a slow reader never holds the hub up. The channel is closed when the
// device is revoked (DisconnectDevice). cancel must be called when the
// subscriber goes away; it may be called more than once.
func (h *Hub) Subscribe(deviceID, orgID uuid.UUID) (hints <-chan struct{}, cancel func()) {
	s, cancel := h.subscribe(uuid.New(), deviceID, orgID)
	return s.ch, cancel
}

// subscribe is Subscribe for socket id, whose subscriber tells why its channel closed.
func (h *Hub) subscribe(id, deviceID, orgID uuid.UUID) (*subscriber, func()) {
	s := &subscriber{id: id, device: deviceID, org: orgID, ch: make(chan struct{}, 1)}
	h.mu.Lock()
	add(h.devices, deviceID, s)
	if orgID != uuid.Nil {
		add(h.orgs, orgID, s)
	}
	h.sockets[id] = s
	h.mu.Unlock()
	metrics.RealtimeConnections.Inc()
	return s, func() {
		h.mu.Lock()
		h.removeLocked(s)
		h.mu.Unlock()
	}
}

func add(m map[uuid.UUID]map[*subscriber]struct{}, id uuid.UUID, s *subscriber) {
	set := m[id]
	if set == nil {
		set = make(map[*subscriber]struct{})
		m[id] = set
	}
	set[s] = struct{}{}
}

func remove(m map[uuid.UUID]map[*subscriber]struct{}, id uuid.UUID, s *subscriber) {
	set := m[id]
	delete(set, s)
	if len(set) == 0 {
		delete(m, id)
	}
}

func (h *Hub) removeLocked(s *subscriber) {
	if s.removed {
		return
	}
	s.removed = true
	metrics.RealtimeConnections.Dec()
	delete(h.sockets, s.id)
	remove(h.devices, s.device, s)
	if s.org != uuid.Nil {
		remove(h.orgs, s.org, s)
	}
}

// Run listens until ctx ends, reconnecting with capped, jittered exponential
// backoff whenever the connection fails. While it is down, devices rely on
// polling; once it is back, every local subscriber is hinted, because any of
// them may have missed a notification meanwhile. Run returns nil when ctx
// ends, and an error only if the hub is already running or has run before.
// Sockets served by a stopped hub are closed with 1001 (going away) so that
// devices reconnect to a replica that still listens.
func (h *Hub) Run(ctx context.Context) error {
	if !h.running.CompareAndSwap(false, true) {
		return errors.New("realtime: Hub.Run called twice")
	}
	defer close(h.stopped)
	if h.ledger != nil {
		var wg sync.WaitGroup
		defer wg.Wait()
		wg.Go(func() { h.ledger.run(ctx) })
	}

	backoff := minBackoff
	for {
		start := time.Now()
		listened, err := h.session(ctx)
		h.pid.Store(0)
		if ctx.Err() != nil {
			return nil
		}
		if listened && time.Since(start) >= stableSession {
			backoff = minBackoff
		}
		// Jitter (a wait in [backoff/2, backoff]) keeps the replicas of a fleet
		// from reconnecting in lockstep after a database restart.
		wait := backoff/2 + rand.N(backoff/2+1)
		h.logger.Warn("realtime: listener connection lost; devices fall back to polling until it is back",
			"err", err, "retry_in", wait)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// session runs one listening connection until it fails or ctx ends. listened
// reports whether LISTEN took effect.
func (h *Hub) session(ctx context.Context) (listened bool, err error) {
	cfg := h.pool.Config().ConnConfig
	if h.listen != nil {
		cfg = h.listen.Copy()
	}
	// The idle check below relies on a timed-out wait leaving the connection
	// usable, which the deadline handler guarantees (the cancel-request
	// handler would also send a cancel request to the server every time).
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: c.Conn()}
	}
	connectCtx, cancel := context.WithTimeout(ctx, connectTimeout)
	conn, err := pgx.ConnectConfig(connectCtx, cfg)
	cancel()
	if err != nil {
		return false, err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pingTimeout)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()

	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{Channel}.Sanitize()); err != nil {
		return false, err
	}
	h.pid.Store(conn.PgConn().PID())
	// Hint before announcing readiness: whoever subscribes after Ready has
	// nothing to catch up on and must not receive a spurious hint.
	h.hintAll()
	h.readyOnce.Do(func() { close(h.ready) })
	h.logger.Info("realtime: listening", "channel", Channel, "backend_pid", conn.PgConn().PID())

	for {
		waitCtx, cancel := context.WithTimeout(ctx, idleCheck)
		n, err := conn.WaitForNotification(waitCtx)
		timedOut := waitCtx.Err() != nil
		cancel()
		switch {
		case err == nil:
			h.dispatch(n.Payload)
		case ctx.Err() != nil:
			return true, nil
		case timedOut && !conn.IsClosed():
			pingCtx, cancel := context.WithTimeout(ctx, pingTimeout)
			err := conn.Ping(pingCtx)
			cancel()
			if err != nil && ctx.Err() == nil {
				return true, err
			}
		default:
			return true, err
		}
	}
}

func (h *Hub) dispatch(payload string) {
	hints, bad := parsePayload(payload)
	if len(bad) > 0 {
		h.logger.Warn("realtime: ignoring unknown hint tokens", "tokens", bad)
	}
	closing := false
	h.mu.RLock()
	for _, ht := range hints {
		switch ht.kind {
		case hintDevice:
			pokeAll(h.devices[ht.id])
		case hintOrg:
			pokeAll(h.orgs[ht.id])
		case hintRevoke, hintReplace:
			closing = true
		}
	}
	h.mu.RUnlock()
	if !closing {
		return
	}
	h.mu.Lock()
	for _, ht := range hints {
		switch ht.kind {
		case hintRevoke:
			for s := range h.devices[ht.id] {
				h.removeLocked(s)
				close(s.ch)
			}
		case hintReplace:
			if s := h.sockets[ht.id]; s != nil {
				s.replaced = true
				h.removeLocked(s)
				close(s.ch)
			}
		}
	}
	h.mu.Unlock()
}

func (h *Hub) hintAll() {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, set := range h.devices {
		pokeAll(set)
	}
}

// pokeAll must run under Hub.mu (read or write), which is what makes the send
// safe against a concurrent close by a revocation.
func pokeAll(set map[*subscriber]struct{}) {
	for s := range set {
		select {
		case s.ch <- struct{}{}:
			metrics.RealtimeHints.Inc()
		default: // a hint is already pending; it covers this one
		}
	}
}
