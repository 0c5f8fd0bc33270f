package clinical

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// FailWritesOf makes every write that would apply or skip a message with one of these control ids
// fail in the database, as a refused row would, until the returned function is called.
func FailWritesOf(controlIDs ...string) (restore func()) {
	hook := func(trail []trailRow) bool {
		return slices.ContainsFunc(trail, func(r trailRow) bool {
			return r.Outcome != outRejected && slices.Contains(controlIDs, r.ControlID)
		})
	}
	testHookFailWrite.Store(&hook)
	return func() { testHookFailWrite.Store(nil) }
}

// ExpireTrails runs the trail expiry at now, clearing slice rows per statement.
func ExpireTrails(ctx context.Context, pool *pgxpool.Pool, now time.Time, slice int32) error {
	return expireTrails(ctx, pool, now, slice)
}

// BatchFallbacks is how many bodies were applied message by message because their batch write
// failed.
func BatchFallbacks() int64 { return batchFallbacks.Load() }

// HoldIngestOf holds every body carrying a message for mrn once it holds its locks in the
// database, before it loads the census, until release is called; held receives once per body
// held.
func HoldIngestOf(mrn string) (held <-chan struct{}, release func()) {
	ch := make(chan struct{}, 16)
	gate := make(chan struct{})
	hook := func(msgs []prepared) {
		for i := range msgs {
			if a := msgs[i].adt; a != nil && a.Patient.MRN == mrn {
				ch <- struct{}{}
				<-gate
				return
			}
		}
	}
	testHookLocked.Store(&hook)
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			testHookLocked.Store(nil)
			close(gate)
		})
	}
}
