package tasks

import (
	"testing"
	"time"
)

// BenchmarkCheckRule times CheckRule (two years of expansion) on the costliest rules that
// pass: 96 occurrences a day, and a sub-daily rule that searches every day for its hour.
//
//	go test -run '^$' -bench CheckRule ./internal/tasks/
func BenchmarkCheckRule(b *testing.B) {
	day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	for _, rule := range []string{"FREQ=MINUTELY;INTERVAL=15", "FREQ=MINUTELY;INTERVAL=7;BYHOUR=1;BYMINUTE=1", "FREQ=MINUTELY;BYHOUR=1;BYMINUTE=0,30",
		"FREQ=DAILY;BYHOUR=6,10,14,18;BYMINUTE=0", "FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=30"} {
		b.Run(rule, func(b *testing.B) {
			for range b.N {
				_, _ = CheckRule(rule, day, day, 1)
			}
		})
	}
}

// BenchmarkNext times a read's next five occurrences of one routine started months ago, on
// rules that occur rarely or never (the read's step budget bounds them) and a daily one.
//
//	go test -run '^$' -bench Next ./internal/tasks/
func BenchmarkNext(b *testing.B) {
	start := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	loc := Zone("America/Chicago")
	for _, rule := range []string{"FREQ=MINUTELY;INTERVAL=7;BYHOUR=1;BYMINUTE=1;BYDAY=MO;BYMONTH=2;BYMONTHDAY=29",
		"FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=30", "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29", "FREQ=MINUTELY;INTERVAL=15", "FREQ=DAILY;BYHOUR=6,10,14,18;BYMINUTE=0"} {
		r, err := ParseRule(rule, start)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(rule, func(b *testing.B) {
			for range b.N {
				r.Next(loc, now, 5)
			}
		})
	}
}
