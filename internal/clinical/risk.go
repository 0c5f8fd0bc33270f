package clinical

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/hl7"
	"github.com/sous-app/sous/internal/periodic"
	"github.com/sous-app/sous/internal/pg"
)

// NutritionRiskAfter is how long a patient in house may be kept on nothing by mouth or clear
// liquids before the diet office is alerted: nutrition screening guidance treats more than three
// days of either as a risk of malnutrition that calls for a dietitian's assessment.
const NutritionRiskAfter = 72 * time.Hour

// KindNutritionRisk is the alert the check opens.
const KindNutritionRisk = "nutrition_risk"

const riskBatch = 500

// NutritionRiskTask opens a nutrition_risk alert for each patient in house whose diet orders
// have allowed only NPO or clear liquids for NutritionRiskAfter, and closes it when a fuller diet
// or a supplement is ordered or the patient leaves. Orders with codes nobody has mapped yet do not
// count as restrictive: the unmapped-code review surfaces those, and a guess would cry wolf.
func NutritionRiskTask(pool *pgxpool.Pool, c clock.Clock) periodic.Task {
	return periodic.Task{Name: "clinical: nutrition risk", Every: 5 * time.Minute, Run: func(ctx context.Context) error {
		now := c.Now()
		closeErr := closeClearedRisks(ctx, pool, now)
		if closeErr != nil && !errors.Is(closeErr, errUnreadable) {
			return closeErr
		}
		return errors.Join(closeErr, openRisks(ctx, pool, now))
	}}
}

// restrictedSince reports whether the orders allow only NPO or clear liquids and, if so, since
// when: the earliest start (or receipt) of those orders. Orders that cannot be read are an
// error: treating them as unrestricted would silence the alert.
func restrictedSince(raw []byte) (time.Time, bool, error) {
	orders, err := decodeDietOrders(raw)
	if err != nil || len(orders) == 0 {
		return time.Time{}, false, err
	}
	var since time.Time
	restricted := false
	for _, o := range orders {
		switch hl7.DietOrderType(o.Type) {
		case hl7.DietOrderSupplement:
			return time.Time{}, false, nil // someone is already feeding the patient something
		case hl7.DietOrderDiet:
		default:
			continue
		}
		if len(o.Codes) == 0 {
			return time.Time{}, false, nil
		}
		for _, c := range o.Codes {
			if len(c.Diets) == 0 {
				return time.Time{}, false, nil
			}
			for _, d := range c.Diets {
				if d != string(hl7.DietNPO) && d != string(hl7.DietClearLiquid) {
					return time.Time{}, false, nil
				}
			}
		}
		start := o.OrderedAt
		if o.StartAt != nil && o.StartAt.Before(start) {
			start = *o.StartAt
		}
		if !restricted || start.Before(since) {
			since = start
		}
		restricted = true
	}
	return since, restricted, nil
}

// Both passes go on past a patient whose orders cannot be read (an open alert stays open, none
// is opened) and report them at the end, so that one bad row does not stop the check for the
// others.
func openRisks(ctx context.Context, pool *pgxpool.Pool, now time.Time) (unreadable error) {
	var after *uuid.UUID
	for {
		rows, err := db.New(pool).RestrictedDietPatients(ctx, db.RestrictedDietPatientsParams{AfterID: after, MaxRows: riskBatch})
		if err != nil {
			return err
		}
		var due []db.RestrictedDietPatientsRow
		var sinces []time.Time
		for _, r := range rows {
			since, ok, err := restrictedSince(r.DietOrders)
			if err != nil {
				unreadable = errors.Join(unreadable, fmt.Errorf("patient %s: %w", r.ID, err))
				continue
			}
			// One alert per occurrence: not while one is open, nor again for the same
			// restriction once a member has resolved it.
			if !ok || r.AlertOpen || now.Sub(since) < NutritionRiskAfter || r.LastOccurrence.Equal(since) {
				continue
			}
			due, sinces = append(due, r), append(sinces, since)
		}
		if len(due) > 0 {
			err := pg.InTx(ctx, pool, func(tx pgx.Tx) error {
				for i, r := range due {
					if _, err := alerts.Open(ctx, tx, now, alerts.Alert{
						OrgID: r.OrgID, SiteID: r.SiteID, Kind: KindNutritionRisk, Severity: alerts.Warning,
						Message:     riskMessage(r, sinces[i], now),
						SubjectType: "patient", SubjectID: r.ID, Occurrence: sinces[i],
					}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		if len(rows) < riskBatch {
			return unreadable
		}
		after = &rows[len(rows)-1].ID
	}
}

func closeClearedRisks(ctx context.Context, pool *pgxpool.Pool, now time.Time) (unreadable error) {
	var after *uuid.UUID
	for {
		rows, err := db.New(pool).OpenNutritionRiskAlerts(ctx, db.OpenNutritionRiskAlertsParams{AfterID: after, MaxRows: riskBatch})
		if err != nil {
			return err
		}
		cleared := map[uuid.UUID][]uuid.UUID{}
		for _, r := range rows {
			if r.EncounterID == nil {
				cleared[r.OrgID] = append(cleared[r.OrgID], r.SubjectID) // discharged or gone
				continue
			}
			if _, ok, err := restrictedSince(r.DietOrders); err != nil {
				unreadable = errors.Join(unreadable, fmt.Errorf("patient %s: %w", r.SubjectID, err))
			} else if !ok {
				cleared[r.OrgID] = append(cleared[r.OrgID], r.SubjectID)
			}
		}
		if len(cleared) > 0 {
			err := pg.InTx(ctx, pool, func(tx pgx.Tx) error {
				for org, patients := range cleared {
					if err := alerts.Close(ctx, tx, now, org, KindNutritionRisk, patients...); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		if len(rows) < riskBatch {
			return unreadable
		}
		after = &rows[len(rows)-1].SubjectID
	}
}

// riskMessage says where and for how long. It names no patient: alerts are listed to every
// member and shown on kitchen wallboards, while names and MRNs are for the census's readers.
func riskMessage(r db.RestrictedDietPatientsRow, since, now time.Time) string {
	where := r.Unit
	if r.Room != "" {
		where += " " + r.Room
	}
	if r.Bed != "" {
		where += "-" + r.Bed
	}
	if where == "" {
		where = "unknown location"
	}
	days := int(now.Sub(since) / (24 * time.Hour))
	return fmt.Sprintf("Patient in %s: NPO or clear liquids only for %d days; dietitian assessment due", where, days)
}
