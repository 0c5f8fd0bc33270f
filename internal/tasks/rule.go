package tasks

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/teambition/rrule-go"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/recur"
)

// The limits of a routine's rule. A rule must occur within occursWithin of its first day
// (startsOn, or today when that has passed), and make at most maxPerDay occurrences and
// maxTasksPerDay tasks (occurrences times items) on any local day in that time: one planning
// of a routine (24 hours, two local days at most) then makes at most 2 × maxTasksPerDay tasks.
const (
	maxPerDay      = 96
	maxTasksPerDay = 1000
	occursWithin   = 2 // years
)

// The bounds of one expansion, in recur's steps (a period walked counts 4). Checking a rule
// walks up to two years of it (70,000 periods at 96 a day, about a million steps when a
// sub-daily rule searches each day for its hour: 10-40 ms); planning a routine walks about
// two days of it; a read walks only as far as 10,000 steps reach (at most about 0.3 ms:
// five weekly occurrences of a rule that searches a week of minutes for each), so a list of
// many routines stays cheap whatever their rules.
var (
	checkLimits = expansion{steps: 4_000_000, time: 500 * time.Millisecond}
	planLimits  = expansion{steps: 200_000, time: 50 * time.Millisecond}
	readLimits  = expansion{steps: 10_000}
)

type expansion struct {
	steps int
	time  time.Duration // wall time; zero for none (reads, whose bound is their steps alone)
}

func (e expansion) limits(last time.Time) recur.Limits {
	l := recur.Limits{Steps: e.steps, Last: last}
	if e.time > 0 {
		l.Deadline = time.Now().Add(e.time)
	}
	return l
}

// Rule is a parsed recurrence rule. It is expanded in "floating" time: the rule's hours and
// minutes are wall-clock times, found first as naive times (on a UTC clock that has no
// transitions) and only then placed in the site's zone, so daylight-saving transitions follow
// one fixed rule whatever the library or Go's time.Date would choose (see Place).
type Rule struct {
	rr  *recur.Rule
	opt rrule.ROption
}

// ParseRule parses an RRULE value from startsOn (local date, naive) on, and refuses at once,
// with no expansion, what can be seen never to occur: INTERVAL below 1, and a sub-daily
// INTERVAL that never meets BYHOUR or BYMINUTE. It is what every use of a stored rule goes
// through (reads, the planner); CheckRule adds the checks that expand the rule, for writes.
func ParseRule(s string, startsOn time.Time) (Rule, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "RRULE:"), "rrule:")
	if strings.Contains(strings.ToUpper(s), "DTSTART") {
		return Rule{}, apierr.InvalidField("rrule", "must not carry DTSTART: the rule starts on startsOn in the site's time zone")
	}
	for _, part := range strings.Split(s, ";") {
		k, v, _ := strings.Cut(part, "=")
		switch strings.ToUpper(strings.TrimSpace(k)) {
		case "INTERVAL":
			if n, err := strconv.Atoi(v); err == nil && n < 1 {
				return Rule{}, apierr.InvalidField("rrule", "INTERVAL must be 1 or more")
			}
		case "BYEASTER":
			return Rule{}, apierr.InvalidField("rrule", "BYEASTER is not accepted: it is not part of RFC 5545")
		}
	}
	opt, err := rrule.StrToROption(s)
	if err != nil {
		return Rule{}, apierr.InvalidField("rrule", err.Error())
	}
	if opt.Freq == rrule.SECONDLY {
		return Rule{}, apierr.InvalidField("rrule", "FREQ=SECONDLY is not accepted: kitchen routines recur by the minute at the finest")
	}
	if err := coincide(opt); err != nil {
		return Rule{}, err
	}
	opt.Dtstart = time.Date(startsOn.Year(), startsOn.Month(), startsOn.Day(), 0, 0, 0, 0, time.UTC)
	rr, err := recur.New(*opt)
	if err != nil {
		return Rule{}, apierr.InvalidField("rrule", err.Error())
	}
	return Rule{rr: rr, opt: *opt}, nil
}

// coincide refuses a sub-daily rule whose INTERVAL can never land on its BYHOUR (and
// BYMINUTE). From midnight (where every rule starts), steps of INTERVAL hours reach exactly
// the hours that are multiples of gcd(INTERVAL, 24); steps of INTERVAL minutes, the minutes
// of the day that are multiples of gcd(INTERVAL, 1440).
func coincide(opt *rrule.ROption) error {
	interval := max(opt.Interval, 1)
	hours, minutes := opt.Byhour, opt.Byminute
	switch opt.Freq {
	case rrule.HOURLY:
		g := gcd(interval, 24)
		if len(hours) == 0 || g == 1 {
			return nil
		}
		for _, h := range hours {
			if h%g == 0 {
				return nil
			}
		}
		return neverCoincide(interval, "BYHOUR="+ints(hours))
	case rrule.MINUTELY:
		g := gcd(interval, 24*60)
		if len(hours) == 0 && len(minutes) == 0 || g == 1 {
			return nil
		}
		hs, ms := hours, minutes
		if len(hs) == 0 {
			hs = span(24)
		}
		if len(ms) == 0 {
			ms = span(60)
		}
		for _, h := range hs {
			for _, m := range ms {
				if (h*60+m)%g == 0 {
					return nil
				}
			}
		}
		var parts []string
		if len(hours) != 0 {
			parts = append(parts, "BYHOUR="+ints(hours))
		}
		if len(minutes) != 0 {
			parts = append(parts, "BYMINUTE="+ints(minutes))
		}
		return neverCoincide(interval, strings.Join(parts, " and "))
	}
	return nil
}

func neverCoincide(interval int, by string) error {
	return apierr.InvalidField("rrule", fmt.Sprintf("rrule never occurs: INTERVAL=%d with %s can never coincide", interval, by))
}

// CheckRule is ParseRule, then an expansion of the rule over its first occursWithin years
// (from startsOn, or from today when startsOn has passed; both local dates, naive): the rule
// must occur in that time and stay within maxPerDay occurrences and maxTasksPerDay tasks of
// items each on every local day of it. The expansion is bounded in steps and wall time; a
// rule that exhausts them is refused rather than expanded further.
func CheckRule(s string, startsOn, today time.Time, items int) (Rule, error) {
	rule, err := ParseRule(s, startsOn)
	if err != nil {
		return Rule{}, err
	}
	from := rule.opt.Dtstart
	if t := time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, time.UTC); t.After(from) {
		from = t
	}
	last := from.AddDate(occursWithin, 0, 0)
	it := rule.rr.IterFrom(from, checkLimits.limits(last))
	var day time.Time
	perDay, total := 0, 0
	full := func() error {
		switch {
		case perDay > maxPerDay:
			return apierr.InvalidField("rrule", fmt.Sprintf("makes more than %d occurrences a day (%d on %s)", maxPerDay, perDay, day.Format(time.DateOnly)))
		case perDay*items > maxTasksPerDay:
			return apierr.InvalidField("rrule", fmt.Sprintf("makes more than %d tasks a day (%d occurrences of %d items on %s)",
				maxTasksPerDay, perDay, items, day.Format(time.DateOnly)))
		}
		return nil
	}
	for {
		v, ok := it.Next()
		if !ok || !v.Before(last) {
			break
		}
		if v.Before(from) {
			continue
		}
		if d := v.Truncate(24 * time.Hour); !d.Equal(day) {
			if err := full(); err != nil {
				return Rule{}, err
			}
			day, perDay = d, 0
		}
		perDay++
		total++
	}
	if err := full(); err != nil {
		return Rule{}, err
	}
	switch {
	case errors.Is(it.Err(), recur.ErrBudget):
		return Rule{}, apierr.InvalidField("rrule", fmt.Sprintf("too costly to expand over its first %d years: make it simpler", occursWithin))
	case errors.Is(it.Err(), recur.ErrNever):
		return Rule{}, apierr.InvalidField("rrule", "rrule never occurs: its INTERVAL can never meet its BYHOUR, BYMINUTE or BYSECOND")
	case total == 0:
		return Rule{}, apierr.InvalidField("rrule", fmt.Sprintf("rrule never occurs: no occurrence in the next %d years (from %s)", occursWithin, from.Format(time.DateOnly)))
	}
	return rule, nil
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func span(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func ints(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
