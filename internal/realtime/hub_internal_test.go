package realtime

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/pg/pgtest"
)

func TestSubscriptionLifecycle(t *testing.T) {
	h := NewHub(nil, nil)
	device, org := uuid.New(), uuid.New()
	a, cancelA := h.Subscribe(device, org)
	b, cancelB := h.Subscribe(device, org)
	loner, cancelLoner := h.Subscribe(uuid.New(), uuid.Nil)

	// Hints pile up into one pending value instead of blocking the hub.
	for range 3 {
		h.dispatch(device.String())
	}
	h.dispatch("org:" + org.String())
	for _, ch := range []<-chan struct{}{a, b} {
		if _, ok := <-ch; !ok {
			t.Fatal("closed")
		}
		select {
		case <-ch:
			t.Fatal("hints were not merged")
		default:
		}
	}
	select {
	case <-loner:
		t.Fatal("hint for another device")
	default:
	}

	cancelB()
	h.dispatch("revoke:" + device.String())
	if _, ok := <-a; ok {
		t.Fatal("revoked subscription not closed")
	}
	select {
	case <-b:
		t.Fatal("cancelled subscription hinted or closed")
	default:
	}
	cancelA() // after revocation: must not panic
	cancelB()
	cancelLoner()
	if len(h.devices) != 0 || len(h.orgs) != 0 {
		t.Fatalf("leaked sets: %d devices, %d orgs", len(h.devices), len(h.orgs))
	}
}

// With a tiny idle period the hub times out and pings all the time, so
// notifications keep landing mid-wait and mid-ping; none may be lost.
func TestIdleChecksLoseNothing(t *testing.T) {
	saved := idleCheck
	idleCheck = 50 * time.Microsecond
	t.Cleanup(func() { idleCheck = saved })

	pool := pgtest.New(t)
	h := NewHub(pool, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	select {
	case <-h.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("not listening")
	}
	pid := h.pid.Load()

	for i := range 50 {
		device := uuid.New()
		hints, unsubscribe := h.Subscribe(device, uuid.Nil)
		err := pg.InTx(ctx, pool, func(tx pgx.Tx) error { return Notify(ctx, tx, device) })
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-hints:
		case <-time.After(10 * time.Second):
			t.Fatalf("notification %d lost", i)
		}
		unsubscribe()
	}
	if now := h.pid.Load(); now != pid {
		t.Fatalf("listener reconnected (%d → %d); idle checks broke the connection", pid, now)
	}
}
