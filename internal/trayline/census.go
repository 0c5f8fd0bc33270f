package trayline

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/kitchen"
)

// CensusHook follows the census into queued tickets: a transfer moves the ticket's unit, room
// and bed; a new diet order or allergy re-checks its items and marks any conflict. Tickets past
// queued are left alone. Installed with clinical.SetCensusHook.
type CensusHook struct{ Clock clock.Clock }

// PatientsChanged runs in the ingest's transaction. A body whose patients have no queued
// ticket costs one indexed statement.
func (c CensusHook) PatientsChanged(ctx context.Context, tx pgx.Tx, orgID uuid.UUID, patientIDs []uuid.UUID) error {
	q := db.New(tx)
	tickets, err := q.QueuedTicketsOfPatients(ctx, db.QueuedTicketsOfPatientsParams{OrgID: orgID, PatientIds: patientIDs})
	if err != nil {
		return err
	}
	// Their planned days are judged again after the re-check: a diet order that changes a
	// limit, or a discharge, may end a breach or begin one.
	breached, err := q.BreachedDaysOf(ctx, db.BreachedDaysOfParams{OrgID: orgID, PatientIds: patientIDs})
	if err != nil || (len(tickets) == 0 && len(breached) == 0) {
		return err
	}
	var judge []dayKey
	for _, t := range tickets {
		judge = append(judge, dayKeyOf(t.PatientID, t.Date))
	}
	for _, b := range breached {
		judge = append(judge, dayKeyOf(b.PatientID, b.Date))
	}
	judge = uniqueDays(judge)
	if err := lockDays(ctx, q, orgID, judge); err != nil {
		return err
	}
	now := c.Clock.Now()
	if len(tickets) == 0 {
		return judgeDays(ctx, tx, now, orgID, judge)
	}
	ids := make([]uuid.UUID, 0, len(tickets))
	for _, t := range tickets {
		if !slices.Contains(ids, t.PatientID) {
			ids = append(ids, t.PatientID)
		}
	}
	pats, err := q.TrayPatientFacts(ctx, db.TrayPatientFactsParams{OrgID: orgID, Ids: ids})
	if err != nil {
		return err
	}
	byID := make(map[uuid.UUID]db.TrayPatientFactsRow, len(pats))
	for _, p := range pats {
		byID[p.ID] = p
	}
	rules, err := loadRules(ctx, q, orgID)
	if err != nil {
		return err
	}
	items := make(map[uuid.UUID][]Item, len(tickets))
	var recipeIDs []uuid.UUID
	for _, t := range tickets {
		var its []Item
		if err := json.Unmarshal(t.Items, &its); err != nil {
			return err
		}
		items[t.ID] = its
		for _, it := range its {
			recipeIDs = append(recipeIDs, it.RecipeID)
		}
	}
	facts, err := kitchen.ReadRecipeFacts(ctx, q, orgID, recipeIDs)
	if err != nil {
		return err
	}
	ports := portionsOf(facts)
	days := map[time.Time]dayTrays{} // by date, read for the patients held to a per-day limit
	var sites []uuid.UUID
	for _, t := range tickets {
		p, ok := byID[t.PatientID]
		if !ok || p.EncounterID == nil || p.SiteID != t.SiteID {
			continue // discharged or moved away: the next generation cancels the ticket
		}
		pt := patientOf(p.Allergies, p.DietOrders)
		m := meal{p: pt, rules: rules, limits: limitsOf(pt, rules), facts: facts, portions: ports, dayOther: kitchen.NoTotals()}
		if needsDay(m.limits) {
			d, ok := days[t.Date.Time]
			if !ok {
				if d, err = readDayTrays(ctx, q, orgID, t.Date.Time, ids); err != nil {
					return err
				}
				days[t.Date.Time] = d
			}
			m.dayOther = d.others(t.PatientID, t.DayPart)
		}
		checked, conflict := m.recheck(items[t.ID])
		raw, err := json.Marshal(checked)
		if err != nil {
			return err
		}
		if err := q.RecheckTrayTicket(ctx, db.RecheckTrayTicketParams{OrgID: orgID, ID: t.ID, Unit: p.Unit, Room: p.Room, Bed: p.Bed,
			Diets: pt.Diets, Allergens: pt.Allergens, Texture: texture(pt, rules), Items: raw, Conflict: conflict, UpdatedAt: now}); err != nil {
			return err
		}
		if !slices.Contains(sites, t.SiteID) {
			sites = append(sites, t.SiteID)
		}
	}
	for _, s := range sites {
		if err := hintSite(ctx, tx, orgID, s); err != nil {
			return err
		}
	}
	return judgeDays(ctx, tx, now, orgID, judge)
}

// uniqueDays leaves each day once, in order.
func uniqueDays(days []dayKey) []dayKey {
	out := days[:0:0]
	for _, d := range days {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}
