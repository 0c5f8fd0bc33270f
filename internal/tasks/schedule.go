package tasks

import (
	"errors"
	"time"
)

// errTooMany is a planning window with more occurrences than a rule that passed CheckRule can
// make: a rule stored before the check.
var errTooMany = errors.New("more occurrences than two days may hold")

// Between returns the occurrences whose instants in loc fall in [from, to), earliest first,
// for the planner: bounded by planLimits, and an error (nothing planned) when the rule
// exhausts them or makes more than two local days' cap in the window.
func (r Rule) Between(loc *time.Location, from, to time.Time) ([]time.Time, error) {
	// Naive bounds, widened by a day each way to cover offsets and transitions.
	nf := naive(from.In(loc)).Add(-26 * time.Hour)
	nt := naive(to.In(loc)).Add(26 * time.Hour)
	it := r.rr.IterFrom(nf, planLimits.limits(nt))
	var out []time.Time
	for {
		n, ok := it.Next()
		if !ok || n.After(nt) {
			break
		}
		if n.Before(nf) {
			continue
		}
		at := Place(n, loc)
		if !at.Before(from) && at.Before(to) && (len(out) == 0 || !at.Equal(out[len(out)-1])) {
			if out = append(out, at); len(out) > 2*maxPerDay {
				return nil, errTooMany
			}
		}
	}
	return out, it.Err()
}

// Next returns up to n occurrences at or after from, for reads: as many as readLimits reach,
// so that a rare rule may show fewer (and one stored before the checks, none).
func (r Rule) Next(loc *time.Location, from time.Time, n int) []time.Time {
	out := make([]time.Time, 0, n)
	nf := naive(from.In(loc)).Add(-26 * time.Hour)
	it := r.rr.IterFrom(nf, readLimits.limits(time.Time{}))
	for len(out) < n {
		v, ok := it.Next()
		if !ok {
			break
		}
		if v.Before(nf) {
			continue
		}
		at := Place(v, loc)
		if at.Before(from) || (len(out) > 0 && !at.After(out[len(out)-1])) {
			continue
		}
		out = append(out, at)
	}
	return out
}

// naive is t's wall clock read on a UTC clock.
func naive(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

// Place puts a naive wall-clock time (on a UTC clock) in loc. A time that exists once is that
// instant. A time that does not exist (skipped by a spring-forward transition) happens as much
// later as the clock jumped: 02:30 on a day the clock goes from 02:00 to 03:00 is 03:30. A time
// that exists twice (repeated by a fall-back transition) happens once, the first time.
func Place(n time.Time, loc *time.Location) time.Time {
	// The offsets in force a day before and a day after: no zone changes twice in two days.
	_, before := n.Add(-24 * time.Hour).In(loc).Zone()
	_, after := n.Add(24 * time.Hour).In(loc).Zone()
	first := n.Add(-time.Duration(before) * time.Second) // the wall time read with the earlier offset
	second := n.Add(-time.Duration(after) * time.Second)
	fits := func(t time.Time) bool { return naive(t.In(loc)).Equal(n) }
	switch {
	case fits(first) && fits(second):
		if first.Before(second) {
			return first
		}
		return second
	case fits(first):
		return first
	case fits(second):
		return second
	}
	// In a gap: read with the offset before the jump, the instant lands as much past the gap's
	// start as the time was (02:30 standard time is 03:30 daylight time).
	return first
}
