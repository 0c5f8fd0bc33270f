package auth

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/periodic"
	"github.com/sous-app/sous/internal/reqinfo"
)

// Kinds of security event (the spec's SecurityEvent.kind).
const (
	eventSignIn          = "sign_in"
	eventSignInFailed    = "sign_in_failed"
	eventLocked          = "locked"
	eventPasswordChanged = "password_changed"
	eventRefreshReuse    = "refresh_reuse_detected"
	eventSignedOut       = "signed_out"
	eventRegistered      = "registered"
)

// SecurityEventRetention is how long a user's security events are kept.
const SecurityEventRetention = 90 * 24 * time.Hour

// recordEvent writes one security event of userID in the caller's transaction, so the event
// exists exactly when what it records committed.
func recordEvent(ctx context.Context, q *db.Queries, userID uuid.UUID, kind string, at time.Time) error {
	return q.InsertSecurityEvent(ctx, db.InsertSecurityEventParams{
		ID: newID(), UserID: userID, At: at, Kind: kind,
		Ip: optional(reqinfo.ClientIP(ctx)), UserAgent: optional(reqinfo.UserAgent(ctx)),
	})
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// pruneSlice bounds one delete of the retention task, so no run holds long locks.
const pruneSlice = 5000

// SecurityEventRetentionTask deletes security events older than SecurityEventRetention, a slice
// at a time, hourly. Replicas running it together delete disjoint or already deleted rows.
func SecurityEventRetentionTask(pool *pgxpool.Pool, c clock.Clock) periodic.Task {
	return periodic.Task{Name: "auth: security event retention", Every: time.Hour, Run: func(ctx context.Context) error {
		return PruneSecurityEvents(ctx, pool, c.Now())
	}}
}

// PruneSecurityEvents deletes the security events that are past retention at now.
func PruneSecurityEvents(ctx context.Context, pool *pgxpool.Pool, now time.Time) error {
	q := db.New(pool)
	for {
		n, err := q.PruneSecurityEvents(ctx, db.PruneSecurityEventsParams{Before: now.Add(-SecurityEventRetention), MaxRows: pruneSlice})
		if err != nil || n < pruneSlice {
			return err
		}
	}
}
