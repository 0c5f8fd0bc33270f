package inventory

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

const (
	// KindLotExpiring is the alert opened for a lot with stock that expires within
	// ExpiringWithinDays of its site's local today.
	KindLotExpiring = "lot_expiring"
	// ExpiringWithinDays is how far ahead a lot's expiry is reported.
	ExpiringWithinDays = 2
	expiryBatch        = 500
)

// ExpiringLotsTask opens one lot_expiring alert (warning) per lot holding stock that expires
// within two days in its site's zone, never twice for the same lot (resolved or not), which
// fires alert.created and shows on the site's kitchen wallboards. An alert whose lot has been
// emptied (used, wasted, moved out) closes by itself. It runs every 15 minutes.
func ExpiringLotsTask(pool *pgxpool.Pool, c clock.Clock) periodic.Task {
	return periodic.Task{Name: "inventory: expiring lots", Every: 15 * time.Minute, Run: func(ctx context.Context) error {
		now := c.Now()
		for {
			n, err := closeEmptied(ctx, pool, now)
			if err != nil {
				return err
			}
			if n < expiryBatch {
				break
			}
		}
		for {
			n, err := openExpiring(ctx, pool, now)
			if err != nil {
				return err
			}
			if n < expiryBatch {
				return nil
			}
		}
	}}
}

func openExpiring(ctx context.Context, pool *pgxpool.Pool, now time.Time) (int, error) {
	var n int
	err := pg.InTx(ctx, pool, func(tx pgx.Tx) error {
		rows, err := db.New(tx).ExpiringLots(ctx, db.ExpiringLotsParams{Now: now, Days: ExpiringWithinDays, MaxRows: expiryBatch})
		if err != nil {
			return err
		}
		n = len(rows)
		for _, r := range rows {
			msg := fmt.Sprintf("Lot %s of %s (%s %s on hand) expires %s", r.Code, r.ItemName, fmtQty(r.OnHand), r.BaseUnit, r.ExpiresOn.Time.Format("Mon Jan 2"))
			if _, err := alerts.Open(ctx, tx, now, alerts.Alert{
				OrgID: r.OrgID, SiteID: r.SiteID, Kind: KindLotExpiring, Severity: alerts.Warning, Message: msg,
				SubjectType: "lot", SubjectID: r.ID, Occurrence: r.ExpiresOn.Time,
			}); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

func closeEmptied(ctx context.Context, pool *pgxpool.Pool, now time.Time) (int, error) {
	var n int
	err := pg.InTx(ctx, pool, func(tx pgx.Tx) error {
		rows, err := db.New(tx).EmptiedExpiringLotAlerts(ctx, expiryBatch)
		if err != nil {
			return err
		}
		n = len(rows)
		for _, r := range rows {
			if err := alerts.Close(ctx, tx, now, r.OrgID, KindLotExpiring, r.SubjectID); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}
