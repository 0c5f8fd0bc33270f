package realtime_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/internal/realtime"
)

func TestHintCrossesReplicas(t *testing.T) {
	poolA, poolB := replicas(t)
	startHub(t, poolA)
	hubB, _ := startHub(t, poolB)

	device := uuid.New()
	hints, cancel := hubB.Subscribe(device, uuid.New())
	defer cancel()
	// Several subscribers per device: a board that reconnected while its old
	// socket has not timed out yet.
	again, cancelAgain := hubB.Subscribe(device, uuid.New())
	defer cancelAgain()

	notify(t, poolA, device)
	waitHint(t, hints, "subscriber on the other replica")
	waitHint(t, again, "second subscriber of the device")
}

func TestRolledBackChangeSendsNothing(t *testing.T) {
	pool, _ := replicas(t)
	hub, _ := startHub(t, pool)

	device, marker := uuid.New(), uuid.New()
	hints, cancel := hub.Subscribe(device, uuid.New())
	defer cancel()
	markerHints, cancelMarker := hub.Subscribe(marker, uuid.New())
	defer cancelMarker()

	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := realtime.Notify(ctx, tx, device); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	// PostgreSQL delivers notifications in commit order and the hub handles
	// them in turn, so once the later marker is in, the rolled-back one would
	// have been too.
	notify(t, pool, marker)
	waitHint(t, markerHints, "marker")
	noHint(t, hints, "device of the rolled-back change")
}

func TestOrgHintReachesOnlyThatOrg(t *testing.T) {
	poolA, poolB := replicas(t)
	hubA, _ := startHub(t, poolA)
	hubB, _ := startHub(t, poolB)

	org, other := uuid.New(), uuid.New()
	var inOrg []<-chan struct{}
	for _, hub := range []*realtime.Hub{hubA, hubB, hubB} {
		ch, cancel := hub.Subscribe(uuid.New(), org)
		defer cancel()
		inOrg = append(inOrg, ch)
	}
	outside, cancelOutside := hubB.Subscribe(uuid.New(), other)
	defer cancelOutside()
	markerDevice := uuid.New()
	marker, cancelMarker := hubB.Subscribe(markerDevice, other)
	defer cancelMarker()

	commit(t, poolA, func(ctx context.Context, tx pgx.Tx) error {
		return realtime.NotifyOrg(ctx, tx, org)
	})
	for _, ch := range inOrg {
		waitHint(t, ch, "device of the organization")
	}
	notify(t, poolA, markerDevice)
	waitHint(t, marker, "marker")
	noHint(t, outside, "device of another organization")
}

func TestHubSurvivesLosingItsConnection(t *testing.T) {
	poolA, poolB := replicas(t)
	hub, _ := startHub(t, poolB)

	device := uuid.New()
	hints, cancel := hub.Subscribe(device, uuid.New())
	defer cancel()

	pid := hub.ListenerPID()
	var killed bool
	err := poolA.QueryRow(context.Background(), `SELECT pg_terminate_backend($1)`, int32(pid)).Scan(&killed)
	if err != nil || !killed {
		t.Fatalf("terminate listener %d: %v, %v", pid, killed, err)
	}

	// Nothing was notified, so this hint is the catch-up after reconnecting.
	waitHint(t, hints, "catch-up after reconnecting")
	if now := hub.ListenerPID(); now == 0 || now == pid {
		t.Fatalf("listener backend = %d after reconnecting, was %d", now, pid)
	}
	notify(t, poolA, device)
	waitHint(t, hints, "hint after reconnecting")
}
