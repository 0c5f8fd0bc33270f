package main

import (
	"math"
	"math/rand/v2"
	"time"
)

// place is a storage location the simulator sets up, with its range and how its probes behave.
type place struct {
	name        string
	minF, maxF  float64
	setpointF   float64
	defrostEach time.Duration // 0: no defrost cycle
	defrostFor  time.Duration
	defrostRise float64 // °F above the setpoint at the defrost's height
	doorRise    float64 // °F a door opening adds at most
}

var places = []place{
	{name: "Walk-in cooler", minF: 33, maxF: 41, setpointF: 37, defrostEach: 6 * time.Hour, defrostFor: 20 * time.Minute, defrostRise: 3, doorRise: 6},
	{name: "Reach-in cooler", minF: 33, maxF: 41, setpointF: 36, defrostEach: 8 * time.Hour, defrostFor: 15 * time.Minute, defrostRise: 2.5, doorRise: 4},
	{name: "Walk-in freezer", minF: -10, maxF: 0, setpointF: -5, defrostEach: 6 * time.Hour, defrostFor: 25 * time.Minute, defrostRise: 4.5, doorRise: 8},
}

// probe is one simulated temperature probe: its place's setpoint plus a slow random drift, the
// defrost cycle (a smooth rise and fall), the door openings of its gateway (a spike that decays),
// noise, and from failAt on (a failing compressor) a steady climb toward the kitchen's air.
type probe struct {
	ext    string
	place  place
	phase  time.Duration // offset of its defrost cycle, so a fleet does not defrost at once
	drift  float64
	failAt time.Time // zero: the compressor holds
	rng    *rand.Rand
}

// ambientF is the kitchen's air: where a cooler without a compressor ends up.
const ambientF = 72.0

// failRate is how fast a failed compressor's box warms, °F a minute.
const failRate = 0.25

// at is the probe's temperature at t, given how long ago its door last opened (doorAgo < 0: not
// recently) and for how long it stood open.
func (p *probe) at(t time.Time, doorAgo, doorOpen time.Duration) float64 {
	p.drift += (p.rng.Float64() - 0.5) * 0.1
	p.drift = math.Max(-1, math.Min(1, p.drift))
	v := p.place.setpointF + p.drift + (p.rng.Float64()-0.5)*0.3
	if p.place.defrostEach > 0 {
		in := (time.Duration(t.Unix())*time.Second + p.phase) % p.place.defrostEach
		if in < p.place.defrostFor {
			v += p.place.defrostRise * math.Sin(math.Pi*float64(in)/float64(p.place.defrostFor))
		}
	}
	if doorAgo >= 0 {
		// Warms while open, then decays back with a 3-minute time constant.
		open := math.Min(doorOpen.Minutes(), 5) / 5
		after := math.Max(0, doorAgo.Minutes()-doorOpen.Minutes())
		v += p.place.doorRise * open * math.Exp(-after/3)
	}
	if !p.failAt.IsZero() && t.After(p.failAt) {
		warmed := t.Sub(p.failAt).Minutes() * failRate
		v = math.Min(ambientF, v+warmed)
	}
	return math.Round(v*10) / 10
}

// door is a gateway's walk-in door: opened a few times an hour (a delivery, a cook fetching
// stock) for one to six minutes.
type door struct {
	ext      string
	openedAt time.Time
	openFor  time.Duration
	perHour  float64
	rng      *rand.Rand
}

// step moves the door to t (one step per reading interval) and says whether it is open, how
// long ago it last opened (−1: not within the last 30 minutes) and for how long.
func (d *door) step(t time.Time, every time.Duration) (open bool, ago, openFor time.Duration) {
	if !d.openedAt.IsZero() && t.Sub(d.openedAt) < d.openFor {
		return true, t.Sub(d.openedAt), d.openFor
	}
	justClosed := !d.openedAt.IsZero() && t.Sub(d.openedAt) < d.openFor+every
	if !justClosed && d.rng.Float64() < d.perHour*every.Hours() {
		d.openedAt, d.openFor = t, time.Duration(1+d.rng.IntN(6))*time.Minute
		return true, 0, d.openFor
	}
	if !d.openedAt.IsZero() && t.Sub(d.openedAt) < 30*time.Minute {
		return false, t.Sub(d.openedAt), d.openFor
	}
	return false, -1, 0
}
