package auth

import (
	"context"
	"runtime"
)

// hashGate bounds the argon2id work running at once on this server. Every hash or verification
// holds MemoryKiB of memory and one CPU for tens of milliseconds; unbounded, a burst of
// sign-ins (unauthenticated, so anyone can send them) grows memory without limit and takes every
// core from the requests of other tenants. Only operations admitted by the passwordQueue reach
// it, admitFactor per slot, so a wait here is at most about one hash long and needs no bound of
// its own beyond the request's deadline.
type hashGate struct {
	slots chan struct{}
}

// HashMemoryBudget is how much memory argon2id may hold at once on one server (the process
// sizes its garbage collector's memory limit with it).
const HashMemoryBudget = 128 << 20

// newHashGate sizes the gate from the CPUs (half of them, at least one, so the other half keeps
// serving everything else) and the memory each hash holds (within HashMemoryBudget); slots > 0
// overrides the size.
func newHashGate(p HashParams, slots int) *hashGate {
	if slots <= 0 {
		slots = gateSize(runtime.GOMAXPROCS(0), p)
	}
	return &hashGate{slots: make(chan struct{}, slots)}
}

func gateSize(cpus int, p HashParams) int {
	n := max(1, cpus/2)
	if perHash := int64(p.MemoryKiB) << 10; perHash > 0 {
		n = min(n, max(1, int(HashMemoryBudget/perHash)))
	}
	return n
}

// run runs fn in a slot once one is free (in the order the operations asked), or answers why
// the request ended first (see abandoned).
func (g *hashGate) run(ctx context.Context, fn func()) error {
	select {
	case g.slots <- struct{}{}:
	case <-ctx.Done():
		return abandoned(ctx, 0)
	}
	defer func() { <-g.slots }()
	fn()
	return nil
}
