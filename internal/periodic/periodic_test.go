package periodic_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/periodic"
)

func TestTasksRunAtTheirIntervals(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	runs := map[string]int{}
	failing := true
	task := func(name string) func(context.Context) error {
		return func(context.Context) error {
			runs[name]++
			if name == "flaky" && failing {
				return errors.New("database away")
			}
			return nil
		}
	}
	r := periodic.NewRunner(clk, slog.New(slog.NewTextHandler(io.Discard, nil)),
		periodic.Task{Name: "minutely", Every: time.Minute, Run: task("minutely")},
		periodic.Task{Name: "hourly", Every: time.Hour, Run: task("hourly")},
		periodic.Task{Name: "flaky", Every: time.Hour, Run: task("flaky")},
	)
	// The first pass runs everything; a failure is reported and does not stop the others.
	if err := r.RunDue(t.Context()); err == nil {
		t.Fatal("the flaky task's failure was not reported")
	}
	clk.Advance(time.Minute)
	failing = false
	if err := r.RunDue(t.Context()); err != nil {
		t.Fatal(err)
	}
	clk.Advance(30 * time.Second)
	_ = r.RunDue(t.Context()) // nothing due
	clk.Advance(time.Hour)
	_ = r.RunDue(t.Context())
	// minutely: start, +1m, +1h30s; hourly: start, +1h30s; flaky: failed at start so retried at +1m, then +1h30s.
	want := map[string]int{"minutely": 3, "hourly": 2, "flaky": 3}
	for name, n := range want {
		if runs[name] != n {
			t.Errorf("%s ran %d times, want %d", name, runs[name], n)
		}
	}
}
