package web

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
)

// Money and dates are written for the site's locale. Sites carry a time zone but no locale yet,
// so every page writes US English: $1,234.50, "Saturday, June 13, 2026", "6:00 PM CDT".

// money writes cents as dollars: 123450 is $1,234.50, -2000 is -$20.00.
func money(cents int64) string {
	sign := ""
	if cents < 0 {
		sign = "-"
	}
	abs := uint64(cents)
	if cents < 0 {
		abs = uint64(-(cents + 1)) + 1 // no overflow on the smallest int64
	}
	whole := fmt.Sprint(abs / 100)
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	return fmt.Sprintf("%s$%s.%02d", sign, whole, abs%100)
}

// zones caches loaded time zones: time.LoadLocation reads and parses the zone's file on every
// call. Only names that load are kept, so the cache is bounded by the IANA database (~600).
var zones sync.Map

// zone loads an IANA zone; an unknown one (never stored, but the page must not fail) is UTC.
func zone(name string) *time.Location {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	zones.Store(name, loc)
	return loc
}

func longDate(t time.Time) string { return t.Format("Monday, January 2, 2006") }

func clockTime(t time.Time) string { return t.Format("3:04 PM MST") }

// percentBps writes basis points as a percent: 1025 is 10.25%, 2000 is 20%.
func percentBps(bps int) string {
	s := fmt.Sprintf("%.2f", float64(bps)/100)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s + "%"
}

func pow(x, y float64) float64 { return math.Pow(x, y) }
