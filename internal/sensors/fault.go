package sensors

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/quantity"
)

// FaultRun is how many physically impossible readings in a row make a sensor fault: one is a
// glitch on the wire, three is a probe that is broken, shorted or unplugged.
const FaultRun = 3

// The plausible range of what a sensor reads, in its stored unit. A temperature at or below
// absolute zero (−273.15 °C, −459.67 °F: no thermometer reaches it) or above 1000 °C (1832 °F:
// well past a wood-fired oven, the hottest thing in a kitchen) is not a temperature but a fault
// of the probe: a shorted or open thermistor reads such values, and a gateway that cannot read
// its probe may send its sentinel. Relative humidity lies in [0, 100] percent. A door's unit
// carries its state, so a door's reading is never implausible.
var (
	absoluteZeroF = decimal.RequireFromString("-459.67")
	hottestF      = decimal.NewFromInt(1832)
	hundred       = decimal.NewFromInt(100)
)

// implausible says why a reading (value in unit, as sent) cannot be what the sensor measured,
// or "" when it can be.
func implausible(unit api.ReadingUnit, value decimal.Decimal) string {
	sent := sentText(unit, value)
	switch unit {
	case api.ReadingUnitF, api.ReadingUnitC:
		f := stored(unit, value)
		if !f.GreaterThan(absoluteZeroF) {
			return sent + " is not above absolute zero (-459.67 °F, -273.15 °C); a sensor fault, not a temperature"
		}
		if f.GreaterThan(hottestF) {
			return sent + " is above 1832 °F (1000 °C), hotter than any food-service sensor reads; a sensor fault, not a temperature"
		}
	case api.ReadingUnitPercent:
		if value.IsNegative() || value.GreaterThan(hundred) {
			return sent + " is outside 0–100 %; a sensor fault, not a humidity"
		}
	}
	return ""
}

// sentText is a reading as the gateway sent it, for messages: "-300 °C".
func sentText(unit api.ReadingUnit, value decimal.Decimal) string {
	return quantity.Format(value) + " " + unitSymbol(unit)
}

func unitSymbol(unit api.ReadingUnit) string {
	switch unit {
	case api.ReadingUnitF:
		return "°F"
	case api.ReadingUnitC:
		return "°C"
	case api.ReadingUnitPercent:
		return "%"
	}
	return string(unit)
}

// faultReading is a reading refused as implausible: it is not stored, but it counts toward its
// sensor's fault run.
type faultReading struct {
	at   time.Time
	sent string // what the gateway sent, for the alert's message: "-3000 °F"
}

// faults is where a sensor's run of implausible readings stands (sensor_states.fault_*): run of
// them in a row since since, the latest at at.
type faults struct {
	run       int32
	since, at *time.Time
}

// faultEvent is one of a call's readings of a sensor as the fault run sees it: an implausible
// one (refused), or a plausible one this call stored.
type faultEvent struct {
	at          time.Time
	implausible bool
	sent        string
}

// faultAction is what one reading did to the run: nothing, opened the fault (the run reached
// FaultRun), or ended it (a plausible reading after FaultRun or more).
type faultAction int

const (
	faultNone faultAction = iota
	faultOpened
	faultEnded
)

// step takes one reading, in time order, into the run. Only readings later than floor (the
// latest reading that counted, or was judged before this call) move it: a resent implausible
// reading counts once, and a late one from a gateway's buffer (older than a reading already
// taken) is not part of the run that stands now. moved says whether the run changed.
func (f *faults) step(floor *time.Time, e faultEvent) (moved bool, act faultAction) {
	if floor != nil && !e.at.After(*floor) {
		return false, faultNone
	}
	if !e.implausible {
		if f.run == 0 {
			return false, faultNone
		}
		was := f.run
		f.run, f.since = 0, nil
		if was >= FaultRun {
			return true, faultEnded
		}
		return true, faultNone
	}
	at := e.at
	if f.run == 0 {
		f.since = &at
	}
	f.run++
	f.at = &at
	if f.run == FaultRun {
		return true, faultOpened
	}
	return true, faultNone
}

// countFaults runs a call's readings of one sensor (its implausible ones and the plausible ones
// it stored, fresh) through the sensor's fault run, in time order, opening sensor_fault when the
// run reaches FaultRun and closing it when a plausible reading ends the run. The caller holds
// the sensor's state row (st) locked, so calls about the same sensor take turns. It answers the
// run and whether it changed.
func countFaults(ctx context.Context, tx pgx.Tx, now time.Time, v db.SensorView, st db.SensorState, bad []faultReading, fresh []db.InsertReadingsRow) (faults, bool, error) {
	f := faults{run: st.FaultRun, since: st.FaultSince, at: st.FaultAt}
	if len(bad) == 0 && f.run == 0 {
		return f, false, nil // nothing to count and nothing to end: the common case
	}
	events := make([]faultEvent, 0, len(bad)+len(fresh))
	for _, b := range bad {
		events = append(events, faultEvent{at: b.at, implausible: true, sent: b.sent})
	}
	for _, r := range fresh {
		events = append(events, faultEvent{at: r.At})
	}
	// In time order; at the same instant the implausible reading first (the plausible one ends it).
	slices.SortStableFunc(events, func(a, b faultEvent) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return cmp.Compare(boolRank(!a.implausible), boolRank(!b.implausible))
	})
	floor := st.LastAt
	if f.at != nil && (floor == nil || f.at.After(*floor)) {
		floor = f.at
	}
	changed := false
	for _, e := range events {
		moved, act := f.step(floor, e)
		if !moved {
			continue
		}
		changed = true
		at := e.at
		floor = &at
		switch act {
		case faultOpened:
			if _, err := alerts.Open(ctx, tx, now, alerts.Alert{
				OrgID: v.OrgID, SiteID: v.SiteID, Kind: alerts.KindSensorFault, Severity: alerts.Warning,
				Message: faultMessage(v, *f.since, e.sent), SubjectType: "sensor", SubjectID: v.ID, Occurrence: *f.since,
			}); err != nil {
				return f, false, err
			}
		case faultEnded:
			if err := alerts.Close(ctx, tx, now, v.OrgID, alerts.KindSensorFault, v.ID); err != nil {
				return f, false, err
			}
		}
	}
	return f, changed, nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// faultMessage names the sensor, since when (site time) it has read the impossible, and the
// reading that made it a fault.
func faultMessage(v db.SensorView, since time.Time, sent string) string {
	return fmt.Sprintf("%s has sent %d impossible readings in a row since %s (latest %s): check the probe and its wiring",
		subject(v), FaultRun, localTime(v, since), sent)
}
