package recur

// This file follows, as expand.go does, github.com/teambition/rrule-go v1.8.2 (rrule.go, util.go;
// MIT licence, LICENSE.rrule-go), itself a port of python-dateutil's rrule. The changes: the
// budget, deadline and last period (see Limits), the bounded time search (ErrNever), and
// indexes that BY* values near their bounds could push outside the year's masks are skipped
// instead of panicking.

import (
	"time"
)

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
