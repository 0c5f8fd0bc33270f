package main

import (
	"os"
	"runtime/debug"

	"github.com/sous-app/sous/internal/auth"
)

// The garbage collector's defaults (GOGC=100, no memory limit) collect each time the heap
// doubles: with a live heap of tens of MiB and a request allocating a few KiB, that is a
// collection every few thousand requests, 15 % of the CPU an authenticated read costs. A request
// server has memory to spare for CPU, within a bound: the heap may grow to five times what is
// live (gcPercent), and the soft limit keeps the whole process near memoryLimit, room for
// argon2id's bounded working set (auth.HashMemoryBudget) beside everything else, so a flood of
// password attempts still fits a small machine. GOGC and GOMEMLIMIT in the environment win.
const (
	gcPercent   = 400
	memoryLimit = 192<<20 + auth.HashMemoryBudget
)

func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}
