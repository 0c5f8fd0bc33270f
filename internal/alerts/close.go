package alerts

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/pg"
)

// KindDoorOpen is a door sensor left open longer than its sensor allows (subject a sensor).
const KindDoorOpen = "door_open"

// CloseWith closes one open alert whose condition cleared by itself, replacing its message with
// one that says how it ended, and hints its site's screens. An alert already closed (a member
// resolved it) is left as it is; closed reports whether this call closed it.
func CloseWith(ctx context.Context, tx pgx.Tx, now time.Time, orgID, alertID uuid.UUID, message string) (closed bool, err error) {
	row, err := db.New(tx).CloseAlertWithMessage(ctx, db.CloseAlertWithMessageParams{OrgID: orgID, ID: alertID, Message: message, Now: now})
	if pg.IsNoRows(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, hintSite(ctx, tx, orgID, row.SiteID)
}
