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

// CloseOccurrence closes the open alert of kind and cause about subject that opened for this
// occurrence (its condition cleared by itself), and hints its site's screens. The kind's other
// causes, and an alert a member already resolved, are left as they are.
func CloseOccurrence(ctx context.Context, tx pgx.Tx, now time.Time, orgID uuid.UUID, kind, cause string, subject uuid.UUID, occurrence time.Time) error {
	rows, err := db.New(tx).CloseAlertOccurrence(ctx, db.CloseAlertOccurrenceParams{
		OrgID: orgID, Kind: kind, Cause: cause, SubjectID: subject, Occurrence: occurrence, Now: now})
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := hintSite(ctx, tx, orgID, r.SiteID); err != nil {
			return err
		}
	}
	return nil
}
