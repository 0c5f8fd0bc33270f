package clock

import "time"

// The moments a request may name: from 1900 to the end of 9998, in UTC. Later instants written
// in a site's zone (or read back with an offset) could pass year 9999, which RFC 3339 and JSON
// cannot write; earlier ones meet zones' local mean time, whose offsets in seconds the spec's
// forms cannot carry. A year-0 `dueAt` was stored and answered in a form the spec refuses.
var (
	Earliest = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	Latest   = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC) // exclusive
)

// InRange reports whether t is a moment a request may name.
func InRange(t time.Time) bool { return !t.Before(Earliest) && t.Before(Latest) }

// RangeProblem is the message a field outside the range gets.
const RangeProblem = "must be a moment from 1900 to 9998"
