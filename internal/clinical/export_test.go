package clinical

import (
	"slices"
	"time"
)

// FailWritesOf makes every write that would apply or skip a message with one of these control ids
// fail in the database, as a refused row would, until the returned function is called.
func FailWritesOf(controlIDs ...string) (restore func()) {
	hook := func(trail []trailRow) bool {
		return slices.ContainsFunc(trail, func(r trailRow) bool {
			return r.Outcome != outRejected && slices.Contains(controlIDs, r.ControlID)
		})
	}
	testHookFailWrite.Store(&hook)
	return func() { testHookFailWrite.Store(nil) }
}

// SetTrailExpiry changes how often and how many rows the trail expiry clears (tests only; not
// for parallel tests).
func SetTrailExpiry(every time.Duration, slice int32) (restore func()) {
	oldEvery, oldSlice := expiryEvery, expirySlice
	expiryEvery, expirySlice = every, slice
	return func() { expiryEvery, expirySlice = oldEvery, oldSlice }
}
