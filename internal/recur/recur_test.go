package recur

import (
	"errors"
	"testing"
	"time"

	"github.com/teambition/rrule-go"
)

func parse(t *testing.T, s string, start time.Time) (rrule.ROption, *Rule) {
	t.Helper()
	opt, err := rrule.StrToROption(s)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	opt.Dtstart = start
	r, err := New(*opt)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return *opt, r
}

// The expansion matches the library it was adapted from, on rules the library expands in
// reasonable time.
func TestExpansionMatchesTheLibrary(t *testing.T) {
	t.Parallel()
	rules := []string{
		"FREQ=DAILY;BYHOUR=6,10,14,18;BYMINUTE=0", "FREQ=DAILY;INTERVAL=3", "FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=6;BYMINUTE=30",
		"FREQ=WEEKLY;INTERVAL=2;WKST=SU;BYDAY=TU,SU", "FREQ=MONTHLY;BYDAY=-1FR", "FREQ=MONTHLY;BYDAY=2MO,4MO;BYHOUR=9",
		"FREQ=MONTHLY;BYMONTHDAY=31", "FREQ=MONTHLY;BYMONTHDAY=-1,15;COUNT=30", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1",
		"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29", "FREQ=YEARLY;BYWEEKNO=1,20,-1;BYDAY=MO", "FREQ=YEARLY;BYYEARDAY=1,100,-1",
		"FREQ=YEARLY;BYDAY=20MO", "FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "FREQ=HOURLY;INTERVAL=3", "FREQ=HOURLY;INTERVAL=5;BYHOUR=5,10,15",
		"FREQ=HOURLY;BYMINUTE=0,30;BYDAY=SA", "FREQ=MINUTELY;INTERVAL=15;BYHOUR=6,7", "FREQ=MINUTELY;INTERVAL=7;BYHOUR=1;BYMINUTE=1",
		"FREQ=MINUTELY;INTERVAL=90", "FREQ=MINUTELY;INTERVAL=45;BYMONTH=11", "FREQ=DAILY;UNTIL=20270101T000000Z;BYHOUR=8",
		"FREQ=DAILY;BYMONTH=1,7;BYMONTHDAY=13;BYDAY=FR", "FREQ=HOURLY;INTERVAL=24;BYHOUR=0", "FREQ=SECONDLY;INTERVAL=3600",
	}
	starts := []time.Time{time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), time.Date(2027, 12, 31, 0, 0, 0, 0, time.UTC), time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC)}
	for _, s := range rules {
		for _, start := range starts {
			opt, r := parse(t, s, start)
			lib, err := rrule.NewRRule(opt)
			if err != nil {
				t.Fatal(err)
			}
			want, got := lib.Iterator(), r.Iter(Limits{})
			for i := range 300 {
				w, wok := want()
				g, gok := got.Next()
				if wok != gok || !w.Equal(g) {
					t.Fatalf("%s from %s: occurrence %d is %v %v, want %v %v", s, start.Format(time.DateOnly), i, g, gok, w, wok)
				}
				if !wok {
					break
				}
			}
		}
	}
}

// The rules the library expands without end (or for seconds) stop at once here.
func TestExpansionIsBounded(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		rule   string
		limits Limits
		want   error
	}{
		{"FREQ=HOURLY;INTERVAL=2;BYHOUR=1", Limits{}, ErrNever},
		{"FREQ=MINUTELY;INTERVAL=2;BYMINUTE=1", Limits{}, ErrNever},
		{"FREQ=HOURLY;INTERVAL=24;BYHOUR=1;COUNT=3", Limits{}, ErrNever},
		{"FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=30", Limits{Steps: 10_000}, ErrBudget},
		{"FREQ=MINUTELY;INTERVAL=7;BYHOUR=1;BYMINUTE=1;BYDAY=MO;BYMONTH=2;BYMONTHDAY=29", Limits{Steps: 100_000}, ErrBudget},
		{"FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30", Limits{Deadline: time.Now().Add(-time.Second)}, ErrBudget},
		{"FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30", Limits{Last: start.AddDate(2, 0, 0)}, nil},
	}
	for _, c := range cases {
		_, r := parse(t, c.rule, start)
		began := time.Now()
		it := r.Iter(c.limits)
		if v, ok := it.Next(); ok {
			t.Errorf("%s: occurs at %v", c.rule, v)
		}
		if !errors.Is(it.Err(), c.want) {
			t.Errorf("%s: %v, want %v", c.rule, it.Err(), c.want)
		}
		if d := time.Since(began); d > 100*time.Millisecond {
			t.Errorf("%s: took %v", c.rule, d)
		}
	}
}

// Starting near a later instant gives the same occurrences from it as walking from DTSTART.
func TestIterFromMatchesAWalkFromTheStart(t *testing.T) {
	t.Parallel()
	rules := []string{
		"FREQ=DAILY;INTERVAL=3;BYHOUR=6", "FREQ=WEEKLY;INTERVAL=2;WKST=SU;BYDAY=TU,SU", "FREQ=WEEKLY;INTERVAL=3", "FREQ=MONTHLY;INTERVAL=5;BYDAY=-1FR",
		"FREQ=MONTHLY;BYMONTHDAY=31", "FREQ=YEARLY;INTERVAL=3;BYMONTH=2;BYMONTHDAY=29", "FREQ=YEARLY;BYWEEKNO=1;BYDAY=MO",
		"FREQ=HOURLY;INTERVAL=5;BYHOUR=5,10,15", "FREQ=MINUTELY;INTERVAL=7;BYHOUR=1;BYMINUTE=1", "FREQ=MINUTELY;INTERVAL=45;BYMONTH=11",
		"FREQ=HOURLY;INTERVAL=7", "FREQ=DAILY;COUNT=900", "FREQ=MONTHLY;INTERVAL=7",
	}
	start := time.Date(2025, 1, 31, 0, 0, 0, 0, time.UTC)
	for _, s := range rules {
		_, r := parse(t, s, start)
		for _, from := range []time.Time{start, start.Add(37 * time.Hour), time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC), time.Date(2031, 7, 1, 0, 0, 0, 0, time.UTC)} {
			walk, near := r.Iter(Limits{}), r.IterFrom(from, Limits{})
			next := func(it *Iter) (time.Time, bool) {
				for {
					v, ok := it.Next()
					if !ok || !v.Before(from) {
						return v, ok
					}
				}
			}
			for i := range 100 {
				w, wok := next(walk)
				g, gok := next(near)
				if wok != gok || !w.Equal(g) {
					t.Fatalf("%s from %s: occurrence %d is %v, want %v", s, from, i, g, w)
				}
				if !wok {
					break
				}
			}
		}
	}
}
