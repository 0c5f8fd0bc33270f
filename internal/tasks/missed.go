package tasks

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

// missedBatch bounds the tasks one transaction of the sweep moves; it repeats until done.
const missedBatch = 500

// MissedTask moves, every minute, each open task past its due time and grace to missed, and
// opens task_missed for the required ones. The move is a conditional update of rows it locks,
// so a task is moved, and its alert opened, once whatever the number of replicas sweeping.
func MissedTask(pool *pgxpool.Pool, c clock.Clock) periodic.Task {
	return periodic.Task{Name: "tasks: missed tasks", Every: time.Minute, Run: func(ctx context.Context) error {
		return SweepMissed(ctx, pool, c.Now())
	}}
}

// SweepMissed runs one sweep at now and reports nothing but failure.
func SweepMissed(ctx context.Context, pool *pgxpool.Pool, now time.Time) error {
	for {
		var n int
		err := pg.InTx(ctx, pool, func(tx pgx.Tx) error {
			rows, err := db.New(tx).MarkMissedTasks(ctx, db.MarkMissedTasksParams{Now: now, MaxRows: missedBatch})
			if err != nil {
				return err
			}
			n = len(rows)
			zones := map[uuid.UUID]string{}
			for _, r := range rows {
				if !r.Required {
					continue
				}
				zone, ok := zones[r.SiteID]
				if !ok {
					if zone, err = db.New(tx).SiteZone(ctx, db.SiteZoneParams{OrgID: r.OrgID, ID: r.SiteID}); err != nil {
						return err
					}
					zones[r.SiteID] = zone
				}
				if _, err := alerts.Open(ctx, tx, now, alerts.Alert{
					OrgID: r.OrgID, SiteID: r.SiteID, Kind: alerts.KindTaskMissed, Severity: Severity(r.Priority),
					Message:     fmt.Sprintf("Missed: %s (due %s)", r.Title, r.DueAt.In(Zone(zone)).Format("15:04")),
					SubjectType: "task", SubjectID: r.ID, Occurrence: r.DueAt,
				}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if n < missedBatch {
			return nil
		}
	}
}

// AlertHook makes the follow-up task of a sensor alert: when sensor_offline, sensor_fault,
// temperature_excursion or door_open opens at a site, a task (source sensor_alert, priority high, kind
// maintenance, sourceId the alert) is made once, due an hour later. Completing the task
// resolves nothing else; the alert closes by its own rules. It holds no state.
type AlertHook struct{}

// SensorAlertDue is how long after the alert its task is due.
const SensorAlertDue = time.Hour

var _ alerts.OpenHook = AlertHook{}

func (AlertHook) AlertOpened(ctx context.Context, tx pgx.Tx, now time.Time, a alerts.Opened) error {
	switch a.Kind {
	case alerts.KindSensorOffline, alerts.KindSensorFault, alerts.KindTemperatureExcursion, alerts.KindDoorOpen:
	default:
		return nil
	}
	due := now.Add(SensorAlertDue)
	desc := a.Message
	_, err := db.New(tx).InsertSensorAlertTask(ctx, db.InsertSensorAlertTaskParams{
		ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, SiteID: a.SiteID, Title: "Check: " + a.Message, Description: &desc,
		DueAt: due, MissedAfter: due.Add(DefaultGrace), AlertID: &a.ID, Now: now,
	})
	return err
}
