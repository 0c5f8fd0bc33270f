package sensors

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/quantity"
)

// judge runs a sensor's readings stored after the last one judged through its rule, in time
// order, acting on what they show, and answers where the judging stands for the caller to save
// (nil: nothing moved). The caller holds the lock on the sensor's state row (st).
//
// fresh are the readings this call stored for the sensor, in time order. When they all follow
// the last one judged (a gateway reporting live), they are the readings to judge: every reading
// stored before was judged under the same lock, so none other lies after it, and judging needs
// no read. When the oldest is older than the last one judged (a gateway that sent its current
// reading before flushing its buffer), the judging starts again from the last reading before it
// that left nothing pending (in range, in no excursion), so the late readings are judged in their
// place in time, read back from the table. It does so only while no excursion stands in the way:
// an excursion already recorded (and alerted) is not rewritten, and late readings that would
// change one are logged but not judged. The look back is bounded (replayWindow, cleanLookback,
// replayReadings).
func judge(ctx context.Context, tx pgx.Tx, now time.Time, v db.SensorView, st db.SensorState, fresh []db.InsertReadingsRow) (*savedState, error) {
	if len(fresh) == 0 {
		return nil, nil // nothing new stored (duplicates only): every stored reading was judged
	}
	q := db.New(tx)
	r := ruleOf(v)
	s := state{phase: st.Phase, lastAt: st.LastAt, lastValue: st.LastValue, outSince: st.OutSince, inSince: st.InSince, peak: st.Peak, excursionID: st.ExcursionID}
	live := s.lastAt == nil || fresh[0].At.After(*s.lastAt)
	if !live && r.judged() {
		from, ok, err := replayFrom(ctx, q, v.ID, r, fresh[0].At, *s.lastAt)
		if err != nil {
			return nil, err
		}
		if ok {
			s = state{phase: phaseInRange}
			if from != nil {
				s.lastAt, s.lastValue = &from.At, &from.Value
			}
		}
	}
	moved := false
	apply := func(at time.Time, value decimal.Decimal) error {
		moved = true
		if !r.judged() {
			s.lastAt, s.lastValue = &at, &value
			return nil
		}
		open := s.excursionID
		t, changed := r.step(&s, at, value)
		var err error
		switch {
		case changed && t.Opened:
			s.excursionID, err = openExcursion(ctx, tx, now, v, r, t)
		case changed && t.Resolved && open != nil:
			err = resolveExcursion(ctx, tx, now, v, r, *open, t)
		}
		return err
	}
	if live {
		for i := range fresh {
			if err := apply(fresh[i].At, fresh[i].Value); err != nil {
				return nil, err
			}
		}
	} else {
		after := time.Time{}
		if s.lastAt != nil {
			after = *s.lastAt
		}
		for {
			rows, err := q.ReadingsAfter(ctx, db.ReadingsAfterParams{SensorID: v.ID, After: after, MaxRows: judgeSlice})
			if err != nil {
				return nil, err
			}
			for _, row := range rows {
				if err := apply(row.At, row.Value); err != nil {
					return nil, err
				}
			}
			if len(rows) < judgeSlice {
				break
			}
			after = rows[len(rows)-1].At
		}
	}
	if !moved {
		return nil, nil
	}
	return &savedState{SensorID: v.ID, Phase: s.phase, LastAt: s.lastAt, LastValue: s.lastValue,
		OutSince: s.outSince, InSince: s.inSince, Peak: s.peak, ExcursionID: s.excursionID}, nil
}

// savedState is a sensor's judging state, and its fault run, as SaveSensorStates takes it
// (JSON; decimals as strings).
type savedState struct {
	SensorID    uuid.UUID        `json:"sensor_id"`
	Phase       string           `json:"phase"`
	LastAt      *time.Time       `json:"last_at"`
	LastValue   *decimal.Decimal `json:"last_value"`
	OutSince    *time.Time       `json:"out_since"`
	InSince     *time.Time       `json:"in_since"`
	Peak        *decimal.Decimal `json:"peak"`
	ExcursionID *uuid.UUID       `json:"excursion_id"`
	FaultRun    int32            `json:"fault_run"`
	FaultSince  *time.Time       `json:"fault_since"`
	FaultAt     *time.Time       `json:"fault_at"`
}

// unjudged is the state st saved as it stands: for a sensor whose fault run moved while
// judging did not (its readings this call were all implausible).
func unjudged(st db.SensorState) *savedState {
	return &savedState{SensorID: st.SensorID, Phase: st.Phase, LastAt: st.LastAt, LastValue: st.LastValue,
		OutSince: st.OutSince, InSince: st.InSince, Peak: st.Peak, ExcursionID: st.ExcursionID}
}

const (
	// replayWindow is how far behind the last judged reading a late reading may be and still be
	// judged in its place (a week of one-minute readings is read again at most).
	replayWindow = 7 * 24 * time.Hour
	// cleanLookback is how many readings before a late one the judging looks through for one
	// that left nothing pending; out of range for all of them, it does not judge the late readings.
	cleanLookback = 1440
	// replayReadings bounds the readings one call judges again (a week of readings every 30
	// seconds); a sensor reporting more often than that is judged again over a shorter span only.
	replayReadings = 20160
)

// replayFrom finds where judging may start again to take in readings from earliest on: the
// last reading before earliest that is in range and in no excursion (nil: the sensor's first
// reading, when none is older). ok is false when late readings cannot be judged in their place.
func replayFrom(ctx context.Context, q *db.Queries, sensorID uuid.UUID, r rule, earliest, lastJudged time.Time) (from *db.ReadingsBeforeRow, ok bool, err error) {
	if lastJudged.Sub(earliest) > replayWindow {
		return nil, false, nil
	}
	rows, err := q.ReadingsBefore(ctx, db.ReadingsBeforeParams{SensorID: sensorID, Before: earliest, MaxRows: cleanLookback})
	if err != nil {
		return nil, false, err
	}
	for i := range rows {
		if !r.out(rows[i].Value) {
			from = &rows[i]
			break
		}
	}
	after := time.Time{} // no reading before: from the sensor's first
	switch {
	case from != nil:
		after = from.At
	case len(rows) > 0:
		return nil, false, nil // out of range as far back as it looks
	}
	blocked, err := q.ExcursionsAfter(ctx, db.ExcursionsAfterParams{SensorID: sensorID, After: after})
	if err != nil || blocked {
		return nil, false, err
	}
	n, err := q.CountReadingsAfter(ctx, db.CountReadingsAfterParams{SensorID: sensorID, After: after, MaxRows: replayReadings + 1})
	if err != nil || n > replayReadings {
		return nil, false, err
	}
	return from, true, nil
}

func alertKind(v db.SensorView) string {
	if v.Kind == kindDoor {
		return alerts.KindDoorOpen
	}
	return alerts.KindTemperatureExcursion
}

// openExcursion records the excursion (once per sensor and start) and opens its alert, which
// fires alert.created and, through the alerts hook, makes the corrective task.
func openExcursion(ctx context.Context, tx pgx.Tx, now time.Time, v db.SensorView, r rule, t transition) (*uuid.UUID, error) {
	q := db.New(tx)
	id, err := q.InsertExcursion(ctx, db.InsertExcursionParams{
		ID: uuid.Must(uuid.NewV7()), OrgID: v.OrgID, SensorID: v.ID, Kind: alertKind(v), StartedAt: t.StartedAt,
		ConfirmedAt: t.ConfirmedAt, Peak: t.Peak, MinTempF: r.min, MaxTempF: r.max, Now: now,
	})
	if pg.IsNoRows(err) {
		return nil, nil // recorded before: its alert was opened then
	}
	if err != nil {
		return nil, err
	}
	severity := alerts.Critical
	if r.door {
		severity = alerts.Warning
	}
	alertID, opened, err := alerts.OpenID(ctx, tx, now, alerts.Alert{
		OrgID: v.OrgID, SiteID: v.SiteID, Kind: alertKind(v), Severity: severity, Message: openMessage(v, r, t),
		SubjectType: "sensor", SubjectID: v.ID, Occurrence: t.StartedAt,
	})
	if err != nil {
		return nil, err
	}
	if opened {
		if err := q.SetExcursionAlert(ctx, db.SetExcursionAlertParams{ID: id, AlertID: &alertID}); err != nil {
			return nil, err
		}
	}
	return &id, nil
}

// resolveExcursion records how the excursion ended and closes its alert with a message saying
// how long it lasted and how bad it got.
func resolveExcursion(ctx context.Context, tx pgx.Tx, now time.Time, v db.SensorView, r rule, id uuid.UUID, t transition) error {
	ex, err := db.New(tx).EndExcursion(ctx, db.EndExcursionParams{ID: id, EndedAt: &t.EndedAt, ResolvedAt: &t.ResolvedAt, Peak: t.Peak})
	if pg.IsNoRows(err) {
		return nil
	}
	if err != nil || ex.AlertID == nil {
		return err
	}
	_, err = alerts.CloseWith(ctx, tx, now, v.OrgID, *ex.AlertID, resolvedMessage(v, r, t))
	return err
}

// subject names the sensor and where it is: "Walk-in probe (Walk-in cooler)".
func subject(v db.SensorView) string {
	switch {
	case v.EquipmentName != nil:
		return fmt.Sprintf("%s (%s)", v.Name, *v.EquipmentName)
	case v.LocationName != nil:
		return fmt.Sprintf("%s (%s)", v.Name, *v.LocationName)
	}
	return v.Name
}

// localTime writes t in the site's time zone.
func localTime(v db.SensorView, t time.Time) string {
	if loc, err := time.LoadLocation(v.Timezone); err == nil {
		t = t.In(loc)
	}
	return t.Format("Jan 2 15:04")
}

// limit says which side of the range the peak is on: "above 41 °F".
func limit(r rule, t transition) string {
	if r.max != nil && t.Peak.GreaterThan(*r.max) {
		return "above " + quantity.Format(*r.max) + " °F"
	}
	if r.min != nil {
		return "below " + quantity.Format(*r.min) + " °F"
	}
	return "out of range"
}

func openMessage(v db.SensorView, r rule, t transition) string {
	if r.door {
		return fmt.Sprintf("%s open since %s", subject(v), localTime(v, t.StartedAt))
	}
	return fmt.Sprintf("%s %s since %s, worst %s °F", subject(v), limit(r, t), localTime(v, t.StartedAt), quantity.Format(t.Peak))
}

func resolvedMessage(v db.SensorView, r rule, t transition) string {
	minutes := int(t.EndedAt.Sub(t.StartedAt).Round(time.Minute) / time.Minute)
	if r.door {
		return fmt.Sprintf("%s was open from %s to %s (%d min)", subject(v), localTime(v, t.StartedAt), localTime(v, t.EndedAt), minutes)
	}
	return fmt.Sprintf("%s was %s from %s to %s (%d min), peak %s °F", subject(v), limit(r, t),
		localTime(v, t.StartedAt), localTime(v, t.EndedAt), minutes, quantity.Format(t.Peak))
}
