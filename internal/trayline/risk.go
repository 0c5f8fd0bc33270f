package trayline

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/kitchen"
	"github.com/sous-app/sous/internal/quantity"
)

// kindNutritionRisk is the clinical alert (clinical.KindNutritionRisk) the tray line opens with
// its own cause: a planned day over a per-day nutrient limit. The NPO check closes only its own.
const (
	kindNutritionRisk  = "nutrition_risk"
	causeNutrientLimit = "nutrient_limit"
)

// The planned day's breach. Whatever plans or judges a patient's day (a generation, a selection,
// a census change, a diet's rules changing) holds the patient-day's lock first, so the per-day
// checks read a day no other transaction is changing, and judges the day after it wrote: over a
// per-day maximum begins a breach (nutrient_day_breaches) and opens nutrition_risk about the
// patient once for it; within again ends the breach and closes its alert. A member who resolves
// the alert while the day stays over does not see it again; a day that breaks again after it was
// within is a new breach, with a new alert.

// dayKey is a patient's local date.
type dayKey struct {
	patient uuid.UUID
	date    time.Time
}

// lockDays takes the locks of the patients' days, in one order for every caller. Take every
// lock a transaction needs in one call: two calls could wait on each other in a circle.
func lockDays(ctx context.Context, q *db.Queries, orgID uuid.UUID, days []dayKey) error {
	if len(days) == 0 {
		return nil
	}
	keys := make([]string, 0, len(days))
	for _, d := range days {
		keys = append(keys, "trayday:"+orgID.String()+":"+d.patient.String()+":"+d.date.Format(time.DateOnly))
	}
	slices.Sort(keys)
	return q.LockPatientDays(ctx, slices.Compact(keys))
}

// judgement is a patient's planned day as judged: over a per-day maximum (with what and where),
// or not.
type judgement struct {
	dayKey
	site uuid.UUID
	over bool
	r    risk
}

// risk is a patient whose planned day breaks a per-day limit.
type risk struct {
	unit, room, bed, what string
}

// overDay says whether a planned day is above a per-day maximum of the limits, and which. A
// known part above the maximum is above it whatever is unknown.
func overDay(limits []limit, day kitchen.Totals) (string, bool) {
	for _, l := range limits {
		if l.Per != perDay || l.Max == nil {
			continue
		}
		v, _ := day.Get(l.Key)
		if v.Amount.GreaterThan(*l.Max) {
			nut, unit := limitWords(l.Key)
			return fmt.Sprintf("planned %s %s%s %s is over %s's %s %s a day", nut, atLeast(v), quantity.Format(v.Amount), unit,
				sourceWords(l.Source), quantity.Format(*l.Max), unit), true
		}
	}
	return "", false
}

// dayRisk judges the patient's planned day with this tray's items as planned (the other day
// parts' trays, and conflicts included: they stay on the ticket until someone acts).
func dayRisk(m meal, items []Item) (string, bool) {
	if !needsDay(m.limits) {
		return "", false
	}
	return overDay(m.limits, m.dayOther.Plus(sumItems(items, planned)))
}

// judgeDays judges the patients' days from what is stored now (after the caller's writes) and
// settles them; the caller holds their locks. A patient discharged or gone is within.
func judgeDays(ctx context.Context, tx pgx.Tx, now time.Time, orgID uuid.UUID, days []dayKey) error {
	if len(days) == 0 {
		return nil
	}
	q := db.New(tx)
	var ids []uuid.UUID
	byDate := map[time.Time][]uuid.UUID{}
	for _, d := range days {
		if !slices.Contains(ids, d.patient) {
			ids = append(ids, d.patient)
		}
		if !slices.Contains(byDate[d.date], d.patient) {
			byDate[d.date] = append(byDate[d.date], d.patient)
		}
	}
	pats, err := q.TrayPatientFacts(ctx, db.TrayPatientFactsParams{OrgID: orgID, Ids: ids})
	if err != nil {
		return err
	}
	facts := make(map[uuid.UUID]db.TrayPatientFactsRow, len(pats))
	for _, p := range pats {
		facts[p.ID] = p
	}
	rules, err := loadRules(ctx, q, orgID)
	if err != nil {
		return err
	}
	trays := make(map[time.Time]dayTrays, len(byDate))
	for date, patients := range byDate {
		if trays[date], err = readDayTrays(ctx, q, orgID, date, patients); err != nil {
			return err
		}
	}
	out := make([]judgement, 0, len(days))
	for _, d := range days {
		j := judgement{dayKey: d}
		if p, ok := facts[d.patient]; ok && p.EncounterID != nil {
			j.site = p.SiteID
			pt := patientOf(p.Allergies, p.DietOrders)
			j.r = risk{unit: p.Unit, room: p.Room, bed: p.Bed}
			j.r.what, j.over = overDay(limitsOf(pt, rules), trays[d.date].others(d.patient, ""))
		}
		out = append(out, j)
	}
	return settleDays(ctx, tx, now, orgID, out)
}

// settleDays records judged days: a day over with no breach begins one and opens its alert; a
// day over whose breach never had its alert (another nutrition_risk about the patient was open)
// opens it now; a day within ends its breach and closes the breach's alert.
func settleDays(ctx context.Context, tx pgx.Tx, now time.Time, orgID uuid.UUID, days []judgement) error {
	if len(days) == 0 {
		return nil
	}
	q := db.New(tx)
	patients := make([]uuid.UUID, len(days))
	dates := make([]pgtype.Date, len(days))
	for i, d := range days {
		patients[i], dates[i] = d.patient, pgtype.Date{Time: d.date, Valid: true}
	}
	rows, err := q.DayBreaches(ctx, db.DayBreachesParams{OrgID: orgID, PatientIds: patients, Dates: dates})
	if err != nil {
		return err
	}
	type breach struct {
		since   time.Time
		alerted bool
	}
	known := make(map[dayKey]breach, len(rows))
	for _, r := range rows {
		known[dayKey{r.PatientID, r.Date.Time}] = breach{r.Since, r.Alerted}
	}
	// The breaches that begin now, in one statement.
	var begin db.BeginDayBreachesParams
	for _, d := range days {
		if _, has := known[d.dayKey]; d.over && !has {
			begin.PatientIds = append(begin.PatientIds, d.patient)
			begin.Dates = append(begin.Dates, pgtype.Date{Time: d.date, Valid: true})
			begin.SiteIds = append(begin.SiteIds, d.site)
		}
	}
	if len(begin.PatientIds) > 0 {
		begin.OrgID, begin.Since = orgID, now
		if err := q.BeginDayBreaches(ctx, begin); err != nil {
			return err
		}
	}
	for _, d := range days {
		b, has := known[d.dayKey]
		if d.over && !has {
			b.since = now
		}
		switch {
		case d.over && !b.alerted:
			if _, err := alerts.Open(ctx, tx, now, alerts.Alert{
				OrgID: orgID, SiteID: d.site, Kind: kindNutritionRisk, Severity: alerts.Warning, Cause: causeNutrientLimit,
				Message:     fmt.Sprintf("Patient in %s: %s on %s; dietitian review due", where(d.r), d.r.what, d.date.Format(time.DateOnly)),
				SubjectType: "patient", SubjectID: d.patient, Occurrence: b.since,
			}); err != nil {
				return err
			}
		case !d.over && has:
			since, err := q.EndDayBreach(ctx, db.EndDayBreachParams{OrgID: orgID, PatientID: d.patient, Date: pgtype.Date{Time: d.date, Valid: true}})
			if err != nil {
				return err
			}
			if err := alerts.CloseOccurrence(ctx, tx, now, orgID, kindNutritionRisk, causeNutrientLimit, d.patient, since); err != nil {
				return err
			}
		}
	}
	return nil
}

// where is a patient's location as alerts give it: never the name (alerts reach every member
// and the wallboards).
func where(r risk) string {
	w := r.unit
	if r.room != "" {
		w += " " + r.room
	}
	if r.bed != "" {
		w += "-" + r.bed
	}
	if w == "" {
		w = "unknown location"
	}
	return w
}

// dayKeyOf is a stored ticket's day.
func dayKeyOf(patient uuid.UUID, date pgtype.Date) dayKey {
	return dayKey{patient, date.Time}
}
