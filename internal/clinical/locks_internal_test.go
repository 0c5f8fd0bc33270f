package clinical

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/hl7"
)

// waitingOf is how many requests of the organization are queued, not granted.
func (l *censusLocks) waitingOf(org uuid.UUID) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if o := l.orgs[org]; o != nil {
		return o.waiting
	}
	return 0
}

func waitForWaiting(l *censusLocks, org uuid.UUID, n int) {
	for l.waitingOf(org) != n {
		runtime.Gosched()
	}
}

// TestCensusLocksBoundTheQueue: one holder, maxWaiting waiters on its key, and the next caller
// that would wait is refused at once with a rate limit; a body of other keys, and another
// organization, are granted at once; everyone gets through in the end.
func TestCensusLocksBoundTheQueue(t *testing.T) {
	l := newCensusLocks()
	org := uuid.New()
	unlock, err := l.lock(context.Background(), org, []int64{1}, false)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range maxWaiting {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u, err := l.lock(context.Background(), org, []int64{1, 2}, false)
			if err != nil {
				t.Error(err)
				return
			}
			u()
		}()
	}
	waitForWaiting(&l, org, maxWaiting)
	if _, err := l.lock(context.Background(), org, []int64{1}, false); err == nil {
		t.Fatal("queue not bounded")
	} else if e, ok := apierr.As(err); !ok || e.Kind != apierr.KindRateLimited {
		t.Fatalf("error %v", err)
	}
	disjoint, err := l.lock(context.Background(), org, []int64{3}, false)
	if err != nil {
		t.Fatalf("a body of other patients waits: %v", err)
	}
	disjoint()
	other, err := l.lock(context.Background(), uuid.New(), []int64{1}, false)
	if err != nil {
		t.Fatal(err)
	}
	other()
	unlock()
	wg.Wait()
	if len(l.orgs) != 0 {
		t.Fatalf("%d organizations left", len(l.orgs))
	}
}

// TestCensusLocksOrder: requests sharing a key are granted in arrival order, even when a later
// one could have taken the shared key while the earlier waited on another; a request with no
// key in common runs beside them; an exclusive request waits for every earlier one and holds
// back every later one; a cancelled waiter leaves the queue and unblocks who it held back.
func TestCensusLocksOrder(t *testing.T) {
	l := newCensusLocks()
	org := uuid.New()
	ctx := context.Background()
	var (
		mu    sync.Mutex
		order []string
	)
	record := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }

	a, _ := l.lock(ctx, org, []int64{1}, false) // holds 1
	bDone := make(chan func())
	go func() { // b wants 1 and 2: waits for a
		u, err := l.lock(ctx, org, []int64{1, 2}, false)
		if err != nil {
			t.Error(err)
		}
		record("b")
		bDone <- u
	}()
	waitForWaiting(&l, org, 1)
	cDone := make(chan func())
	go func() { // c wants 2 only: free, but b arrived first and wants it
		u, err := l.lock(ctx, org, []int64{2}, false)
		if err != nil {
			t.Error(err)
		}
		record("c")
		cDone <- u
	}()
	waitForWaiting(&l, org, 2)
	d, err := l.lock(ctx, org, []int64{3}, false) // nothing in common: at once
	if err != nil {
		t.Fatal(err)
	}
	wholeDone := make(chan func())
	go func() { // exclusive: after a, b, c and d
		u, err := l.lock(ctx, org, nil, true)
		if err != nil {
			t.Error(err)
		}
		record("whole")
		wholeDone <- u
	}()
	waitForWaiting(&l, org, 3)
	cancelled, cancel := context.WithCancel(ctx)
	eErr := make(chan error)
	go func() { // e wants 4, free, but after the exclusive one: waits; then gives up
		_, err := l.lock(cancelled, org, []int64{4}, false)
		eErr <- err
	}()
	waitForWaiting(&l, org, 4)
	cancel()
	if err := <-eErr; err == nil {
		t.Fatal("cancelled waiter granted")
	}
	waitForWaiting(&l, org, 3)

	a()
	ub := <-bDone
	ub()
	uc := <-cDone
	d()
	uc()
	(<-wholeDone)()
	if want := []string{"b", "c", "whole"}; len(order) != 3 || order[0] != want[0] || order[1] != want[1] || order[2] != want[2] {
		t.Fatalf("granted in order %v, want %v", order, want)
	}
	if len(l.orgs) != 0 {
		t.Fatalf("%d organizations left", len(l.orgs))
	}
}

// TestBodyKeys: a body locks each patient (by site and MRN) and each control id (by sender)
// once, sorted; a message the parser rejected locks nothing; the same MRN at another site is
// another patient; a body needing more than maxBodyKeys locks its organization.
func TestBodyKeys(t *testing.T) {
	org, site, other := uuid.New(), uuid.New(), uuid.New()
	msg := func(control, mrn, reject string) prepared {
		return prepared{controlID: control, sender: sender{"EPIC", "HMC"}, reject: reject,
			adt: &hl7.ADT{Patient: hl7.Patient{MRN: mrn, MRNSource: hl7.MRNSourcePID3MR}}}
	}
	tests := []struct {
		name  string
		msgs  []prepared
		keys  int
		whole bool
	}{
		{"two messages of one patient", []prepared{msg("C1", "1", ""), msg("C2", "1", "")}, 3, false},
		{"a resend in the body", []prepared{msg("C1", "1", ""), msg("C1", "1", "")}, 2, false},
		{"rejected by the parser", []prepared{msg("C1", "1", "unreadable")}, 0, false},
		{"no control id", []prepared{msg("", "1", ""), msg("", "2", "")}, 2, false},
		{"too many", func() []prepared {
			var out []prepared
			for i := range maxBodyKeys/2 + 1 {
				out = append(out, msg(fmt.Sprint("C", i), fmt.Sprint(i), ""))
			}
			return out
		}(), 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lk := bodyKeys(org, site, tc.msgs)
			if len(lk.keys) != tc.keys || lk.whole != tc.whole || !slices.IsSorted(lk.keys) {
				t.Fatalf("keys %v whole %v", lk.keys, lk.whole)
			}
		})
	}
	one := []prepared{msg("", "1", "")}
	if bodyKeys(org, site, one).keys[0] == bodyKeys(org, other, one).keys[0] {
		t.Fatal("one MRN at two sites is one key")
	}
	if bodyKeys(org, site, one).keys[0] == bodyKeys(uuid.New(), site, one).keys[0] {
		t.Fatal("one MRN in two organizations is one key")
	}
}
