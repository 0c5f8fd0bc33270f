// Package periodic runs the background work no request triggers: alerts about silence and time,
// retention of old rows, cleanup of abandoned work. Every replica runs every task; a task must
// therefore be idempotent and safe to run beside itself on another replica (the database makes
// the replicas agree: unique indexes, conditional updates, deletes of what is already gone).
package periodic

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/metrics"
)

// tick is how often the runner looks for due tasks: no task is run more often.
const tick = time.Minute

// Task is one piece of background work and how often it runs.
type Task struct {
	Name  string
	Every time.Duration
	Run   func(ctx context.Context) error
}

// runTimeout bounds one run of a task: each does a bounded slice of work, and the next run
// carries on where it stopped.
const runTimeout = time.Minute

// Runner runs tasks at their intervals, measured on its clock.
type Runner struct {
	tasks  []Task
	due    []time.Time // when each task is next due; zero: at the first pass
	jobs   []string    // each task's metric label
	clock  clock.Clock
	logger *slog.Logger
}

func NewRunner(c clock.Clock, logger *slog.Logger, tasks ...Task) *Runner {
	r := &Runner{tasks: tasks, due: make([]time.Time, len(tasks)), jobs: make([]string, len(tasks)), clock: c, logger: logger}
	for i, t := range tasks {
		r.jobs[i] = JobLabel(t.Name)
		metrics.PeriodicJob(r.jobs[i])
	}
	return r
}

// JobLabel is a task's name as a metric label: lower case, words joined by underscores
// ("webhooks: maintenance" is webhooks_maintenance).
func JobLabel(name string) string {
	var b strings.Builder
	sep := false
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			sep = false
		} else {
			sep = true
		}
	}
	return b.String()
}

// Run runs every task at start, then each again whenever it is due, until ctx ends.
func (r *Runner) Run(ctx context.Context) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		if err := r.RunDue(ctx); err != nil && ctx.Err() == nil {
			r.logger.Error("periodic: task failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// RunDue runs, once each, the tasks that are due at this pass's time (all of them the first
// time); one failing does not keep the others from running, and it stays due, so the next pass
// retries it.
//
// A task's next run is due one interval after its previous *due time*, not after the moment the
// pass happened to read the clock: a tick that arrives a little early or late must not push the
// schedule, or a task whose interval equals the tick would be skipped whenever a tick came
// earlier than the one before (about every other minute). A pass at or after the due time runs
// it, whatever the jitter. A runner that fell more than an interval behind (a stalled process,
// a slow task) runs a task once, not once per missed interval.
func (r *Runner) RunDue(ctx context.Context) error {
	now := r.clock.Now()
	var errs []error
	for i, task := range r.tasks {
		if !r.due[i].IsZero() && now.Before(r.due[i]) {
			continue
		}
		// A run that waits on a database that stopped answering (a frozen primary) would hold a
		// pooled connection, and this runner, until the operating system gives up on it.
		tctx, cancel := context.WithTimeout(ctx, runTimeout)
		err := task.Run(tctx)
		cancel()
		if err != nil {
			metrics.PeriodicRuns.WithLabelValues(r.jobs[i], metrics.RunFailure).Inc()
			errs = append(errs, fmt.Errorf("%s: %w", task.Name, err))
			continue
		}
		metrics.PeriodicRuns.WithLabelValues(r.jobs[i], metrics.RunSuccess).Inc()
		metrics.PeriodicLastSuccess.WithLabelValues(r.jobs[i]).Set(float64(time.Now().UnixNano()) / 1e9)
		r.due[i] = nextDue(r.due[i], now, task.Every)
	}
	return errors.Join(errs...)
}

// nextDue is the due time after a run at now of a task that was due at due (zero: first run).
func nextDue(due, now time.Time, every time.Duration) time.Time {
	if due.IsZero() {
		return now.Add(every)
	}
	next := due.Add(every)
	// A whole interval or more behind: the missed runs are not made up (this run covered
	// them); the schedule keeps its phase and resumes at its first due time after now. Less
	// than an interval behind (this tick came late for a due time that a jittery earlier tick
	// just missed) keeps the next due time, so the next tick runs it and no run is lost.
	if behind := now.Sub(next); behind >= every {
		next = next.Add((behind/every + 1) * every)
	}
	return next
}
