package realtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/metrics"
)

// StatusRevoked closes the sockets of an unpaired device. It lies in the
// range RFC 6455 leaves to applications and echoes HTTP 401, telling the
// device that its token no longer works and that reconnecting is pointless.
const StatusRevoked websocket.StatusCode = 4401

// ErrRevoked is what ServeSocket returns when it closed the socket because
// the device was revoked.
var ErrRevoked = errors.New("realtime: device revoked")

// ErrReplaced is what ServeSocket returns when it closed the socket with StatusReplaced: a
// newer connection of the device took its place beyond Limits.PerDevice.
var ErrReplaced = errors.New("realtime: socket replaced by a newer connection of its device")

// ErrLedger wraps the error of a socket ledger that could not be reached (see SetLimits): the
// upgrade was refused, nothing was written, and the database's error is in the chain.
var ErrLedger = errors.New("realtime: socket ledger")

// SocketOptions tune ServeSocket. The zero value is ready to use.
type SocketOptions struct {
	// PingInterval is how often the server pings the device (default 25s).
	// Besides detecting dead devices, the traffic keeps proxies and NATs,
	// many of which drop connections idle for 30-60s, from closing the socket.
	PingInterval time.Duration
	// PongTimeout is how long a ping may go unanswered before the socket is
	// closed (default 10s).
	PongTimeout time.Duration
	// WriteTimeout bounds sending one hint (default 10s); a device that
	// cannot take a frame for that long is treated as gone.
	WriteTimeout time.Duration
	// OriginPatterns, when set, restricts which browser origins may open the
	// socket (see websocket.AcceptOptions). When empty any origin may: board
	// apps run in kiosk browsers and wrappers whose origin is not ours (a
	// file:// page, a vendor's player), and origin checks only guard against
	// cross-site pages riding on ambient credentials such as cookies. Devices
	// authenticate with a token in the URL that a foreign page does not know,
	// and frames carry no data, so there is nothing for such a page to steal.
	OriginPatterns []string
	// Admit, when set, runs once the device's subscription is in place and
	// before the upgrade; an error refuses the connection: ServeSocket returns
	// it having written nothing, for the caller to answer. The caller
	// authenticated the device before calling ServeSocket, and a revocation
	// committed between that check and the subscription would go unheard,
	// leaving a socket open on a dead token. Checking again here closes the
	// gap: a revocation is either seen by this check or heard by the
	// subscription.
	Admit func(ctx context.Context) error
	// NextChange, when set, says how long from now the device's state will
	// change by the passage of time alone (a new local date, a menu board's
	// next day part), or 0 if it never will. The socket sends a frame then,
	// as for a hint, and asks again after every frame. Frames it causes are at
	// least minWake apart, so a clock that does not move (or an answer that
	// does not advance) cannot make the socket spin.
	NextChange func(ctx context.Context) time.Duration
	// ClientKey is the client as per-address caps count it (reqinfo.ClientKey: an IPv4
	// address, an IPv6 /64); empty leaves the socket out of Limits.PerAddress.
	ClientKey string
}

// minWake is the least time between two frames sent because time passed.
const minWake = time.Second

func (o SocketOptions) withDefaults() SocketOptions {
	if o.PingInterval <= 0 {
		o.PingInterval = 25 * time.Second
	}
	if o.PongTimeout <= 0 {
		o.PongTimeout = 10 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 10 * time.Second
	}
	return o
}

// ServeSocket upgrades the request of an already authenticated device to a
// WebSocket and sends it an empty text frame whenever its state may have
// changed. An empty text frame rather than a binary one because a browser
// delivers it to onmessage as "" with no Blob to dispose of; the content is
// irrelevant since a frame only means "refetch /device/state".
//
// No frame is sent on connect: the subscription is in place before the
// handshake completes, so a device that fetches its state once the socket is
// open (as it must, having possibly missed changes while disconnected) misses
// nothing, and an extra frame would only double that fetch.
//
// The device must not send data messages; one closes the socket with 1008.
// ServeSocket returns when the device goes away (nil), when the request's
// context ends or the hub stops (nil, after closing with 1001 so the device
// reconnects, possibly to another replica), when the device is revoked
// (ErrRevoked, after closing with StatusRevoked), when a newer connection of
// the device replaced it (ErrReplaced, after closing with StatusReplaced), or
// on failure. If the upgrade itself fails, an HTTP error has already been
// written.
//
// Before upgrading it keeps to the hub's limits (see SetLimits), writing
// nothing when one refuses: a *RefusedError when the replica's ceiling or the
// organization's or client address's cap is reached, or the database's error
// wrapped in ErrLedger when the ledger cannot be reached. The ceiling is checked first and costs
// no database work, so a replica at its ceiling still has descriptors, a
// goroutine and a pooled connection for everything else it serves.
func ServeSocket(w http.ResponseWriter, r *http.Request, hub *Hub, deviceID, orgID uuid.UUID, opts SocketOptions) error {
	opts = opts.withDefaults()

	if !hub.slots.take() {
		metrics.RealtimeSocketRefusals.WithLabelValues(ReasonCeiling).Inc()
		return &RefusedError{Reason: ReasonCeiling, Limit: hub.Ceiling(), RetryAfter: CeilingRetryAfter}
	}
	defer hub.slots.give()

	id := uuid.Must(uuid.NewV7())
	sub, unsubscribe := hub.subscribe(id, deviceID, orgID)
	defer unsubscribe()
	hints := sub.ch
	if opts.Admit != nil {
		if err := opts.Admit(r.Context()); err != nil {
			return err
		}
	}
	// Entered in the ledger only once subscribed: a newer socket may replace this one as soon
	// as its row is visible, and the replacement must find the subscription.
	if hub.ledger != nil {
		if err := hub.ledger.admit(r.Context(), id, orgID, deviceID, opts.ClientKey); err != nil {
			if refused, ok := AsRefused(err); ok {
				metrics.RealtimeSocketRefusals.WithLabelValues(refused.Reason).Inc()
				return err
			}
			return fmt.Errorf("%w: %w", ErrLedger, err)
		}
		defer hub.ledger.release(id)
	}

	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		InsecureSkipVerify: len(opts.OriginPatterns) == 0,
		OriginPatterns:     opts.OriginPatterns,
		CompressionMode:    websocket.CompressionDisabled, // frames are empty
	})
	if err != nil {
		return fmt.Errorf("realtime: accept websocket: %w", err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()       // runs last: the pinger ends once the connection is closed
	defer conn.CloseNow() // a no-op after a graceful Close

	// Detached from the request so that its end is ours to act on (with a
	// close frame) rather than an abrupt close by the read goroutine.
	connCtx := conn.CloseRead(context.WithoutCancel(r.Context()))

	pingFailed := make(chan error, 1)
	wg.Go(func() {
		if err := keepAlive(connCtx, conn, opts); err != nil {
			pingFailed <- err
		}
	})

	// wake fires when the state changes by the passage of time; nil (never
	// ready) without NextChange or while nothing is due.
	var (
		wake  <-chan time.Time
		timer *time.Timer
		floor time.Duration
	)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	schedule := func() {
		if opts.NextChange == nil {
			return
		}
		if timer != nil {
			timer.Stop()
		}
		wake = nil
		d := opts.NextChange(connCtx)
		if d <= 0 {
			return
		}
		timer = time.NewTimer(max(d, floor))
		wake = timer.C
	}
	schedule()

	for {
		select {
		case <-connCtx.Done():
			return nil
		case err := <-pingFailed:
			return fmt.Errorf("realtime: device %s unresponsive: %w", deviceID, err)
		case <-r.Context().Done():
			_ = conn.Close(websocket.StatusGoingAway, "server shutting down")
			return nil
		case <-hub.stopped:
			_ = conn.Close(websocket.StatusGoingAway, "server shutting down")
			return nil
		case _, ok := <-hints:
			if !ok && sub.replaced { // set before the close, which this receive follows
				_ = conn.Close(StatusReplaced, "replaced by a newer connection")
				return ErrReplaced
			}
			if !ok {
				_ = conn.Close(StatusRevoked, "device unpaired")
				return ErrRevoked
			}
			floor = 0
		case <-wake:
			floor = minWake
		}
		ctx, cancel := context.WithTimeout(connCtx, opts.WriteTimeout)
		err := conn.Write(ctx, websocket.MessageText, nil)
		cancel()
		if err != nil {
			if connCtx.Err() != nil {
				return nil
			}
			return fmt.Errorf("realtime: send hint to device %s: %w", deviceID, err)
		}
		// A hint may have changed what the next change is (a new time zone,
		// other day parts); a wake has passed its moment.
		schedule()
	}
}

// keepAlive pings until the connection ends (nil) or a pong is late (error).
// It runs beside the hint loop so that a slow pong never delays a hint.
func keepAlive(ctx context.Context, conn *websocket.Conn, opts SocketOptions) error {
	t := time.NewTicker(opts.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		pingCtx, cancel := context.WithTimeout(ctx, opts.PongTimeout)
		err := conn.Ping(pingCtx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
}
