// Package ratelimit keeps sliding-window limits and locks in PostgreSQL, so that every replica
// of the server counts the same requests.
package ratelimit

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/metrics"
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
	// SignInIP bounds the sign-in attempts of one client IP whatever the emails, so an address
	// cannot spread guesses over many accounts (the spec leaves the number to us).
	SignInIP = Rule{Bucket: "signin_ip", Limit: 30, Window: time.Minute}
)

// Rules of the public surfaces, per client IP; the spec leaves their numbers to us.
var (
	// SupportInquiry limits POST /support-inquiry.
	SupportInquiry = Rule{Bucket: "support_inquiry", Limit: 5, Window: time.Hour}
	// CapabilityLink limits the public capability-link reads (/survey/{token}, /share/…/{token}),
	// all kinds together, so tokens cannot be probed at speed.
	CapabilityLink = Rule{Bucket: "capability_link", Limit: 120, Window: time.Minute}
	// CapabilityLinkWrite limits the public capability-link writes (accepting a shared quote,
	// submitting a survey), all kinds together; they do not count against the reads.
	CapabilityLinkWrite = Rule{Bucket: "capability_link_write", Limit: 20, Window: time.Minute}
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
	return pg.InTx(ctx, l.pool, func(tx pgx.Tx) error {
		// The event alone is written here, and losing the last ones in a crash only loosens a
		// limit for a moment: the commit need not wait for the WAL flush. On the public links
		// every read takes one, and that wait was most of their tail latency.
		if _, err := tx.Exec(ctx, "SET LOCAL synchronous_commit = off"); err != nil {
			return err
		}
		return l.TakeIn(ctx, db.New(tx), r, key)
	})
}

// Check returns the RateLimited error Take would, without recording anything: a cheap early
// refusal before costly work whose event is then taken with TakeIn.
func (l *Limiter) Check(ctx context.Context, r Rule, key string) error {
	now := l.clock.Now()
	_, err := refuseIfFull(ctx, db.New(l.pool), r, key, now)
	return err
}

// refuseIfFull counts key's events in the window ending at now and returns the RateLimited error
// (noting the rate-limit headers) when they already reach the rule's limit.
func refuseIfFull(ctx context.Context, q *db.Queries, r Rule, key string, now time.Time) (db.CountRateEventsRow, error) {
	c, err := q.CountRateEvents(ctx, db.CountRateEventsParams{Bucket: r.Bucket, Key: key, Since: now.Add(-r.Window)})
	if err != nil {
		return c, err
	}
	if int(c.N) >= r.Limit {
		retry := c.Oldest.Add(r.Window).Sub(now)
		note(ctx, r, 0, retry, true)
		metrics.RateLimitedBy(r.Bucket)
		return c, apierr.RateLimited(retry)
	}
	return c, nil
}

// TakeIn is Take inside the caller's transaction: the event is recorded only if that
// transaction commits, so a request refused later in it does not use up the allowance.
func (l *Limiter) TakeIn(ctx context.Context, q *db.Queries, r Rule, key string) error {
	now := l.clock.Now()
	if err := q.LockRateKey(ctx, db.LockRateKeyParams{Bucket: r.Bucket, Key: key}); err != nil {
		return err
	}
	c, err := refuseIfFull(ctx, q, r, key, now)
	if err != nil {
		return err
	}
	since := now.Add(-r.Window)
	if err := q.PruneRateEvents(ctx, db.PruneRateEventsParams{Bucket: r.Bucket, Key: key, Before: since}); err != nil {
		return err
	}
	if err := q.InsertRateEvent(ctx, db.InsertRateEventParams{Bucket: r.Bucket, Key: key, At: now}); err != nil {
		return err
	}
	note(ctx, r, r.Limit-int(c.N)-1, restoredIn(c.N, c.Oldest, now, r.Window), true)
	return nil
}

// restoredIn is how long until the window's oldest event (this one, when it is the first)
// leaves it, freeing one unit of the quota.
func restoredIn(n int32, oldest, now time.Time, window time.Duration) time.Duration {
	if n == 0 {
		oldest = now
	}
	return oldest.Add(window).Sub(now)
}

// Reservation is one attempt under a failure limit (a sign-in), taken before the costly check
// it guards and counted as a failure until it is settled. Because the check, the reservation and
// the count happen under one lock of the key in PostgreSQL, N parallel attempts on any number of
// replicas get at most Limit reservations; the rest are refused before doing any work.
type Reservation struct {
	rule Rule
	key  string
	id   uuid.UUID
}

// Reserve takes one attempt for key under r inside the caller's transaction, or returns a
// RateLimited error while key is locked or while Limit attempts (failed, or still being checked)
// fall in the window.
func (l *Limiter) Reserve(ctx context.Context, q *db.Queries, r Rule, key string) (*Reservation, error) {
	now := l.clock.Now()
	if err := q.LockRateKey(ctx, db.LockRateKeyParams{Bucket: r.Bucket, Key: key}); err != nil {
		return nil, err
	}
	until, err := q.GetRateLock(ctx, db.GetRateLockParams{Bucket: r.Bucket, Key: key, Now: now})
	switch {
	case err == nil:
		note(ctx, r, 0, until.Sub(now), true)
		metrics.RateLimitedBy(r.Bucket)
		return nil, apierr.RateLimited(until.Sub(now)).WithCode(apierr.CodeAccountLocked)
	case !pg.IsNoRows(err):
		return nil, err
	}
	since := now.Add(-r.Window)
	// Attempts older than the window no longer count, including reservations a crashed replica
	// never settled.
	if err := q.PruneRateEvents(ctx, db.PruneRateEventsParams{Bucket: r.Bucket, Key: key, Before: since}); err != nil {
		return nil, err
	}
	c, err := q.CountRateEvents(ctx, db.CountRateEventsParams{Bucket: r.Bucket, Key: key, Since: since})
	if err != nil {
		return nil, err
	}
	if int(c.N) >= r.Limit {
		// As many attempts as the lock allows are failed or still being checked: the same lock.
		retry := c.Oldest.Add(r.Window).Sub(now)
		note(ctx, r, 0, retry, true)
		metrics.RateLimitedBy(r.Bucket)
		return nil, apierr.RateLimited(retry).WithCode(apierr.CodeAccountLocked)
	}
	note(ctx, r, r.Limit-int(c.N)-1, restoredIn(c.N, c.Oldest, now, r.Window), true)
	res := &Reservation{rule: r, key: key, id: uuid.Must(uuid.NewV7())}
	err = q.InsertRateReservation(ctx, db.InsertRateReservationParams{Bucket: r.Bucket, Key: key, At: now, Reservation: &res.id})
	return res, err
}

// Fail settles the attempt as a failure in the caller's transaction. When the window then holds
// Limit settled failures the key is locked for lockFor and they are forgotten; it reports
// whether this failure locked the key.
func (l *Limiter) Fail(ctx context.Context, q *db.Queries, res *Reservation, lockFor time.Duration) (locked bool, err error) {
	now := l.clock.Now()
	r := res.rule
	if err := q.LockRateKey(ctx, db.LockRateKeyParams{Bucket: r.Bucket, Key: res.key}); err != nil {
		return false, err
	}
	if err := q.SettleRateReservation(ctx, db.SettleRateReservationParams{Bucket: r.Bucket, Key: res.key, Reservation: &res.id}); err != nil {
		return false, err
	}
	n, err := q.CountSettledRateEvents(ctx, db.CountSettledRateEventsParams{Bucket: r.Bucket, Key: res.key, Since: now.Add(-r.Window)})
	if err != nil {
		return false, err
	}
	if int(n) < r.Limit {
		// At most a window until this failure is forgotten.
		note(ctx, r, r.Limit-int(n), r.Window, true)
		return false, nil
	}
	note(ctx, r, 0, lockFor, true)
	if err := q.SetRateLock(ctx, db.SetRateLockParams{Bucket: r.Bucket, Key: res.key, LockedUntil: now.Add(lockFor)}); err != nil {
		return false, err
	}
	return true, q.ClearSettledRateEvents(ctx, db.ClearSettledRateEventsParams{Bucket: r.Bucket, Key: res.key, Reservation: &res.id})
}

// Succeed releases the attempt and forgets the failures settled before it (a successful
// sign-in starts the count again). Attempts other requests are still checking stay counted.
func (l *Limiter) Succeed(ctx context.Context, q *db.Queries, res *Reservation) error {
	if err := q.ClearSettledRateEvents(ctx, db.ClearSettledRateEventsParams{Bucket: res.rule.Bucket, Key: res.key, Reservation: &res.id}); err != nil {
		return err
	}
	note(ctx, res.rule, res.rule.Limit, 0, true)
	return nil
}

// Cancel gives the attempt back without counting it (the check never ran: the server was busy
// or failed).
func (l *Limiter) Cancel(ctx context.Context, res *Reservation) error {
	return db.New(l.pool).CancelRateReservation(ctx, db.CancelRateReservationParams{Bucket: res.rule.Bucket, Key: res.key, Reservation: &res.id})
}
