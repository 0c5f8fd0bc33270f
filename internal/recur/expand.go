package recur

// The expansion below follows github.com/teambition/rrule-go v1.8.2 (rrule.go, util.go;
// MIT licence, LICENSE.rrule-go), itself a port of python-dateutil's rrule. The changes: the
// budget, deadline and last period (see Limits), the bounded time search (ErrNever), and
// indexes that BY* values near their bounds could push outside the year's masks are skipped
// instead of panicking.

import (
	"sort"
	"time"

	"github.com/teambition/rrule-go"
)

type optInt struct {
	Int     int
	Defined bool
}

// rIterator is an expansion in progress.
type rIterator struct {
	year                      int
	month                     time.Month
	day, hour, minute, second int
	weekday                   int
	ii                        iterInfo
	timeset                   []time.Time
	count                     int
	remain                    remainSlice
	finished                  bool
	dayset                    []optInt
	steps                     int
	limits                    Limits
	last                      int64 // limits.Last as a clockKey, or 0
}

// start places the iterator on the period that begins at at: DTSTART, or a later period of
// its lattice (see latticeBefore).
func (it *rIterator) start(r *Rule, at time.Time, l Limits) {
	it.year, it.month, it.day = at.Date()
	it.hour, it.minute, it.second = at.Clock()
	it.weekday = toPyWeekday(at.Weekday())
	it.ii = iterInfo{rule: r}
	it.ii.rebuild(it.year, it.month)
	it.limits = l
	if !l.Last.IsZero() {
		y, m, d := l.Last.In(r.dtstart.Location()).Date()
		h, mi, s := l.Last.In(r.dtstart.Location()).Clock()
		it.last = clockKey(y, m, d, h, mi, s)
	}
	if r.freq < rrule.HOURLY {
		it.timeset = r.timeset
	} else if r.freq >= rrule.HOURLY && len(r.byhour) != 0 && !contains(r.byhour, it.hour) ||
		r.freq >= rrule.MINUTELY && len(r.byminute) != 0 && !contains(r.byminute, it.minute) ||
		r.freq >= rrule.SECONDLY && len(r.bysecond) != 0 && !contains(r.bysecond, it.second) {
		it.timeset = nil
	} else {
		it.ii.fillTimeSet(&it.timeset, r.freq, it.hour, it.minute, it.second)
	}
	it.count = r.count
}

// periodSteps is what walking one period counts against the budget: about as much work as
// that many steps of the time search.
const periodSteps = 4

// step counts n steps against the limits.
func (it *rIterator) step(n int) error {
	before := it.steps
	it.steps += n
	if it.limits.Steps > 0 && it.steps > it.limits.Steps {
		return ErrBudget
	}
	if !it.limits.Deadline.IsZero() && before/deadlineEvery != it.steps/deadlineEvery && time.Now().After(it.limits.Deadline) {
		return ErrBudget
	}
	return nil
}

// clockKey orders instants by their fields alone (no time.Date in the walk's hot path).
func clockKey(year int, month time.Month, day, hour, minute, second int) int64 {
	return ((((int64(year)*13+int64(month))*32+int64(day))*24+int64(hour))*60+int64(minute))*60 + int64(second)
}

// periodStart is when the period the iterator stands on begins, as a clockKey.
func (it *rIterator) periodStart() int64 {
	switch it.ii.rule.freq {
	case rrule.YEARLY:
		return clockKey(it.year, 1, 1, 0, 0, 0)
	case rrule.MONTHLY:
		return clockKey(it.year, it.month, 1, 0, 0, 0)
	case rrule.WEEKLY, rrule.DAILY:
		return clockKey(it.year, it.month, it.day, 0, 0, 0)
	}
	return clockKey(it.year, it.month, it.day, it.hour, it.minute, it.second)
}

// emit keeps one result; done is whether the rule has ended.
func (it *rIterator) emit(res time.Time) (done bool) {
	r := it.ii.rule
	if res.After(r.until) {
		return true
	}
	if !res.Before(r.dtstart) {
		it.remain.append(res)
		if it.count != 0 {
			it.count--
			if it.count == 0 {
				return true
			}
		}
	}
	return false
}

// generate walks periods until one yields occurrences, the rule ends or a limit is reached.
func (it *rIterator) generate() error {
	r := it.ii.rule
	for !it.finished && it.remain.len() == 0 {
		if err := it.step(periodSteps); err != nil {
			it.finished = true
			return err
		}
		if it.last != 0 && it.periodStart() > it.last {
			it.finished = true
			return nil
		}
		setStart, setEnd := it.ii.calcDaySet(r.freq, it.year, it.month, it.day)
		it.fillDaySet(setStart, setEnd)
		filtered := false
		ii := &it.ii
		for k, d := range it.dayset {
			i := d.Int
			if len(r.bymonth) != 0 && !contains(r.bymonth, ii.mmask[i]) ||
				len(r.byweekno) != 0 && ii.wnomask[i] == 0 ||
				len(r.byweekday) != 0 && !contains(r.byweekday, ii.wdaymask[i]) ||
				len(ii.nwdaymask) != 0 && (i >= len(ii.nwdaymask) || ii.nwdaymask[i] == 0) ||
				len(r.byeaster) != 0 && ii.eastermask[i] == 0 ||
				(len(r.bymonthday) != 0 || len(r.bynmonthday) != 0) &&
					!contains(r.bymonthday, ii.mdaymask[i]) && !contains(r.bynmonthday, ii.nmdaymask[i]) ||
				len(r.byyearday) != 0 &&
					(i < ii.yearlen && !contains(r.byyearday, i+1) && !contains(r.byyearday, -ii.yearlen+i) ||
						i >= ii.yearlen && !contains(r.byyearday, i+1-ii.yearlen) && !contains(r.byyearday, -ii.nextyearlen+i-ii.yearlen)) {
				it.dayset[k].Defined = false
				filtered = true
			}
		}
		if len(r.bysetpos) != 0 && len(it.timeset) != 0 {
			var poslist []time.Time
			var days []int
			for _, d := range it.dayset {
				if d.Defined {
					days = append(days, d.Int)
				}
			}
			for _, pos := range r.bysetpos {
				var daypos, timepos int
				if pos < 0 {
					daypos, timepos = divmod(pos, len(it.timeset))
				} else {
					daypos, timepos = divmod(pos-1, len(it.timeset))
				}
				i, ok := pySubscript(days, daypos)
				if !ok {
					continue
				}
				t := it.timeset[timepos]
				y, m, dd := ii.date(i)
				h, mi, s := t.Clock()
				res := time.Date(y, m, dd, h, mi, s, t.Nanosecond(), t.Location())
				if !timeContains(poslist, res) {
					poslist = append(poslist, res)
				}
			}
			sort.Sort(timeSlice(poslist))
			for _, res := range poslist {
				if it.emit(res) {
					it.finished = true
					return nil
				}
			}
		} else {
			for _, d := range it.dayset {
				if !d.Defined {
					continue
				}
				y, m, dd := ii.date(d.Int)
				for _, t := range it.timeset {
					h, mi, s := t.Clock()
					if it.emit(time.Date(y, m, dd, h, mi, s, t.Nanosecond(), t.Location())) {
						it.finished = true
						return nil
					}
				}
			}
		}
		if err := it.advance(filtered); err != nil {
			it.finished = true
			return err
		}
	}
	return nil
}

// advance moves to the next period by the frequency and interval.
func (it *rIterator) advance(filtered bool) error {
	r := it.ii.rule
	fixday := false
	switch r.freq {
	case rrule.YEARLY:
		it.year += r.interval
		if it.year > maxYear {
			it.finished = true
			return nil
		}
		it.ii.rebuild(it.year, it.month)
	case rrule.MONTHLY:
		it.month += time.Month(r.interval)
		if it.month > 12 {
			div, mod := divmod(int(it.month), 12)
			it.month = time.Month(mod)
			it.year += div
			if it.month == 0 {
				it.month = 12
				it.year--
			}
			if it.year > maxYear {
				it.finished = true
				return nil
			}
		}
		it.ii.rebuild(it.year, it.month)
	case rrule.WEEKLY:
		if r.wkst > it.weekday {
			it.day += -(it.weekday + 1 + (6 - r.wkst)) + r.interval*7
		} else {
			it.day += -(it.weekday - r.wkst) + r.interval*7
		}
		it.weekday = r.wkst
		fixday = true
	case rrule.DAILY:
		it.day += r.interval
		fixday = true
	case rrule.HOURLY, rrule.MINUTELY, rrule.SECONDLY:
		var err error
		if fixday, err = it.advanceClock(filtered); err != nil {
			return err
		}
		it.ii.fillTimeSet(&it.timeset, r.freq, it.hour, it.minute, it.second)
	}
	if fixday && it.day > 28 {
		dim := daysIn(it.month, it.year)
		if it.day > dim {
			for it.day > dim {
				it.day -= dim
				it.month++
				if it.month == 13 {
					it.month = 1
					it.year++
					if it.year > maxYear {
						it.finished = true
						return nil
					}
				}
				dim = daysIn(it.month, it.year)
			}
			it.ii.rebuild(it.year, it.month)
		}
	}
	return nil
}

// advanceClock moves a sub-daily rule to its next time that meets BYHOUR, BYMINUTE and
// BYSECOND. The times a rule reaches repeat after a day's worth of steps (a day's seconds
// when it steps by the second), so a search that long without a match never ends: ErrNever.
func (it *rIterator) advanceClock(filtered bool) (fixday bool, err error) {
	r := it.ii.rule
	unit := 1
	switch r.freq {
	case rrule.HOURLY:
		unit = 3600
	case rrule.MINUTELY:
		unit = 60
	}
	// The clock in units since midnight.
	at := (it.hour*3600 + it.minute*60 + it.second) / unit
	perDay := 86400 / unit
	if filtered {
		// Jump to one step before the next day.
		at += ((perDay - 1 - at) / r.interval) * r.interval
	}
	for n := 0; ; n++ {
		if n > perDay {
			return fixday, ErrNever
		}
		if err := it.step(1); err != nil {
			return fixday, err
		}
		at += r.interval
		if div := at / perDay; div != 0 {
			at %= perDay
			it.day += div
			fixday = true
		}
		switch unit {
		case 3600:
			it.hour = at
		case 60:
			it.hour, it.minute = at/60, at%60
		default:
			it.hour, it.minute, it.second = at/3600, at/60%60, at%60
		}
		if (r.freq < rrule.HOURLY || len(r.byhour) == 0 || contains(r.byhour, it.hour)) &&
			(r.freq < rrule.MINUTELY || len(r.byminute) == 0 || contains(r.byminute, it.minute)) &&
			(r.freq < rrule.SECONDLY || len(r.bysecond) == 0 || contains(r.bysecond, it.second)) {
			return fixday, nil
		}
	}
}

func (it *rIterator) fillDaySet(start, end int) {
	it.dayset = it.dayset[:0]
	for i := start; i < end; i++ {
		it.dayset = append(it.dayset, optInt{Int: i, Defined: true})
	}
}

// remainSlice holds a period's occurrences not yet handed out.
type remainSlice struct{ items []time.Time }

func (s *remainSlice) len() int           { return len(s.items) }
func (s *remainSlice) append(t time.Time) { s.items = append(s.items, t) }
func (s *remainSlice) pop() (time.Time, bool) {
	if len(s.items) == 0 {
		return time.Time{}, false
	}
	t := s.items[0]
	s.items = s.items[1:]
	if len(s.items) == 0 {
		s.items = s.items[:0:0]
	}
	return t, true
}

type timeSlice []time.Time

func (s timeSlice) Len() int           { return len(s) }
func (s timeSlice) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }
func (s timeSlice) Less(i, j int) bool { return s[i].Before(s[j]) }
