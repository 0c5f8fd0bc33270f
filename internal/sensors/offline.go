package sensors

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/periodic"
	"github.com/sous-app/sous/internal/pg"
)

const (
	// SilentIntervals is how many of its gateway's report intervals a sensor may go without a
	// reading before it is reported offline.
	SilentIntervals = 3
	// offlineBatch bounds the rows one statement handles; the task repeats until done.
	offlineBatch = 500
)

// OfflineTask opens sensor_offline about each active sensor with no reading for SilentIntervals
// of its gateway's reportIntervalSeconds while the gateway itself is heard from (a probe that
// died, was unplugged or fell out of radio range), and closes it once the sensor reports again
// (the readings call closes it at once; this sweep also closes it when the sensor is deactivated
// or moved, or its gateway unpaired). A gateway silent itself has its own sensor_offline alert
// (alerts.SensorTask): its probes are not reported one by one. Every minute, on every replica:
// the open alerts' unique index and the NOT EXISTS on the same silence make each open once.
func OfflineTask(pool *pgxpool.Pool, c clock.Clock) periodic.Task {
	return periodic.Task{Name: "sensors: silent sensors", Every: time.Minute, Run: func(ctx context.Context) error {
		return sweepOffline(ctx, pool, c.Now())
	}}
}

func sweepOffline(ctx context.Context, pool *pgxpool.Pool, now time.Time) error {
	for {
		n, err := closeReporting(ctx, pool, now)
		if err != nil {
			return err
		}
		if n < offlineBatch {
			break
		}
	}
	for {
		n, err := openSilent(ctx, pool, now)
		if err != nil {
			return err
		}
		if n < offlineBatch {
			return nil
		}
	}
}

func closeReporting(ctx context.Context, pool *pgxpool.Pool, now time.Time) (int, error) {
	var n int
	err := pg.InTx(ctx, pool, func(tx pgx.Tx) error {
		rows, err := db.New(tx).RecoveredSilentSensors(ctx, offlineBatch)
		if err != nil {
			return err
		}
		n = len(rows)
		byOrg := map[uuid.UUID][]uuid.UUID{}
		for _, r := range rows {
			byOrg[r.OrgID] = append(byOrg[r.OrgID], r.SubjectID)
		}
		for org, ids := range byOrg {
			if err := alerts.Close(ctx, tx, now, org, alerts.KindSensorOffline, ids...); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

func openSilent(ctx context.Context, pool *pgxpool.Pool, now time.Time) (int, error) {
	var n int
	err := pg.InTx(ctx, pool, func(tx pgx.Tx) error {
		rows, err := db.New(tx).SilentSensors(ctx, db.SilentSensorsParams{Now: now, MaxRows: offlineBatch})
		if err != nil {
			return err
		}
		n = len(rows)
		for _, r := range rows {
			if _, err := alerts.Open(ctx, tx, now, alerts.Alert{
				OrgID: r.OrgID, SiteID: r.SiteID, Kind: alerts.KindSensorOffline, Severity: alerts.Warning,
				Message: silentMessage(r), SubjectType: "sensor", SubjectID: r.ID, Occurrence: r.SilentSince,
			}); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

// silentMessage names the sensor and where it is, and since when (site time) it has been silent.
func silentMessage(r db.SilentSensorsRow) string {
	name := r.Name
	switch {
	case r.EquipmentName != nil:
		name = fmt.Sprintf("%s (%s)", r.Name, *r.EquipmentName)
	case r.LocationName != nil:
		name = fmt.Sprintf("%s (%s)", r.Name, *r.LocationName)
	}
	if r.LastAt == nil {
		return fmt.Sprintf("Sensor %s has sent no reading since it was registered; its gateway reports every %d s", name, r.IntervalSeconds)
	}
	at := *r.LastAt
	if loc, err := time.LoadLocation(r.Timezone); err == nil {
		at = at.In(loc)
	}
	return fmt.Sprintf("Sensor %s has sent no reading since %s; its gateway reports every %d s", name, at.Format("Jan 2 15:04"), r.IntervalSeconds)
}
