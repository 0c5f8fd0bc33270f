package sensors

import (
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// Phases of a sensor's evaluation (sensor_states.phase).
const (
	phaseInRange    = "in_range"   // nothing pending
	phasePending    = "pending"    // out of range since outSince, not yet for the hold
	phaseExcursion  = "excursion"  // out of range for the hold: an excursion is open
	phaseRecovering = "recovering" // excursion open, back in range since inSince
)

// rule is how a sensor's readings are judged: a door is out of range while open (1); a
// temperature below min or above max (either may be absent). hold is excursionMinutes: how long
// a reading must stay out of range before it counts, and back in range before it is over.
// Humidity sensors have no rule: their readings are logged, not judged.
type rule struct {
	door     bool
	min, max *decimal.Decimal
	hold     time.Duration
}

var one = decimal.NewFromInt(1)

func (r rule) judged() bool { return r.door || r.min != nil || r.max != nil }

func (r rule) out(v decimal.Decimal) bool {
	if r.door {
		return v.Equal(one)
	}
	return r.min != nil && v.LessThan(*r.min) || r.max != nil && v.GreaterThan(*r.max)
}

// deviation is how far v lies outside the range (0 inside it).
func (r rule) deviation(v decimal.Decimal) decimal.Decimal {
	d := decimal.Zero
	if r.max != nil && v.GreaterThan(*r.max) {
		d = v.Sub(*r.max)
	}
	if r.min != nil && v.LessThan(*r.min) {
		d = r.min.Sub(v)
	}
	return d
}

// state is where a sensor's evaluation stands after its latest evaluated reading.
type state struct {
	phase       string
	lastAt      *time.Time
	lastValue   *decimal.Decimal
	outSince    *time.Time
	inSince     *time.Time
	peak        *decimal.Decimal
	excursionID *uuid.UUID
}

// transition is what a reading changed beyond the state: an excursion that opened (it has been
// out of range since StartedAt, as this reading at ConfirmedAt shows) or one that is over (back
// in range at EndedAt, still at ResolvedAt).
type transition struct {
	Opened, Resolved bool
	StartedAt        time.Time
	ConfirmedAt      time.Time
	EndedAt          time.Time
	ResolvedAt       time.Time
	Peak             decimal.Decimal
}

// step judges one reading, later than every reading judged before it, and moves s. A single
// reading out of range only starts the clock: the excursion opens once readings have stayed out
// for the hold, and closes once they have stayed back in range for as long.
func (r rule) step(s *state, at time.Time, v decimal.Decimal) (transition, bool) {
	s.lastAt, s.lastValue = &at, &v
	out := r.out(v)
	var t transition
	switch s.phase {
	case phasePending:
		if !out {
			*s = state{phase: phaseInRange, lastAt: s.lastAt, lastValue: s.lastValue}
			return t, false
		}
		r.worst(s, v)
		if at.Sub(*s.outSince) >= r.hold {
			s.phase = phaseExcursion
			return transition{Opened: true, StartedAt: *s.outSince, ConfirmedAt: at, Peak: *s.peak}, true
		}
	case phaseExcursion, phaseRecovering:
		if out {
			s.phase, s.inSince = phaseExcursion, nil
			r.worst(s, v)
			return t, false
		}
		if s.phase == phaseExcursion {
			s.phase, s.inSince = phaseRecovering, &at
		}
		if at.Sub(*s.inSince) >= r.hold {
			t = transition{Resolved: true, StartedAt: *s.outSince, EndedAt: *s.inSince, ResolvedAt: at, Peak: *s.peak}
			*s = state{phase: phaseInRange, lastAt: s.lastAt, lastValue: s.lastValue}
			return t, true
		}
	default: // in range
		if out {
			s.phase, s.outSince, s.peak = phasePending, &at, &v
		}
	}
	return t, false
}

// worst keeps in s.peak the value furthest outside the range since the sensor left it.
func (r rule) worst(s *state, v decimal.Decimal) {
	if s.peak == nil || r.deviation(v).GreaterThan(r.deviation(*s.peak)) {
		s.peak = &v
	}
}
