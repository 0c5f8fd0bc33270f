package kitchen

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/quantity"
)

// The two-stage cooling rule: from 135 °F to 70 °F within 2 hours, then to 41 °F within 4 more.
var (
	coolStart  = decimal.NewFromInt(135)
	coolStage1 = decimal.NewFromInt(70)
	coolStage2 = decimal.NewFromInt(41)
)

const (
	coolStage1Window = 2 * time.Hour
	coolStage2Window = 4 * time.Hour
)

// Reading is one temperature check.
type Reading struct {
	At    time.Time
	TempF decimal.Decimal
}

// CoolingBreach applies the two-stage cooling rule to a run's readings (oldest first) as of the
// last one. Cooling starts at the first reading at or below 135 °F; stage 1 is missed when no
// reading reached 70 °F within 2 hours of it, stage 2 when none reached 41 °F within 4 hours of
// reaching 70 °F. It returns the stage missed (0: none) and what happened.
func CoolingBreach(readings []Reading) (int, string) {
	if len(readings) == 0 {
		return 0, ""
	}
	now := readings[len(readings)-1].At
	i0 := -1
	for i, r := range readings {
		if r.TempF.LessThanOrEqual(coolStart) {
			i0 = i
			break
		}
	}
	if i0 < 0 {
		return 0, ""
	}
	t0 := readings[i0].At
	i1 := -1
	for i := i0; i < len(readings); i++ {
		if readings[i].TempF.LessThanOrEqual(coolStage1) {
			i1 = i
			break
		}
	}
	if i1 < 0 {
		if now.Sub(t0) > coolStage1Window {
			return 1, fmt.Sprintf("cooling stage 1 missed: %s °F after %s, not 70 °F within 2 h of 135 °F",
				quantity.Format(readings[len(readings)-1].TempF), now.Sub(t0).Round(time.Minute))
		}
		return 0, ""
	}
	t1 := readings[i1].At
	if t1.Sub(t0) > coolStage1Window {
		return 1, fmt.Sprintf("cooling stage 1 missed: 70 °F reached after %s, not within 2 h of 135 °F", t1.Sub(t0).Round(time.Minute))
	}
	i2 := -1
	for i := i1; i < len(readings); i++ {
		if readings[i].TempF.LessThanOrEqual(coolStage2) {
			i2 = i
			break
		}
	}
	if i2 < 0 {
		if now.Sub(t1) > coolStage2Window {
			return 2, fmt.Sprintf("cooling stage 2 missed: %s °F after %s, not 41 °F within 4 h of 70 °F",
				quantity.Format(readings[len(readings)-1].TempF), now.Sub(t1).Round(time.Minute))
		}
		return 0, ""
	}
	if d := readings[i2].At.Sub(t1); d > coolStage2Window {
		return 2, fmt.Sprintf("cooling stage 2 missed: 41 °F reached %s after 70 °F, not within 4 h", d.Round(time.Minute))
	}
	return 0, ""
}

// checkTemperature applies the recipe's critical limits to a temperature just recorded on the
// run: while in progress the cook minimum, while holding the hot-hold minimum and cold-hold
// maximum, and once done after holding the two-stage cooling rule. A breach opens a
// temperature_excursion alert about the run (once while it is open).
func (h *Handlers) checkTemperature(ctx context.Context, tx pgx.Tx, q *db.Queries, r db.ProductionRun, temp decimal.Decimal, now time.Time) error {
	rows, err := q.GetPinnedVersions(ctx, db.GetPinnedVersionsParams{OrgID: r.OrgID, Ids: []uuidT{r.RecipeID}, Versions: []int32{r.RecipeVersion}})
	if err != nil || len(rows) == 0 {
		return err
	}
	b, err := decodeBody(rows[0].Body)
	if err != nil {
		return err
	}
	l := b.CriticalLimits
	msg := ""
	t := quantity.Format(temp)
	switch r.Status {
	case "in_progress":
		if l.CookMinTempF != nil && temp.LessThan(*l.CookMinTempF) {
			msg = fmt.Sprintf("%s at %s °F, below the cook minimum of %s °F", b.Name, t, quantity.Format(*l.CookMinTempF))
		}
	case "holding":
		if l.HoldHotMinTempF != nil && temp.LessThan(*l.HoldHotMinTempF) {
			msg = fmt.Sprintf("%s at %s °F, below the hot-hold minimum of %s °F", b.Name, t, quantity.Format(*l.HoldHotMinTempF))
		}
		if l.HoldColdMaxTempF != nil && temp.GreaterThan(*l.HoldColdMaxTempF) {
			msg = fmt.Sprintf("%s at %s °F, above the cold-hold maximum of %s °F", b.Name, t, quantity.Format(*l.HoldColdMaxTempF))
		}
	case "done":
		if r.HoldingSince == nil {
			break
		}
		events, err := q.ListRunEvents(ctx, db.ListRunEventsParams{OrgID: r.OrgID, RunID: r.ID})
		if err != nil {
			return err
		}
		var readings []Reading
		for _, e := range events {
			if e.Type != "temp_check" || e.At.Before(*r.HoldingSince) {
				continue
			}
			var d struct {
				TempF string `json:"tempF"`
			}
			_ = json.Unmarshal(e.Data, &d)
			if v, err := decimal.NewFromString(d.TempF); err == nil {
				readings = append(readings, Reading{At: e.At, TempF: v})
			}
		}
		if stage, what := CoolingBreach(readings); stage > 0 {
			msg = fmt.Sprintf("%s: %s", b.Name, what)
		}
	}
	if msg == "" {
		return nil
	}
	_, err = alerts.Open(ctx, tx, now, alerts.Alert{OrgID: r.OrgID, SiteID: r.SiteID, Kind: alerts.KindTemperatureExcursion, Severity: alerts.Critical,
		Message: msg, SubjectType: "production_run", SubjectID: r.ID, Occurrence: now})
	return err
}
