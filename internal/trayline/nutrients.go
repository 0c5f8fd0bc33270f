package trayline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/kitchen"
	"github.com/sous-app/sous/internal/nutrition"
	"github.com/sous-app/sous/internal/quantity"
)

// The nutrient check. A tray is held to every nutrient limit of the patient's diets and orders:
// per meal over the tray's items, per day over every tray of the patient's local date (other day
// parts as planned, plus this tray). An item whose portion would take a total above a maximum
// conflicts (nutrient_limit); an item whose value a limit needs is not known is `unknown`
// (nutrient_unknown), never `ok`: an unknown contribution could be anything. A known part that
// already exceeds a maximum conflicts even when the rest is unknown. Minimums are judged on the
// ticket's totals, since no single item is below them.

// planned says whether an item is on the tray as planned: everything but a refused item (left
// off). A conflicting item stays on the ticket until someone changes it, so the planned day
// counts it.
func planned(it Item) bool { return it.Check != checkRefused }

// sumItems sums the stored nutrients of the items keep accepts.
func sumItems(items []Item, keep func(Item) bool) kitchen.Totals {
	t := kitchen.NoTotals()
	for _, it := range items {
		if keep(it) {
			t = t.Plus(itemTotals(it))
		}
	}
	return t
}

// itemTotals are an item's stored nutrients; an item stored before nutrients were kept is
// unknown in every one.
func itemTotals(it Item) kitchen.Totals {
	return it.Nutrients.Totals()
}

// nutrientReasons checks one item (its portion) against the limits, the meal so far (served
// items) and the rest of the patient's day (the other day parts' trays).
func nutrientReasons(limits []limit, name string, item, meal, dayOther kitchen.Totals) (conflicts, unknowns []reason) {
	for _, l := range limits {
		if l.Max == nil {
			continue
		}
		v, _ := item.Get(l.Key)
		before, _ := meal.Get(l.Key)
		scope := "meal"
		if l.Per == perDay {
			o, _ := dayOther.Get(l.Key)
			before, scope = before.Plus(o), "day"
		}
		after := before.Plus(v)
		nut, unit := limitWords(l.Key)
		switch {
		case after.Amount.GreaterThan(*l.Max):
			conflicts = append(conflicts, reason{codeNutrientLimit, fmt.Sprintf("%s brings the %s's %s to %s%s %s, over %s's %s %s a %s", name, scope, nut,
				atLeast(after), quantity.Format(after.Amount), unit, sourceWords(l.Source), quantity.Format(*l.Max), unit, l.Per)})
		case !v.Complete:
			unknowns = append(unknowns, reason{codeNutrientUnknown, fmt.Sprintf("%s's %s is not known; %s allows %s %s a %s at most", name, nut,
				sourceWords(l.Source), quantity.Format(*l.Max), unit, l.Per)})
		}
	}
	return conflicts, unknowns
}

// atLeast prefixes a total that is a lower bound.
func atLeast(v nutrition.Value) string {
	if v.Complete {
		return ""
	}
	return "at least "
}

// limitCheck is one limit and where the tray or the planned day stands (TrayNutrientCheck).
type limitCheck struct {
	Nutrient string  `json:"nutrient"`
	Per      string  `json:"per"`
	Min      *string `json:"min,omitempty"`
	Max      *string `json:"max,omitempty"`
	Source   string  `json:"source"`
	Total    string  `json:"total"`
	Complete bool    `json:"complete"`
	Status   string  `json:"status"`
}

// limitChecks judges the tray (per meal) and the planned day (per day) against every limit, and
// lists the nutrients whose totals a limit needs but are not known.
func limitChecks(limits []limit, tray, day kitchen.Totals) ([]limitCheck, []string) {
	out := make([]limitCheck, 0, len(limits))
	var unknown []string
	for _, l := range limits {
		t := tray
		if l.Per == perDay {
			t = day
		}
		v, _ := t.Get(l.Key)
		c := limitCheck{Nutrient: l.Key, Per: l.Per, Source: l.Source, Total: quantity.Format(v.Amount), Complete: v.Complete, Status: "ok"}
		if l.Min != nil {
			s := quantity.Format(*l.Min)
			c.Min = &s
		}
		if l.Max != nil {
			s := quantity.Format(*l.Max)
			c.Max = &s
		}
		switch {
		case l.Max != nil && v.Amount.GreaterThan(*l.Max):
			c.Status = "over" // a lower bound already above: over whatever is unknown
		case !v.Complete:
			c.Status = "unknown"
			if !containsString(unknown, l.Key) {
				unknown = append(unknown, l.Key)
			}
		case l.Min != nil && v.Amount.LessThan(*l.Min):
			c.Status = "under"
		}
		out = append(out, c)
	}
	return out, unknown
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// dayTrays are the planned nutrients of patients' trays of one date, by patient and day part.
type dayTrays map[uuid.UUID]map[string]kitchen.Totals

// readDayTrays reads the patients' trays of a date (cancelled ones left out).
func readDayTrays(ctx context.Context, q *db.Queries, orgID uuid.UUID, date time.Time, patients []uuid.UUID) (dayTrays, error) {
	out := dayTrays{}
	if len(patients) == 0 {
		return out, nil
	}
	rows, err := q.PatientDayItems(ctx, db.PatientDayItemsParams{OrgID: orgID, Date: pgtype.Date{Time: date, Valid: true}, PatientIds: patients})
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		var items []Item
		if err := json.Unmarshal(r.Items, &items); err != nil {
			return nil, err
		}
		if out[r.PatientID] == nil {
			out[r.PatientID] = map[string]kitchen.Totals{}
		}
		out[r.PatientID][r.DayPart] = sumItems(items, planned)
	}
	return out, nil
}

// others sums a patient's trays of the day but dayPart's.
func (d dayTrays) others(patient uuid.UUID, dayPart string) kitchen.Totals {
	t := kitchen.NoTotals()
	for dp, x := range d[patient] {
		if !strings.EqualFold(dp, dayPart) {
			t = t.Plus(x)
		}
	}
	return t
}

// needsDay says whether any limit sums over the day (only then is the day read).
func needsDay(limits []limit) bool {
	for _, l := range limits {
		if l.Per == perDay {
			return true
		}
	}
	return false
}
