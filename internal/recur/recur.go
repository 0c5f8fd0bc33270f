// Package recur expands RFC 5545 recurrence rules within limits its caller sets.
//
// The expansion is that of github.com/teambition/rrule-go (which still parses the rules),
// adapted so that no call can run without end: that library's iterator searches, inside one
// call, period after period up to the year 9999 for a rule whose BY* parts rarely or never
// match, and loops forever on a sub-daily INTERVAL that never meets BYHOUR or BYMINUTE. Here
// every period and every step of the time search counts against a budget, the search stops
// at a last instant the caller names, and a time search that has gone round a whole day
// without a match reports that the rule never occurs. The adapted code keeps the library's
// licence (LICENSE.rrule-go beside this file).
package recur

import (
	"errors"
	"sort"
	"time"

	"github.com/teambition/rrule-go"
)

// ErrBudget is an expansion stopped because it used its budget of steps or time.
var ErrBudget = errors.New("recur: expansion budget exhausted")

// ErrNever is a sub-daily rule whose INTERVAL never meets its BYHOUR, BYMINUTE or BYSECOND.
var ErrNever = errors.New("recur: the interval never meets the BY* parts")

// Rule is a rule ready to expand from its DTSTART.
type Rule struct {
	freq                    rrule.Frequency
	dtstart                 time.Time
	interval                int
	wkst                    int
	count                   int
	until                   time.Time
	bysetpos                []int
	bymonth                 []int
	bymonthday, bynmonthday []int
	byyearday               []int
	byweekno                []int
	byweekday               []int
	bynweekday              []weekday
	byhour                  []int
	byminute                []int
	bysecond                []int
	byeaster                []int
	timeset                 []time.Time
}

type weekday struct{ weekday, n int }

// New builds a rule from parsed options, as rrule.NewRRule would (it checks the bounds with
// it first), with the same defaults: a YEARLY rule with no BY* day part recurs on DTSTART's
// month and day, and so on.
func New(arg rrule.ROption) (*Rule, error) {
	if _, err := rrule.NewRRule(arg); err != nil {
		return nil, err
	}
	r := &Rule{freq: arg.Freq, interval: max(arg.Interval, 1), count: max(arg.Count, 0)}
	r.dtstart = arg.Dtstart.Truncate(time.Second)
	if arg.Until.IsZero() {
		r.until = r.dtstart.Add(time.Duration(1<<63 - 1))
	} else {
		r.until = arg.Until.Truncate(time.Second)
	}
	r.wkst = arg.Wkst.Day()
	r.bysetpos = arg.Bysetpos
	if len(arg.Byweekno) == 0 && len(arg.Byyearday) == 0 && len(arg.Bymonthday) == 0 && len(arg.Byweekday) == 0 && len(arg.Byeaster) == 0 {
		switch r.freq {
		case rrule.YEARLY:
			if len(arg.Bymonth) == 0 {
				arg.Bymonth = []int{int(r.dtstart.Month())}
			}
			arg.Bymonthday = []int{r.dtstart.Day()}
		case rrule.MONTHLY:
			arg.Bymonthday = []int{r.dtstart.Day()}
		case rrule.WEEKLY:
			arg.Byweekday = []rrule.Weekday{weekdays[toPyWeekday(r.dtstart.Weekday())]}
		}
	}
	r.bymonth, r.byyearday, r.byeaster, r.byweekno = arg.Bymonth, arg.Byyearday, arg.Byeaster, arg.Byweekno
	for _, d := range arg.Bymonthday {
		if d > 0 {
			r.bymonthday = append(r.bymonthday, d)
		} else if d < 0 {
			r.bynmonthday = append(r.bynmonthday, d)
		}
	}
	for _, w := range arg.Byweekday {
		if w.N() == 0 || r.freq > rrule.MONTHLY {
			r.byweekday = append(r.byweekday, w.Day())
		} else {
			r.bynweekday = append(r.bynweekday, weekday{w.Day(), w.N()})
		}
	}
	r.byhour, r.byminute, r.bysecond = arg.Byhour, arg.Byminute, arg.Bysecond
	if len(r.byhour) == 0 && r.freq < rrule.HOURLY {
		r.byhour = []int{r.dtstart.Hour()}
	}
	if len(r.byminute) == 0 && r.freq < rrule.MINUTELY {
		r.byminute = []int{r.dtstart.Minute()}
	}
	if len(r.bysecond) == 0 && r.freq < rrule.SECONDLY {
		r.bysecond = []int{r.dtstart.Second()}
	}
	if r.freq < rrule.HOURLY {
		for _, h := range r.byhour {
			for _, m := range r.byminute {
				for _, s := range r.bysecond {
					r.timeset = append(r.timeset, time.Date(1, 1, 1, h, m, s, 0, r.dtstart.Location()))
				}
			}
		}
		sort.Sort(timeSlice(r.timeset))
	}
	return r, nil
}

var weekdays = []rrule.Weekday{rrule.MO, rrule.TU, rrule.WE, rrule.TH, rrule.FR, rrule.SA, rrule.SU}

// Limits bound one expansion. Steps counts the steps of its sub-daily time search, and
// periodSteps for each period it walks; Deadline (if set) is checked every few hundred steps; the
// expansion ends, without error, at the first period that begins after Last (if set).
type Limits struct {
	Steps    int
	Deadline time.Time
	Last     time.Time
}

// Iter walks a rule's occurrences, earliest first.
type Iter struct {
	it  rIterator
	err error
}

// Iter starts an expansion from DTSTART within l.
func (r *Rule) Iter(l Limits) *Iter {
	it := &Iter{}
	it.it.start(r, r.dtstart, l)
	return it
}

// IterFrom starts an expansion near from: at a period of the rule's lattice (DTSTART plus a
// whole number of intervals) a period or more before it, so that a rule started years ago
// costs no more to read than a new one. Occurrences before from may still come; the caller
// skips them. A rule with COUNT counts from DTSTART, so it starts there.
func (r *Rule) IterFrom(from time.Time, l Limits) *Iter {
	it := &Iter{}
	it.it.start(r, r.latticeBefore(from), l)
	return it
}

// latticeBefore is the latest period start on the rule's lattice a period before t (DTSTART
// when t is earlier or the rule counts its occurrences).
func (r *Rule) latticeBefore(t time.Time) time.Time {
	s := r.dtstart
	if r.count != 0 || !t.After(s) {
		return s
	}
	periods := func(units int) int { return max(units/r.interval-1, 0) * r.interval }
	switch r.freq {
	case rrule.YEARLY:
		return time.Date(s.Year()+periods(t.Year()-s.Year()), 1, 1, 0, 0, 0, 0, s.Location())
	case rrule.MONTHLY:
		n := periods((t.Year()-s.Year())*12 + int(t.Month()-s.Month()))
		return time.Date(s.Year(), s.Month()+time.Month(n), 1, 0, 0, 0, 0, s.Location())
	case rrule.WEEKLY:
		return s.AddDate(0, 0, 7*periods(int(t.Sub(s).Hours()/24)/7))
	case rrule.DAILY:
		return s.AddDate(0, 0, periods(int(t.Sub(s).Hours()/24)))
	case rrule.HOURLY:
		return s.Add(time.Duration(periods(int(t.Sub(s)/time.Hour))) * time.Hour)
	case rrule.MINUTELY:
		return s.Add(time.Duration(periods(int(t.Sub(s)/time.Minute))) * time.Minute)
	}
	return s.Add(time.Duration(periods(int(t.Sub(s)/time.Second))) * time.Second)
}

// Next is the next occurrence, or false when the rule has no more or a limit ended the
// expansion (Err tells which).
func (it *Iter) Next() (time.Time, bool) {
	if it.err == nil {
		it.err = it.it.generate()
	}
	return it.it.remain.pop()
}

// Err is why the expansion stopped early: ErrBudget, ErrNever, or nil.
func (it *Iter) Err() error { return it.err }
