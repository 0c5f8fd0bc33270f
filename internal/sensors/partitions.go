package sensors

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/periodic"
)

// monthsAhead is how many months after the current one have their readings partition made in
// advance, so the first reading of a month never waits for one.
const monthsAhead = 2

// PartitionTask keeps the readings partitions: hourly, it makes the current month's and the next
// monthsAhead months' partitions and drops the months wholly older than retentionMonths (0:
// DefaultRetentionMonths). Replicas running it together take turns on an advisory lock.
func PartitionTask(pool *pgxpool.Pool, c clock.Clock, retentionMonths int) periodic.Task {
	if retentionMonths <= 0 {
		retentionMonths = DefaultRetentionMonths
	}
	return periodic.Task{Name: "sensors: readings partitions", Every: time.Hour, Run: func(ctx context.Context) error {
		_, _, err := maintainPartitions(ctx, pool, c.Now(), retentionMonths)
		return err
	}}
}

// maintainPartitions makes the partitions due at now and drops those past retention, and says
// which it made and dropped.
func maintainPartitions(ctx context.Context, pool *pgxpool.Pool, now time.Time, retentionMonths int) (made, dropped []string, err error) {
	q := db.New(pool)
	now = now.UTC()
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i <= monthsAhead; i++ {
		m := month.AddDate(0, i, 0)
		created, err := q.EnsureReadingsPartition(ctx, m)
		if err != nil {
			return made, nil, err
		}
		if created {
			made = append(made, "sensor_readings_p"+m.Format("200601"))
		}
	}
	dropped, err = q.DropReadingsPartitionsBefore(ctx, retentionCutoff(now, retentionMonths))
	return made, dropped, err
}
