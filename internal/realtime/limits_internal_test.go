package realtime

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/metrics"
)

// The derived ceiling always leaves descriptors to everything that is not a socket: a quarter
// of the limit, at least 256, and it never grows past what memory affords.
func TestCeilingForLeavesHeadroom(t *testing.T) {
	cases := []struct {
		soft uint64
		want int
	}{
		{1024, 768},
		{4096, 3072},
		{512, 256},
		{300, 44},
		{200, 1},
		{65536, MaxDerivedCeiling},
		{1 << 20, MaxDerivedCeiling},
	}
	for _, c := range cases {
		if got := ceilingFor(c.soft); got != c.want {
			t.Errorf("ceilingFor(%d) = %d, want %d", c.soft, got, c.want)
		}
	}
	if got, limit := DerivedCeiling(), FileLimit(); limit > 0 && uint64(got)+fdHeadroom > limit {
		t.Fatalf("derived ceiling %d leaves fewer than %d of %d descriptors", got, fdHeadroom, limit)
	}
}

// Upgrades racing for the last slots get exactly as many as there are.
func TestSlotsHoldTheCeilingUnderConcurrency(t *testing.T) {
	var s slots
	s.ceiling.Store(7)
	var won atomic.Int64
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			if s.take() {
				won.Add(1)
			}
		})
	}
	wg.Wait()
	if won.Load() != 7 {
		t.Fatalf("%d slots taken, want 7", won.Load())
	}
	s.give()
	if !s.take() || s.take() {
		t.Fatal("a slot given back is taken once")
	}
}

// A replacement travels as its own token kind and survives the round trip.
func TestReplaceTokens(t *testing.T) {
	ids := []uuid.UUID{uuid.New(), uuid.New()}
	var rec recorder
	if err := ReplaceSockets(context.Background(), &rec, ids...); err != nil {
		t.Fatal(err)
	}
	hints, bad := parsePayload(rec.payloads[0])
	if len(bad) > 0 || len(hints) != 2 {
		t.Fatalf("hints %v, unreadable %q", hints, bad)
	}
	for i, h := range hints {
		if h.kind != hintReplace || h.id != ids[i] {
			t.Fatalf("hint %d = %+v, want replace of %s", i, h, ids[i])
		}
	}
}

// Every refusal reason has its series from the start, and no other reason is counted.
func TestRefusalReasonsMatchTheMetric(t *testing.T) {
	if !slices.Equal(Reasons, metrics.SocketRefusalReasons) {
		t.Fatalf("reasons %v, metric's %v", Reasons, metrics.SocketRefusalReasons)
	}
}
