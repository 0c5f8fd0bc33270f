package trayline

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/quantity"
)

// kindNutritionRisk is the clinical alert (clinical.KindNutritionRisk) the tray line opens with
// its own cause: a planned day over a per-day nutrient limit. The NPO check closes only its own.
const (
	kindNutritionRisk  = "nutrition_risk"
	causeNutrientLimit = "nutrient_limit"
)

// risk is a patient whose planned day breaks a per-day limit.
type risk struct {
	patient               uuid.UUID
	unit, room, bed, what string
}

// dayRisk says whether the patient's planned day (the other day parts' trays and this one's
// items as planned, conflicts included: they stay on the ticket until someone acts) is above a
// per-day maximum, and which. A known part above the maximum is above it whatever is unknown.
func dayRisk(m meal, items []Item) (risk, bool) {
	if !needsDay(m.limits) {
		return risk{}, false
	}
	day := m.dayOther.Plus(sumItems(items, planned))
	for _, l := range m.limits {
		if l.Per != perDay || l.Max == nil {
			continue
		}
		v, _ := day.Get(l.Key)
		if v.Amount.GreaterThan(*l.Max) {
			nut, unit := limitWords(l.Key)
			return risk{what: fmt.Sprintf("planned %s %s%s %s is over %s's %s %s a day", nut, atLeast(v), quantity.Format(v.Amount), unit,
				sourceWords(l.Source), quantity.Format(*l.Max), unit)}, true
		}
	}
	return risk{}, false
}

// openDayRisks opens nutrition_risk (subject the patient) for each risk, once per patient and
// local date: the occurrence is the date's start at the site, and a patient who had one for the
// date, open or resolved, gets no other. Parallel generations may both find the breach; the
// alerts' one-open-per-subject key lets only one open.
func openDayRisks(ctx context.Context, tx pgx.Tx, now time.Time, orgID, siteID uuid.UUID, mealStart time.Time, risks []risk) error {
	if len(risks) == 0 {
		return nil
	}
	occurrence := time.Date(mealStart.Year(), mealStart.Month(), mealStart.Day(), 0, 0, 0, 0, mealStart.Location())
	ids := make([]uuid.UUID, len(risks))
	for i, r := range risks {
		ids[i] = r.patient
	}
	had, err := db.New(tx).NutrientRiskOccurred(ctx, db.NutrientRiskOccurredParams{OrgID: orgID, Occurrence: occurrence, PatientIds: ids})
	if err != nil {
		return err
	}
	for _, r := range risks {
		if containsUUID(had, r.patient) {
			continue
		}
		if _, err := alerts.Open(ctx, tx, now, alerts.Alert{
			OrgID: orgID, SiteID: siteID, Kind: kindNutritionRisk, Severity: alerts.Warning, Cause: causeNutrientLimit,
			Message:     fmt.Sprintf("Patient in %s: %s on %s; dietitian review due", where(r), r.what, occurrence.Format(time.DateOnly)),
			SubjectType: "patient", SubjectID: r.patient, Occurrence: occurrence,
		}); err != nil {
			return err
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

func containsUUID(list []uuid.UUID, id uuid.UUID) bool {
	for _, x := range list {
		if x == id {
			return true
		}
	}
	return false
}
