package tasks

import (
	"strings"
	"time"

	"github.com/teambition/rrule-go"

	"github.com/sous-app/sous/internal/apierr"
)

// maxPerDay bounds how many occurrences a rule may make in a day: a rule that makes more
// (FREQ=MINUTELY, say) is refused rather than filling the task list.
const maxPerDay = 96

// Rule is a parsed recurrence rule. It is expanded in "floating" time: the rule's hours and
// minutes are wall-clock times, found first as naive times (on a UTC clock that has no
// transitions) and only then placed in the site's zone, so daylight-saving transitions follow
// one fixed rule whatever the library or Go's time.Date would choose (see Place).
type Rule struct {
	rr *rrule.RRule
}

// ParseRule parses an RRULE value from startsOn (local date, naive) on. An invalid rule
// answers 400 with the parser's reason.
func ParseRule(s string, startsOn time.Time) (Rule, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "RRULE:"), "rrule:")
	if strings.Contains(strings.ToUpper(s), "DTSTART") {
		return Rule{}, apierr.InvalidField("rrule", "must not carry DTSTART: the rule starts on startsOn in the site's time zone")
	}
	opt, err := rrule.StrToROption(s)
	if err != nil {
		return Rule{}, apierr.InvalidField("rrule", err.Error())
	}
	if opt.Freq == rrule.SECONDLY {
		return Rule{}, apierr.InvalidField("rrule", "FREQ=SECONDLY is not accepted: kitchen routines recur by the minute at the finest")
	}
	opt.Dtstart = time.Date(startsOn.Year(), startsOn.Month(), startsOn.Day(), 0, 0, 0, 0, time.UTC)
	rr, err := rrule.NewRRule(*opt)
	if err != nil {
		return Rule{}, apierr.InvalidField("rrule", err.Error())
	}
	r := Rule{rr: rr}
	// Refuse rules that would make more than maxPerDay occurrences in a day (a week's sample).
	sample := rr.Between(opt.Dtstart, opt.Dtstart.Add(7*24*time.Hour), true)
	if len(sample) > 7*maxPerDay {
		return Rule{}, apierr.InvalidField("rrule", "makes more than 96 occurrences a day")
	}
	return r, nil
}

// Between returns the occurrences whose instants in loc fall in [from, to), earliest first.
func (r Rule) Between(loc *time.Location, from, to time.Time) []time.Time {
	// Naive bounds, widened by a day each way to cover offsets and transitions.
	nf := naive(from.In(loc)).Add(-26 * time.Hour)
	nt := naive(to.In(loc)).Add(26 * time.Hour)
	var out []time.Time
	for _, n := range r.rr.Between(nf, nt, true) {
		at := Place(n, loc)
		if !at.Before(from) && at.Before(to) && (len(out) == 0 || !at.Equal(out[len(out)-1])) {
			out = append(out, at)
		}
	}
	return out
}

// Next returns up to n occurrences at or after from.
func (r Rule) Next(loc *time.Location, from time.Time, n int) []time.Time {
	out := make([]time.Time, 0, n)
	nf := naive(from.In(loc)).Add(-26 * time.Hour)
	it := r.rr.Iterator()
	for i := 0; len(out) < n && i < 1_000_000; i++ {
		v, ok := it()
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
