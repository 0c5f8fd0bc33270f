package alerts

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/internal/clock"
)

// sweepEvery is how often Run checks: a condition is reported within a minute of its threshold.
const sweepEvery = time.Minute

// A Check finds conditions that no request reveals (silence, time passing) and opens or closes
// their alerts. Every replica runs every check each minute, so a check must be idempotent: Open's
// unique open-alert index and each detector's occurrence rule make repeated and concurrent runs
// report a condition once.
type Check func(ctx context.Context, now time.Time) error

// Sweeper runs the checks: the sensors' own, and those other capabilities register.
type Sweeper struct {
	checks []Check
	clock  clock.Clock
	logger *slog.Logger
}

// NewSweeper runs SensorCheck and the given checks (the clinical nutrition-risk check, …).
func NewSweeper(pool *pgxpool.Pool, c clock.Clock, logger *slog.Logger, checks ...Check) *Sweeper {
	return &Sweeper{checks: append([]Check{SensorCheck(pool)}, checks...), clock: c, logger: logger}
}

// Run sweeps every minute until ctx ends.
func (s *Sweeper) Run(ctx context.Context) {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		if err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
			s.logger.Error("alerts: sweep failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Sweep runs every check once; one failing does not keep the others from running.
func (s *Sweeper) Sweep(ctx context.Context) error {
	now := s.clock.Now()
	var errs []error
	for _, check := range s.checks {
		errs = append(errs, check(ctx, now))
	}
	return errors.Join(errs...)
}
