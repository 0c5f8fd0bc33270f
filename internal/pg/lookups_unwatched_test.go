package pg_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/pg"
)

// openBoundLookups opens Lookups on a migrated database with the given bound (0: none) and pool
// size.
func openBoundLookups(t *testing.T, maxConns string, bound time.Duration) (*pg.Lookups, func(context.Context) error) {
	t.Helper()
	pool := migratedPool(t, "pool_max_conns="+maxConns)
	lookups, err := pg.OpenLookups(pool, false, bound)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lookups.Close)
	// lockOrgs holds an exclusive lock on orgs, which every lookup of an organization waits on,
	// until ctx ends.
	lockOrgs := func(ctx context.Context) error {
		tx, err := pool.Begin(context.WithoutCancel(ctx))
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "LOCK TABLE orgs IN ACCESS EXCLUSIVE MODE"); err != nil {
			return err
		}
		go func() { <-ctx.Done(); _ = tx.Rollback(context.Background()) }()
		return nil
	}
	return lookups, lockOrgs
}

// A lookup not watched through its context is still bounded: on the server by the bound
// (statement_timeout, a lock wait included), which answers as an outage (503), and before it
// is sent by its context.
func TestUnwatchedLookupsAreBoundedOnTheServer(t *testing.T) {
	t.Parallel()
	const bound = 300 * time.Millisecond
	lookups, lockOrgs := openBoundLookups(t, "2", bound)
	q := lookups.Queries()

	ctx, unlock := context.WithCancel(t.Context())
	defer unlock()
	if err := lockOrgs(ctx); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := q.GetOrgPlan(t.Context(), uuid.New())
	waited := time.Since(start)
	if err == nil || pg.Unavailable(err) == nil {
		t.Fatalf("lookup behind a lock: %v, want an outage (statement_timeout)", err)
	}
	if waited < bound || waited > bound+5*time.Second {
		t.Fatalf("lookup behind a lock ended after %v, want about %v", waited, bound)
	}
	unlock()

	done, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := q.GetOrgPlan(done, uuid.New()); !errors.Is(err, context.Canceled) {
		t.Fatalf("lookup with a canceled context: %v, want Canceled", err)
	}
	if _, err := q.ListSites(done, uuid.New()); !errors.Is(err, context.Canceled) {
		t.Fatalf("list with a canceled context: %v, want Canceled", err)
	}
	expectNoSlotHeld(t, lookups)
}

// With every connection of the lookup pool busy, a lookup waits for one under its context: its
// deadline ends the wait, and the lookups that ran give their slots back.
func TestUnwatchedLookupsWaitForAConnectionUnderTheirContext(t *testing.T) {
	t.Parallel()
	lookups, lockOrgs := openBoundLookups(t, "1", 10*time.Second)
	q := lookups.Queries()
	if _, err := q.GetOrgPlan(t.Context(), uuid.New()); !pg.IsNoRows(err) { // opens the connection
		t.Fatalf("GetOrgPlan: %v", err)
	}

	ctx, unlock := context.WithCancel(t.Context())
	defer unlock()
	if err := lockOrgs(ctx); err != nil {
		t.Fatal(err)
	}
	holding := make(chan error, 1)
	go func() { _, err := q.GetOrgPlan(t.Context(), uuid.New()); holding <- err }()
	for pg.LookupSlotsTaken(lookups) != 1 {
		time.Sleep(time.Millisecond)
	}
	short, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := q.GetOrgPlan(short, uuid.New()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("lookup waiting for the only connection: %v, want DeadlineExceeded", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("the wait ended after %v", waited)
	}
	unlock()
	if err := <-holding; !pg.IsNoRows(err) {
		t.Fatalf("the lookup behind the lock: %v", err)
	}
	expectNoSlotHeld(t, lookups)
}

// 32 lookups and lists at once on 2 connections all run, and leave no slot held.
func TestUnwatchedLookupsUnderConcurrency(t *testing.T) {
	t.Parallel()
	lookups, _ := openBoundLookups(t, "2", 10*time.Second)
	q := lookups.Queries()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 32 {
		wg.Go(func() {
			if i%2 == 0 {
				if _, err := q.GetOrgPlan(t.Context(), uuid.New()); !pg.IsNoRows(err) {
					errs <- err
				}
				return
			}
			if sites, err := q.ListSites(t.Context(), uuid.New()); err != nil || len(sites) != 0 {
				errs <- errors.Join(err, errors.New("sites listed"))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	expectNoSlotHeld(t, lookups)
}

// expectNoSlotHeld fails t unless every lookup gave its slot back.
func expectNoSlotHeld(t *testing.T, l *pg.Lookups) {
	t.Helper()
	if n := pg.LookupSlotsTaken(l); n != 0 {
		t.Fatalf("%d slots held after the lookups ended", n)
	}
}

// doneAsked counts the calls of Done: a context a lookup must not watch.
type doneAsked struct {
	context.Context
	n atomic.Int32
}

func (c *doneAsked) Done() <-chan struct{} {
	c.n.Add(1)
	return c.Context.Done()
}

// A lookup with a connection free never asks its context for Done (what lets a request's
// context stay unmade, see httpapi's scope); without a bound it is watched as before.
func TestUnwatchedLookupsNeverAskForDone(t *testing.T) {
	t.Parallel()
	for _, bound := range []time.Duration{10 * time.Second, 0} {
		lookups, _ := openBoundLookups(t, "2", bound)
		q := lookups.Queries()
		ctx := &doneAsked{Context: t.Context()}
		if _, err := q.GetOrgPlan(ctx, uuid.New()); !pg.IsNoRows(err) {
			t.Fatalf("GetOrgPlan: %v", err)
		}
		if _, err := q.ListSites(ctx, uuid.New()); err != nil {
			t.Fatalf("ListSites: %v", err)
		}
		if asked := ctx.n.Load(); (bound > 0) != (asked == 0) {
			t.Fatalf("bound %v: Done asked %d times", bound, asked)
		}
	}
}
