package main

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The probe model: a cooler holds its range between events, a door opening warms it and it
// recovers, and a failed compressor climbs past the range and toward the kitchen's air.
func TestProbeModel(t *testing.T) {
	start := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	cooler := places[0]
	p := &probe{ext: "probe-1", place: cooler, phase: time.Hour, rng: rand.New(rand.NewPCG(1, 1))}
	for i := range 6 * 60 {
		v := p.at(start.Add(time.Duration(i)*time.Minute), -1, 0)
		if v < cooler.minF || v > cooler.maxF {
			t.Fatalf("minute %d: %v outside %v–%v with nothing happening", i, v, cooler.minF, cooler.maxF)
		}
	}
	at := start.Add(7 * time.Hour)
	quiet := p.at(at, -1, 0)
	open := p.at(at, 5*time.Minute, 5*time.Minute)
	later := p.at(at, 30*time.Minute, 5*time.Minute)
	if open < quiet+cooler.doorRise/2 || later > quiet+1 {
		t.Fatalf("door: quiet %v, just closed after 5 min %v, 25 min later %v", quiet, open, later)
	}
	p.failAt = at
	if v := p.at(at.Add(30*time.Minute), -1, 0); v <= cooler.maxF {
		t.Fatalf("30 minutes after the compressor failed: %v", v)
	}
	if v := p.at(at.Add(10*time.Hour), -1, 0); v != ambientF {
		t.Fatalf("10 hours after: %v, want the kitchen's %v", v, ambientF)
	}
}

// A door opens a few times an hour and stays open one to six minutes.
func TestDoorModel(t *testing.T) {
	d := &door{ext: "door-1", perHour: 3, rng: rand.New(rand.NewPCG(1, 2))}
	start := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	opens, run, longest := 0, 0, 0
	for i := range 24 * 60 {
		open, ago, _ := d.step(start.Add(time.Duration(i)*time.Minute), time.Minute)
		if open && ago == 0 {
			opens++
		}
		if open {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	if opens < 24 || opens > 24*6 || longest > 6 {
		t.Fatalf("a day: %d openings, longest %d minutes", opens, longest)
	}
}
