package alerts

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/pg"
)

const (
	// SensorSilence is how long a paired sensor gateway may go without an authenticated request
	// before it is reported offline. Devices record contact at most once a minute, so anything
	// much shorter would report gateways that merely poll slowly.
	SensorSilence = 10 * time.Minute
	// sweepEvery is how often Run checks; an outage is reported within SensorSilence + sweepEvery.
	sweepEvery = time.Minute
	// sweepBatch bounds the rows one statement of a sweep handles; a sweep repeats until done.
	sweepBatch = 500
)

// Sweeper opens and closes the alerts that no request triggers: those about silence. Every
// replica runs one; the unique open-alert index makes concurrent sweeps open each alert once.
type Sweeper struct {
	pool   *pgxpool.Pool
	clock  clock.Clock
	logger *slog.Logger
}

func NewSweeper(pool *pgxpool.Pool, c clock.Clock, logger *slog.Logger) *Sweeper {
	return &Sweeper{pool: pool, clock: c, logger: logger}
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

// Sweep closes the sensor_offline alerts of gateways heard from again (or unpaired, moved or
// deleted), then opens one for each paired gateway silent for SensorSilence.
func (s *Sweeper) Sweep(ctx context.Context) error {
	now := s.clock.Now()
	silentSince := now.Add(-SensorSilence)
	for {
		n, err := s.closeRecovered(ctx, now, silentSince)
		if err != nil {
			return err
		}
		if n < sweepBatch {
			break
		}
	}
	for {
		n, err := s.openSilent(ctx, now, silentSince)
		if err != nil {
			return err
		}
		if n < sweepBatch {
			return nil
		}
	}
}

func (s *Sweeper) closeRecovered(ctx context.Context, now, silentSince time.Time) (int, error) {
	var n int
	err := pg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := db.New(tx).RecoveredSensorAlerts(ctx, db.RecoveredSensorAlertsParams{SilentSince: silentSince, MaxRows: sweepBatch})
		if err != nil {
			return err
		}
		n = len(rows)
		byOrg := map[uuid.UUID][]uuid.UUID{}
		for _, r := range rows {
			byOrg[r.OrgID] = append(byOrg[r.OrgID], r.SubjectID)
		}
		for org, devices := range byOrg {
			if err := Close(ctx, tx, now, org, KindSensorOffline, devices...); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

func (s *Sweeper) openSilent(ctx context.Context, now, silentSince time.Time) (int, error) {
	var n int
	err := pg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := db.New(tx).SilentSensorGateways(ctx, db.SilentSensorGatewaysParams{SilentSince: silentSince, MaxRows: sweepBatch})
		if err != nil {
			return err
		}
		n = len(rows)
		for _, r := range rows {
			if _, err := Open(ctx, tx, now, Alert{
				OrgID: r.OrgID, SiteID: r.SiteID, Kind: KindSensorOffline, Severity: Warning,
				Message:     silenceMessage(r),
				SubjectType: "device", SubjectID: r.ID, Occurrence: r.SilentSince,
			}); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

// silenceMessage says, in the site's local time, since when the gateway has been silent.
func silenceMessage(r db.SilentSensorGatewaysRow) string {
	if r.LastSeenAt == nil {
		return fmt.Sprintf("Sensor gateway %q has not been heard from since it was paired", r.Name)
	}
	at := *r.LastSeenAt
	if loc, err := time.LoadLocation(r.Timezone); err == nil {
		at = at.In(loc)
	}
	return fmt.Sprintf("Sensor gateway %q has not been heard from since %s", r.Name, at.Format("Jan 2 15:04"))
}
