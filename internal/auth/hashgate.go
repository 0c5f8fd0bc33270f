package auth

import (
	"context"
	"runtime"
	"time"

	"github.com/sous-app/sous/internal/apierr"
)

// hashGate bounds the argon2id work running at once on this server. Every hash or verification
// holds MemoryKiB of memory and one CPU for tens of milliseconds; unbounded, a burst of
// sign-ins (unauthenticated, so anyone can send them) grows memory without limit and takes every
// core from the requests of other tenants. A request that cannot get a slot within a short wait
// is answered 503 with Retry-After rather than queued.
type hashGate struct {
	slots chan struct{}
	wait  time.Duration
}

// hashMemoryBudget is how much memory argon2id may hold at once on one server.
const hashMemoryBudget = 128 << 20

// hashWait is how long a request waits for a slot before the 503: long enough to absorb the
// ordinary jitter of a few sign-ins at once, short enough that waiting requests never pile up.
const hashWait = 250 * time.Millisecond

// newHashGate sizes the gate from the CPUs (half of them, at least one, so the other half keeps
// serving everything else) and the memory each hash holds (within hashMemoryBudget).
func newHashGate(p HashParams) *hashGate {
	return &hashGate{slots: make(chan struct{}, gateSize(runtime.GOMAXPROCS(0), p)), wait: hashWait}
}

func gateSize(cpus int, p HashParams) int {
	n := max(1, cpus/2)
	if perHash := int64(p.MemoryKiB) << 10; perHash > 0 {
		n = min(n, max(1, int(hashMemoryBudget/perHash)))
	}
	return n
}

var errHashBusy = apierr.Unavailable(apierr.CodeServiceBusy, "The server is busy checking passwords; retry in a second", time.Second)

// run runs fn in a slot, or answers service_busy when none frees up within the wait.
func (g *hashGate) run(ctx context.Context, fn func()) error {
	select {
	case g.slots <- struct{}{}:
	default:
		t := time.NewTimer(g.wait)
		defer t.Stop()
		select {
		case g.slots <- struct{}{}:
		case <-t.C:
			return errHashBusy
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer func() { <-g.slots }()
	fn()
	return nil
}
