package alerts

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/periodic"
	"github.com/sous-app/sous/internal/pg"
)

const (
	// SensorSilence is how long a paired sensor gateway may go without an authenticated request
	// before it is reported offline. Devices record contact at most once a minute, so anything
	// much shorter would report gateways that merely poll slowly.
	SensorSilence = 10 * time.Minute
	// sweepBatch bounds the rows one statement handles; the task repeats until done.
	sweepBatch = 500
)

// SensorTask opens sensor_offline for every paired sensor gateway silent for SensorSilence and
// closes it once the gateway is heard from again (or unpaired, moved or deleted). It runs every
// minute, so an outage is reported within a minute of the limit.
func SensorTask(pool *pgxpool.Pool, c clock.Clock) periodic.Task {
	s := sensors{pool: pool}
	return periodic.Task{Name: "alerts: silent sensor gateways", Every: time.Minute, Run: func(ctx context.Context) error {
		now := c.Now()
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
	}}
}

type sensors struct{ pool *pgxpool.Pool }

func (s sensors) closeRecovered(ctx context.Context, now, silentSince time.Time) (int, error) {
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

func (s sensors) openSilent(ctx context.Context, now, silentSince time.Time) (int, error) {
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
