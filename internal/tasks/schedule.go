package tasks

import (
	"fmt"
	"time"
)

// Between returns the occurrences whose instants in loc fall in [from, to), earliest first,
// for the planner: bounded by planLimits. The local days the window touches are expanded
// whole, and a day with more than maxPerDay occurrences, or maxTasksPerDay tasks of items
// each, is an error (nothing planned): CheckRule refuses such rules, so only one stored
// before it can get here, and the cap holds on every day as it is planned.
func (r Rule) Between(loc *time.Location, from, to time.Time, items int) ([]time.Time, error) {
	// Naive bounds, widened by a day each way to cover offsets, transitions and whole days.
	nf := naive(from.In(loc)).Add(-26 * time.Hour)
	nt := naive(to.In(loc)).Add(26 * time.Hour)
	firstDay, lastDay := naive(from.In(loc)).Truncate(24*time.Hour), naive(to.In(loc)).Truncate(24*time.Hour)
	it := r.rr.IterFrom(nf, planLimits.limits(nt))
	perDay := map[time.Time]int{}
	var out []time.Time
	for {
		n, ok := it.Next()
		if !ok || n.After(nt) {
			break
		}
		if n.Before(nf) {
			continue
		}
		if d := n.Truncate(24 * time.Hour); !d.Before(firstDay) && !d.After(lastDay) {
			if perDay[d]++; perDay[d] > maxPerDay || perDay[d]*items > maxTasksPerDay {
				return nil, fmt.Errorf("more than %d occurrences or %d tasks on %s", maxPerDay, maxTasksPerDay, d.Format(time.DateOnly))
			}
		}
		at := Place(n, loc)
		if !at.Before(from) && at.Before(to) && (len(out) == 0 || !at.Equal(out[len(out)-1])) {
			out = append(out, at)
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
