// Package gctune sets the garbage collector the way a Sous server runs: the server at start-up,
// and the benchmarks that measure it in a test process, so they measure the same collector.
package gctune

import (
	"os"
	"runtime/debug"

	"github.com/sous-app/sous/internal/auth"
)

// The garbage collector's defaults (GOGC=100, no memory limit) collect each time the heap
// doubles: with a live heap of tens of MiB and a request allocating a few KiB, that is a
// collection every few thousand requests, 15 % of the CPU an authenticated read costs. A request
// server has memory to spare for CPU, within a bound: the heap may grow to five times what is
// live (GCPercent), and the soft limit keeps the whole process near MemoryLimit, room for
// argon2id's bounded working set (auth.HashMemoryBudget) beside everything else, so a flood of
// password attempts still fits a small machine.
const (
	GCPercent   = 400
	MemoryLimit = 192<<20 + auth.HashMemoryBudget
)

// Apply sets GCPercent and MemoryLimit, except where GOGC or GOMEMLIMIT in the environment say
// otherwise.
func Apply() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(MemoryLimit)
	}
}
