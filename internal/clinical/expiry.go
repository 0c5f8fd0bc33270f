package clinical

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/reqinfo"
)

// RawRetention is how long the message trail keeps a message's raw text. Raw HL7 is protected
// health information, and what an interface analyst traces by control id is recent; the rest of
// the trail row (control id, type, outcome, reason, MRN, location, times) is kept, because it is
// the record of what each hospital sent and the census needs it: it backs the control-id
// (MSH-10) check and the patients' movement history.
const RawRetention = 90 * 24 * time.Hour

// The ingest clears expired raw text itself, so that nothing has to be scheduled beside it: after
// an organization's body is committed, at most every expiryEvery per organization and replica, it
// clears the next expirySlice rows (oldest first). A slice is far more than a feed receives in
// expiryEvery, so the clearing keeps up with the feed that drives it.
var (
	expiryEvery       = 10 * time.Second
	expirySlice int32 = 2000
)

// expireTrail clears the next slice of the organization's expired raw text. It runs after the
// ingest's transaction has committed, and a failure only delays the clearing to a later body.
func (h *Handlers) expireTrail(ctx context.Context, orgID uuid.UUID, now time.Time) {
	if last, ok := h.expiry.Load(orgID); ok && now.Sub(last.(time.Time)) < expiryEvery {
		return
	}
	h.expiry.Store(orgID, now)
	n, err := db.New(h.pool).ExpireTrailRaw(ctx, db.ExpireTrailRawParams{OrgID: orgID, Cutoff: now.Add(-RawRetention), MaxRows: expirySlice})
	if err != nil {
		if ctx.Err() == nil {
			h.logger.WarnContext(ctx, "hl7 trail expiry failed", "err", err.Error(), "request_id", reqinfo.RequestID(ctx))
		}
		return
	}
	if n > 0 {
		h.logger.DebugContext(ctx, "hl7 trail expiry", "rows", n)
	}
}
