package realtime

import (
	"errors"
	"fmt"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coder/websocket"
)

// StatusReplaced closes a device's oldest socket when a newer one takes its place beyond
// Limits.PerDevice. In the application range of RFC 6455; the device should not reconnect at
// once (the newer connection, somewhere, holds the device's place) but keep polling.
const StatusReplaced websocket.StatusCode = 4001

// Defaults of Limits.
const (
	// DefaultPerDevice: a screen needs one socket, two while a reload or a network change
	// overlaps the old connection with the new.
	DefaultPerDevice = 2
	// DefaultPerOrg: twice the sockets of the largest fleets we serve, so that only a leak or an
	// attack reaches it.
	DefaultPerOrg = 2000
	// DefaultPerAddress: many screens of a site may sit behind one NAT address.
	DefaultPerAddress = 500
	// MaxDerivedCeiling bounds the per-replica ceiling derived from the file limit, since a
	// socket costs memory as well as a descriptor (tens of kilobytes: goroutines, buffers).
	MaxDerivedCeiling = 10000
	// fdHeadroom is the least number of descriptors the derived ceiling leaves to everything
	// else: the listener, requests in flight, the database pool and listener, files.
	fdHeadroom = 256
)

// How long a refused client is told to wait (Retry-After).
const (
	// CapRetryAfter: a cap frees up only when one of the counted sockets closes, which the
	// server cannot foresee; the board's own reconnect backoff tops out at the same 30 s.
	CapRetryAfter = 30 * time.Second
	// CeilingRetryAfter: this replica is full; a retry may reach another replica sooner.
	CeilingRetryAfter = 10 * time.Second
)

// Limits bound the device WebSockets. PerDevice, PerOrg and PerAddress count sockets on every
// replica (through PostgreSQL, see ledger.go); Ceiling counts this replica's only.
type Limits struct {
	// PerDevice is how many sockets one device may hold; beyond it the newest connection wins
	// and the oldest closes with StatusReplaced. 0: DefaultPerDevice.
	PerDevice int
	// PerOrg is how many sockets one organization's devices may hold; beyond it the upgrade is
	// refused (ReasonOrg). 0: DefaultPerOrg.
	PerOrg int
	// PerAddress is how many sockets one client address (an IPv4 address, an IPv6 /64) may hold;
	// beyond it the upgrade is refused (ReasonAddress). 0: DefaultPerAddress.
	PerAddress int
	// Ceiling is how many sockets this replica holds at most; beyond it the upgrade is refused
	// (ReasonCeiling) before any database work. 0: derived from the process's file limit (see
	// DerivedCeiling).
	Ceiling int
}

func (l Limits) withDefaults() Limits {
	if l.PerDevice <= 0 {
		l.PerDevice = DefaultPerDevice
	}
	if l.PerOrg <= 0 {
		l.PerOrg = DefaultPerOrg
	}
	if l.PerAddress <= 0 {
		l.PerAddress = DefaultPerAddress
	}
	if l.Ceiling <= 0 {
		l.Ceiling = DerivedCeiling()
	}
	return l
}

// DerivedCeiling is the per-replica ceiling when none is configured: the soft limit on open
// files (which Go raises to the hard limit at start) less a quarter of it, and at least
// fdHeadroom, for everything that is not a socket; at most MaxDerivedCeiling. A replica that
// spent every descriptor on sockets could not accept a connection at all, /readyz included.
func DerivedCeiling() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == 0 {
		return 1024 - fdHeadroom // the traditional default limit
	}
	return ceilingFor(rl.Cur)
}

func ceilingFor(soft uint64) int {
	headroom := max(soft/4, fdHeadroom)
	if soft <= headroom {
		return 1
	}
	return int(min(soft-headroom, MaxDerivedCeiling))
}

// FileLimit is the process's soft limit on open files (0 if unknown), for checking a configured
// ceiling against it.
func FileLimit() uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	return rl.Cur
}

// Reasons a socket is refused, as RefusedError.Reason and the metric's label.
const (
	ReasonCeiling = "ceiling" // this replica holds Limits.Ceiling sockets
	ReasonOrg     = "org"     // the organization holds Limits.PerOrg sockets
	ReasonAddress = "address" // the client address holds Limits.PerAddress sockets
)

// Reasons lists every refusal reason (the metric's series exist from the start).
var Reasons = []string{ReasonCeiling, ReasonOrg, ReasonAddress}

// RefusedError is what ServeSocket returns, having written nothing, when a limit refuses the
// socket: the caller answers 503 (ReasonCeiling) or 429 with Retry-After.
type RefusedError struct {
	Reason     string
	Limit      int
	RetryAfter time.Duration
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("realtime: socket refused: %s limit (%d) reached", e.Reason, e.Limit)
}

// AsRefused returns the *RefusedError in err's chain, if any.
func AsRefused(err error) (*RefusedError, bool) {
	var r *RefusedError
	ok := errors.As(err, &r)
	return r, ok
}

// slots counts this replica's sockets against its ceiling.
type slots struct {
	n, ceiling atomic.Int64
}

// take reserves a slot, or reports that the ceiling is reached. A compare-and-swap, not a
// lock: upgrades racing for the last slots get exactly as many as there are.
func (s *slots) take() bool {
	for {
		n := s.n.Load()
		if n >= s.ceiling.Load() {
			return false
		}
		if s.n.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

func (s *slots) give() { s.n.Add(-1) }
