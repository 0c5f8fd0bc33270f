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
	"time"

	"github.com/sous-app/sous/internal/clock"
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
	last   []time.Time
	clock  clock.Clock
	logger *slog.Logger
}

func NewRunner(c clock.Clock, logger *slog.Logger, tasks ...Task) *Runner {
	return &Runner{tasks: tasks, last: make([]time.Time, len(tasks)), clock: c, logger: logger}
}

// Run runs every task at start, then each again once its interval has passed, until ctx ends.
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

// RunDue runs the tasks whose interval has passed since their last run (all of them the first
// time); one failing does not keep the others from running, nor from being retried next tick.
func (r *Runner) RunDue(ctx context.Context) error {
	var errs []error
	for i, task := range r.tasks {
		now := r.clock.Now()
		if !r.last[i].IsZero() && now.Sub(r.last[i]) < task.Every {
			continue
		}
		// A run that waits on a database that stopped answering (a frozen primary) would hold a
		// pooled connection, and this runner, until the operating system gives up on it.
		tctx, cancel := context.WithTimeout(ctx, runTimeout)
		err := task.Run(tctx)
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", task.Name, err))
			continue
		}
		r.last[i] = now
	}
	return errors.Join(errs...)
}
