package recur

// This file follows, as expand.go does, github.com/teambition/rrule-go v1.8.2 (rrule.go, util.go;
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
