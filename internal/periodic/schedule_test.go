package periodic_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/periodic"
)

// The runner's ticks jitter (a loaded machine, a slow task before this one in the pass). A task
// must still run once per interval: at least 99 of 100 periods get their run, and no period gets
// two. Periods are the windows of one interval centred on the task's due times.
func TestJitteredTicksRunEveryPeriodOnce(t *testing.T) {
	start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	const periods = 100
	jitters := map[string]func(k int) float64{
		// Alternating early and late by the whole ±20%: the old rule (skip while now − last <
		// Every) ran about half of these.
		"alternating ±20%": func(k int) float64 {
			if k%2 == 0 {
				return 0.2
			}
			return -0.2
		},
		"first tick late, then early": func(k int) float64 {
			if k == 0 {
				return 0.2
			}
			return -0.2
		},
	}
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 42))
		jitters[fmt.Sprintf("uniform ±20%% seed %d", seed)] = func(int) float64 { return rng.Float64()*0.4 - 0.2 }
	}
	for _, c := range []struct {
		every, tick time.Duration
	}{
		{time.Minute, time.Minute},     // the sensor check: interval equal to the tick
		{5 * time.Minute, time.Minute}, // nutrition risk
		{time.Hour, time.Minute},       // retention
	} {
		for name, jitter := range jitters {
			t.Run(fmt.Sprintf("every %s tick %s %s", c.every, c.tick, name), func(t *testing.T) {
				clk := clock.NewFake(start)
				var runs []time.Time
				r := periodic.NewRunner(clk, slog.New(slog.NewTextHandler(io.Discard, nil)), periodic.Task{
					Name: "task", Every: c.every,
					Run: func(context.Context) error { runs = append(runs, clk.Now()); return nil },
				})
				// The tick jitters around the period, never further than ±20% of it.
				for k := range int(periods * c.every / c.tick) {
					clk.Set(start.Add(time.Duration(k)*c.tick + time.Duration(jitter(k)*float64(c.tick))))
					if err := r.RunDue(t.Context()); err != nil {
						t.Fatal(err)
					}
				}
				if len(runs) == 0 {
					t.Fatal("the task never ran")
				}
				perPeriod := map[int]int{}
				first := runs[0]
				for _, at := range runs {
					// Period n is [first + n·every − every/2, first + n·every + every/2).
					n := int((at.Sub(first) + c.every/2) / c.every)
					perPeriod[n]++
					if perPeriod[n] > 1 {
						t.Errorf("two runs in period %d (the second at %s)", n, at.Format(time.TimeOnly))
					}
				}
				if len(runs) < periods-1 {
					t.Errorf("ran %d times in %d periods, want at least %d", len(runs), periods, periods-1)
				}
			})
		}
	}
}

// A runner that stalled for many intervals runs the task once, not once per missed interval, and
// then keeps its schedule.
func TestStalledRunnerDoesNotCatchUpEveryMissedRun(t *testing.T) {
	start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	clk := clock.NewFake(start)
	runs := 0
	r := periodic.NewRunner(clk, slog.New(slog.NewTextHandler(io.Discard, nil)), periodic.Task{
		Name: "task", Every: time.Minute, Run: func(context.Context) error { runs++; return nil },
	})
	_ = r.RunDue(t.Context()) // 09:00
	clk.Set(start.Add(time.Hour + 10*time.Second))
	_ = r.RunDue(t.Context()) // 10:00:10, an hour late: one run
	clk.Set(start.Add(time.Hour + 30*time.Second))
	_ = r.RunDue(t.Context()) // 10:00:30: not due again until 10:01
	if runs != 2 {
		t.Fatalf("ran %d times, want 2 (no catching up)", runs)
	}
	clk.Set(start.Add(time.Hour + time.Minute))
	_ = r.RunDue(t.Context()) // 10:01: due again, on the original phase
	if runs != 3 {
		t.Fatalf("ran %d times, want 3", runs)
	}
}
