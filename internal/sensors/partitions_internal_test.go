package sensors

import (
	"slices"
	"testing"
	"time"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/pg/pgtest"
)

// The task makes the current and the next two months' partitions, again idempotently, and drops
// the months wholly older than retention as the clock moves on.
func TestPartitionMaintenance(t *testing.T) {
	pool := pgtest.New(t)
	c := clock.NewFake(time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC))
	task := PartitionTask(pool, c, 2)
	parts := func() []string {
		names, err := db.New(pool).ReadingsPartitions(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	run := func() {
		if err := task.Run(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	run()
	run() // a second replica, or the next hour: nothing new
	if got, want := parts(), []string{"sensor_readings_p202603", "sensor_readings_p202604", "sensor_readings_p202605"}; !slices.Equal(got, want) {
		t.Fatalf("partitions %v, want %v", got, want)
	}
	// On July 1 with 2 months' retention the cutoff is May 1: March and April (which ends at the
	// cutoff) go, May stays, and July through September are made.
	c.Set(time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC))
	run()
	// June was never made ahead (the clock jumped past it); a late reading there makes it.
	if got, want := parts(), []string{"sensor_readings_p202605", "sensor_readings_p202607", "sensor_readings_p202608", "sensor_readings_p202609"}; !slices.Equal(got, want) {
		t.Fatalf("partitions %v, want %v", got, want)
	}
	c.Set(time.Date(2026, 7, 31, 23, 59, 0, 0, time.UTC))
	run()
	if got := parts(); got[0] != "sensor_readings_p202605" {
		t.Fatalf("May dropped before it passed retention: %v", got)
	}
}
