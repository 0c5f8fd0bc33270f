package trayline

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/periodic"
	"github.com/sous-app/sous/internal/pg"
)

// KindTrayLate is the alert a ticket not delivered LateAfter its meal's start opens (subject
// the ticket); delivering the ticket, or its cancellation, closes it.
const KindTrayLate = "tray_late"

// LateAfter is how long after its meal's start a ticket may wait for delivery.
const LateAfter = 45 * time.Minute

const lateBatch = 500

// LateTask opens tray_late every minute for the tickets that became late. A ticket is marked
// when its alert opens, in the same transaction, so it is reported once whatever the number of
// replicas sweeping.
func LateTask(pool *pgxpool.Pool, c clock.Clock) periodic.Task {
	return periodic.Task{Name: "trayline: late trays", Every: time.Minute, Run: func(ctx context.Context) error {
		return SweepLate(ctx, pool, c.Now())
	}}
}

// SweepLate runs one sweep at now.
func SweepLate(ctx context.Context, pool *pgxpool.Pool, now time.Time) error {
	for {
		var n int
		err := pg.InTx(ctx, pool, func(tx pgx.Tx) error {
			q := db.New(tx)
			rows, err := q.MarkLateTrayTickets(ctx, db.MarkLateTrayTicketsParams{Now: &now, Cutoff: now.Add(-LateAfter), MaxRows: lateBatch})
			if err != nil {
				return err
			}
			n = len(rows)
			for _, r := range rows {
				if _, err := alerts.Open(ctx, tx, now, alerts.Alert{
					OrgID: r.OrgID, SiteID: r.SiteID, Kind: KindTrayLate, Severity: alerts.Warning,
					Message:     fmt.Sprintf("Tray late: %s %s-%s, %s not delivered %d minutes after the meal's start", r.Unit, r.Room, r.Bed, r.DayPart, int(LateAfter.Minutes())),
					SubjectType: "tray_ticket", SubjectID: r.ID, Occurrence: r.StartsAt.Add(LateAfter),
				}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil || n < lateBatch {
			return err
		}
	}
}
