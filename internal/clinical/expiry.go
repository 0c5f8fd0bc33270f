package clinical

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/periodic"
)

// RawRetention is how long the message trail keeps a message's raw text. Raw HL7 is protected
// health information, and what an interface analyst traces by control id is recent; the rest of
// the trail row (control id, type, outcome, reason, MRN, location, times) is kept, because it is
// the record of what each hospital sent and the census needs it: it backs the control-id
// (MSH-10) check and the patients' movement history.
const RawRetention = 90 * 24 * time.Hour

// expirySlice bounds the rows one statement clears, so the clearing never holds many row locks
// against a busy feed.
const expirySlice int32 = 2000

// TrailExpiryTask clears, hourly, the raw text that has outlived RawRetention in every
// organization's trail, whether or not its feed still sends.
func TrailExpiryTask(pool *pgxpool.Pool, c clock.Clock) periodic.Task {
	return periodic.Task{Name: "clinical: HL7 trail expiry", Every: time.Hour, Run: func(ctx context.Context) error {
		return expireTrails(ctx, pool, c.Now(), expirySlice)
	}}
}

// expireTrails walks the organizations with trail rows older than the cutoff and clears their
// expired raw text a slice at a time; each organization's mark (hl7_trail_expiry) makes every
// slice start where the last one ended.
func expireTrails(ctx context.Context, pool *pgxpool.Pool, now time.Time, slice int32) error {
	q := db.New(pool)
	cutoff := now.Add(-RawRetention)
	var after *uuid.UUID
	for {
		orgs, err := q.OrgsWithTrailBefore(ctx, db.OrgsWithTrailBeforeParams{Cutoff: cutoff, AfterID: after, MaxRows: 500})
		if err != nil {
			return err
		}
		for _, org := range orgs {
			for {
				n, err := q.ExpireTrailRaw(ctx, db.ExpireTrailRawParams{OrgID: org, Cutoff: cutoff, MaxRows: slice})
				if err != nil {
					return err
				}
				if n < slice {
					break
				}
			}
		}
		if len(orgs) < 500 {
			return nil
		}
		after = &orgs[len(orgs)-1]
	}
}
