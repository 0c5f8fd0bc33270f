// Package ratelimit keeps sliding-window limits and locks in PostgreSQL, so that every replica
// of the server counts the same requests.
package ratelimit

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/pg"
)

// Rule is "at most Limit events per Window" for one bucket.
type Rule struct {
	Bucket string
	Limit  int
	Window time.Duration
}

// Rules of the spec's Limits table.
var (
	Register    = Rule{Bucket: "register", Limit: 3, Window: time.Hour}
	SignInFails = Rule{Bucket: "signin_fail", Limit: 5, Window: 15 * time.Minute}
	DevicePair  = Rule{Bucket: "device_pair", Limit: 10, Window: time.Minute}
)

// Rules of the public surfaces, per client IP; the spec leaves their numbers to us.
var (
	// SupportInquiry limits POST /support-inquiry.
	SupportInquiry = Rule{Bucket: "support_inquiry", Limit: 5, Window: time.Hour}
	// CapabilityLink limits the public capability-link reads (/survey/{token}, /share/…/{token}),
	// all kinds together, so tokens cannot be probed at speed.
	CapabilityLink = Rule{Bucket: "capability_link", Limit: 60, Window: time.Minute}
)

// SignInLock is how long an email+IP pair stays locked after too many failures.
const SignInLock = 15 * time.Minute

// Limiter checks and records rate events.
type Limiter struct {
	pool  *pgxpool.Pool
	clock clock.Clock
}

func New(pool *pgxpool.Pool, c clock.Clock) *Limiter { return &Limiter{pool: pool, clock: c} }

// Take records one event for key, or returns a RateLimited error without recording it when the
// window already holds Limit events.
func (l *Limiter) Take(ctx context.Context, r Rule, key string) error {
	now := l.clock.Now()
	return pg.InTx(ctx, l.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if err := q.LockRateKey(ctx, db.LockRateKeyParams{Bucket: r.Bucket, Key: key}); err != nil {
			return err
		}
		since := now.Add(-r.Window)
		c, err := q.CountRateEvents(ctx, db.CountRateEventsParams{Bucket: r.Bucket, Key: key, Since: since})
		if err != nil {
			return err
		}
		if int(c.N) >= r.Limit {
			return apierr.RateLimited(c.Oldest.Add(r.Window).Sub(now))
		}
		if err := q.PruneRateEvents(ctx, db.PruneRateEventsParams{Bucket: r.Bucket, Key: key, Before: since}); err != nil {
			return err
		}
		return q.InsertRateEvent(ctx, db.InsertRateEventParams{Bucket: r.Bucket, Key: key, At: now})
	})
}

// CheckLock returns a RateLimited error while key is locked in bucket.
func (l *Limiter) CheckLock(ctx context.Context, bucket, key string) error {
	now := l.clock.Now()
	until, err := db.New(l.pool).GetRateLock(ctx, db.GetRateLockParams{Bucket: bucket, Key: key, Now: now})
	if pg.IsNoRows(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return apierr.RateLimited(until.Sub(now)).WithCode(apierr.CodeAccountLocked)
}

// Fail records a failure for key under r; when the window then holds r.Limit failures the key
// is locked for lockFor and the failures are forgotten. It reports whether the key is now locked.
func (l *Limiter) Fail(ctx context.Context, r Rule, key string, lockFor time.Duration) (locked bool, err error) {
	now := l.clock.Now()
	err = pg.InTx(ctx, l.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if err := q.LockRateKey(ctx, db.LockRateKeyParams{Bucket: r.Bucket, Key: key}); err != nil {
			return err
		}
		since := now.Add(-r.Window)
		if err := q.PruneRateEvents(ctx, db.PruneRateEventsParams{Bucket: r.Bucket, Key: key, Before: since}); err != nil {
			return err
		}
		if err := q.InsertRateEvent(ctx, db.InsertRateEventParams{Bucket: r.Bucket, Key: key, At: now}); err != nil {
			return err
		}
		c, err := q.CountRateEvents(ctx, db.CountRateEventsParams{Bucket: r.Bucket, Key: key, Since: since})
		if err != nil {
			return err
		}
		if int(c.N) < r.Limit {
			return nil
		}
		locked = true
		if err := q.SetRateLock(ctx, db.SetRateLockParams{Bucket: r.Bucket, Key: key, LockedUntil: now.Add(lockFor)}); err != nil {
			return err
		}
		return q.ClearRateEvents(ctx, db.ClearRateEventsParams{Bucket: r.Bucket, Key: key})
	})
	return locked, err
}

// Reset forgets the failures recorded for key, e.g. after a successful sign-in.
func (l *Limiter) Reset(ctx context.Context, bucket, key string) error {
	return db.New(l.pool).ClearRateEvents(ctx, db.ClearRateEventsParams{Bucket: bucket, Key: key})
}
