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
