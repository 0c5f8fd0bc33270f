package clinical

import "slices"

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
