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

// Every mask is 7 days longer to handle cross-year weekly periods.
var (
	m366Mask, m365Mask, mday366Mask, mday365Mask, nmday366Mask, nmday365Mask, wdayMask []int

	m366Range = []int{0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366}
	m365Range = []int{0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365}
)

func init() {
	m366Mask = concat(repeat(1, 31), repeat(2, 29), repeat(3, 31), repeat(4, 30), repeat(5, 31), repeat(6, 30), repeat(7, 31),
		repeat(8, 31), repeat(9, 30), repeat(10, 31), repeat(11, 30), repeat(12, 31), repeat(1, 7))
	m365Mask = concat(m366Mask[:59], m366Mask[60:])
	m29, m30, m31 := rang(1, 30), rang(1, 31), rang(1, 32)
	mday366Mask = concat(m31, m29, m31, m30, m31, m30, m31, m31, m30, m31, m30, m31, m31[:7])
	mday365Mask = concat(mday366Mask[:59], mday366Mask[60:])
	m29, m30, m31 = rang(-29, 0), rang(-30, 0), rang(-31, 0)
	nmday366Mask = concat(m31, m29, m31, m30, m31, m30, m31, m31, m30, m31, m30, m31, m31[:7])
	nmday365Mask = concat(nmday366Mask[:31], nmday366Mask[32:])
	for range 55 {
		wdayMask = append(wdayMask, 0, 1, 2, 3, 4, 5, 6)
	}
}

// maxYear is where the expansion ends whatever the limits.
const maxYear = 9999

// deadlineEvery is how many steps pass between two looks at the clock.
const deadlineEvery = 256

type iterInfo struct {
	rule        *Rule
	lastyear    int
	lastmonth   time.Month
	yearlen     int
	nextyearlen int
	firstyday   time.Time
	yearweekday int
	mmask       []int
	mrange      []int
	mdaymask    []int
	nmdaymask   []int
	wdaymask    []int
	wnomask     []int
	nwdaymask   []int
	eastermask  []int
}

func (info *iterInfo) rebuild(year int, month time.Month) {
	r := info.rule
	if year != info.lastyear {
		info.yearlen = 365 + isLeap(year)
		info.nextyearlen = 365 + isLeap(year+1)
		info.firstyday = time.Date(year, time.January, 1, 0, 0, 0, 0, r.dtstart.Location())
		info.yearweekday = toPyWeekday(info.firstyday.Weekday())
		info.wdaymask = wdayMask[info.yearweekday:]
		if info.yearlen == 365 {
			info.mmask, info.mdaymask, info.nmdaymask, info.mrange = m365Mask, mday365Mask, nmday365Mask, m365Range
		} else {
			info.mmask, info.mdaymask, info.nmdaymask, info.mrange = m366Mask, mday366Mask, nmday366Mask, m366Range
		}
		if len(r.byweekno) == 0 {
			info.wnomask = nil
		} else {
			info.buildWeekNumbers(year)
		}
	}
	if len(r.bynweekday) != 0 && (month != info.lastmonth || year != info.lastyear) {
		var ranges [][]int
		if r.freq == rrule.YEARLY {
			if len(r.bymonth) != 0 {
				for _, m := range r.bymonth {
					ranges = append(ranges, info.mrange[m-1:m+1])
				}
			} else {
				ranges = [][]int{{0, info.yearlen}}
			}
		} else if r.freq == rrule.MONTHLY {
			ranges = [][]int{info.mrange[month-1 : month+1]}
		}
		if len(ranges) != 0 {
			info.nwdaymask = make([]int, info.yearlen)
			for _, x := range ranges {
				first, last := x[0], x[1]-1
				for _, y := range r.bynweekday {
					var i int
					if y.n < 0 {
						i = last + (y.n+1)*7
						if i < 0 {
							continue
						}
						i -= pymod(info.wdaymask[i]-y.weekday, 7)
					} else {
						i = first + (y.n-1)*7
						if i >= len(info.wdaymask) {
							continue
						}
						i += pymod(7-info.wdaymask[i]+y.weekday, 7)
					}
					if first <= i && i <= last {
						info.nwdaymask[i] = 1
					}
				}
			}
		}
	}
	if len(r.byeaster) != 0 {
		info.eastermask = make([]int, info.yearlen+7)
		eyday := easter(year).YearDay() - 1
		for _, offset := range r.byeaster {
			if i := eyday + offset; i >= 0 && i < len(info.eastermask) {
				info.eastermask[i] = 1
			}
		}
	}
	info.lastyear, info.lastmonth = year, month
}

func (info *iterInfo) buildWeekNumbers(year int) {
	r := info.rule
	info.wnomask = make([]int, info.yearlen+7)
	firstwkst := pymod(7-info.yearweekday+r.wkst, 7)
	no1wkst := firstwkst
	var wyearlen int
	if no1wkst >= 4 {
		no1wkst = 0
		wyearlen = info.yearlen + pymod(info.yearweekday-r.wkst, 7)
	} else {
		wyearlen = info.yearlen - no1wkst
	}
	div, mod := divmod(wyearlen, 7)
	numweeks := div + mod/4
	mark := func(i int) {
		for range 7 {
			if i < 0 || i >= len(info.wnomask) {
				return
			}
			info.wnomask[i] = 1
			i++
			if info.wdaymask[i] == r.wkst {
				return
			}
		}
	}
	for _, n := range r.byweekno {
		if n < 0 {
			n += numweeks + 1
		}
		if !(0 < n && n <= numweeks) {
			continue
		}
		i := no1wkst
		if n > 1 {
			i = no1wkst + (n-1)*7
			if no1wkst != firstwkst {
				i -= 7 - firstwkst
			}
		}
		mark(i)
	}
	if contains(r.byweekno, 1) {
		// Week number 1 of next year as well.
		i := no1wkst + numweeks*7
		if no1wkst != firstwkst {
			i -= 7 - firstwkst
		}
		if i < info.yearlen {
			mark(i)
		}
	}
	if no1wkst != 0 {
		// The last week number of last year as well.
		var lnumweeks int
		if !contains(r.byweekno, -1) {
			lyearweekday := toPyWeekday(time.Date(year-1, 1, 1, 0, 0, 0, 0, r.dtstart.Location()).Weekday())
			lno1wkst := pymod(7-lyearweekday+r.wkst, 7)
			lyearlen := 365 + isLeap(year-1)
			if lno1wkst >= 4 {
				lnumweeks = 52 + pymod(lyearlen+pymod(lyearweekday-r.wkst, 7), 7)/4
			} else {
				lnumweeks = 52 + pymod(info.yearlen-no1wkst, 7)/4
			}
		} else {
			lnumweeks = -1
		}
		if contains(r.byweekno, lnumweeks) {
			for i := 0; i < no1wkst; i++ {
				info.wnomask[i] = 1
			}
		}
	}
}

func (info *iterInfo) calcDaySet(freq rrule.Frequency, year int, month time.Month, day int) (start, end int) {
	switch freq {
	case rrule.YEARLY:
		return 0, info.yearlen
	case rrule.MONTHLY:
		return info.mrange[month-1], info.mrange[month]
	case rrule.WEEKLY:
		// Weeks may cross the year's end.
		i := info.mrange[month-1] + day - 1
		start, end = i, i+1
		for range 7 {
			i++
			if info.wdaymask[i] == info.rule.wkst {
				break
			}
			end = i + 1
		}
		return start, end
	default:
		i := info.mrange[month-1] + day - 1
		return i, i + 1
	}
}

func (info *iterInfo) fillTimeSet(set *[]time.Time, freq rrule.Frequency, hour, minute, second int) {
	r := info.rule
	*set = (*set)[:0]
	switch freq {
	case rrule.HOURLY:
		for _, m := range r.byminute {
			for _, s := range r.bysecond {
				*set = append(*set, time.Date(1, 1, 1, hour, m, s, 0, r.dtstart.Location()))
			}
		}
		sortTimes(*set)
	case rrule.MINUTELY:
		for _, s := range r.bysecond {
			*set = append(*set, time.Date(1, 1, 1, hour, minute, s, 0, r.dtstart.Location()))
		}
		sortTimes(*set)
	case rrule.SECONDLY:
		*set = append(*set, time.Date(1, 1, 1, hour, minute, second, 0, r.dtstart.Location()))
	}
}

// date is the date of the year's day i (from 0; past the year's end, in the next year).
func (info *iterInfo) date(i int) (int, time.Month, int) {
	if i < 0 || i >= info.yearlen {
		return info.firstyday.AddDate(0, 0, i).Date()
	}
	m := 1
	for info.mrange[m] <= i {
		m++
	}
	return info.firstyday.Year(), time.Month(m), i - info.mrange[m-1] + 1
}

// sortTimes sorts a time set (most hold one time).
func sortTimes(set []time.Time) {
	if len(set) > 1 {
		sort.Sort(timeSlice(set))
	}
}

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

// toPyWeekday numbers weekdays from Monday (0) to Sunday (6).
func toPyWeekday(d time.Weekday) int { return []int{6, 0, 1, 2, 3, 4, 5}[d] }

func isLeap(year int) int {
	if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		return 1
	}
	return 0
}

func daysIn(m time.Month, year int) int { return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day() }

// pymod is Python's modulo: its sign is the divisor's.
func pymod(a, b int) int {
	r := a % b
	if r*b < 0 {
		r += b
	}
	return r
}

// divmod is Python's divmod: the quotient rounds down.
func divmod(a, b int) (int, int) {
	m := pymod(a, b)
	return (a - m) / b, m
}

func contains(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func timeContains(list []time.Time, v time.Time) bool {
	for _, t := range list {
		if t.Equal(v) {
			return true
		}
	}
	return false
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func concat(slices ...[]int) []int {
	var out []int
	for _, s := range slices {
		out = append(out, s...)
	}
	return out
}

func rang(start, end int) []int {
	out := make([]int, 0, end-start)
	for i := start; i < end; i++ {
		out = append(out, i)
	}
	return out
}

func pySubscript(s []int, i int) (int, bool) {
	if i < 0 {
		i += len(s)
	}
	if i < 0 || i >= len(s) {
		return 0, false
	}
	return s[i], true
}

func easter(year int) time.Time {
	g := year % 19
	c := year / 100
	h := (c - c/4 - (8*c+13)/25 + 19*g + 15) % 30
	i := h - (h/28)*(1-(h/28)*(29/(h+1))*((21-g)/11))
	j := (year + year/4 + i + 2 - c + c/4) % 7
	p := i - j
	d := 1 + (p+27+(p+6)/40)%31
	m := 3 + (p+26)/30
	return time.Date(year, time.Month(m), d, 0, 0, 0, 0, time.UTC)
}
