package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// maxRecovery is how soon after the promotion Sous must serve writes again.
const maxRecovery = 5 * time.Second

// heldFor is how long a failed request must have waited to count as held: a database that is
// known to be gone answers 503 at once, so a failure that took this long waited on a timeout
// (a frozen server's, a connection attempt's, or the request's deadline).
const heldFor = time.Second

// counts of one kind of request.
type counts struct {
	ok, unavailable, other int
	held                   int // failures (503 or other) answered after heldFor or more
}

func (c counts) String() string {
	return fmt.Sprintf("%d ok/%d 503/%d other/%d held", c.ok, c.unavailable, c.other, c.held)
}

// result is what one scenario measured.
type result struct {
	name     string
	promoted time.Duration // from the fault to the new primary taking writes
	outage   time.Duration // the longest time without a successful write or HL7 batch
	recovery time.Duration // from the promotion to the first success after the last failure
	hint     time.Duration // from the promotion to a hint on the board socket; <0: none
	byKind   map[kind]counts
	lost     int
	problems []string
}

// analyze reads the samples of a scenario: those that started in [from, to). The recovery is
// measured on the requests that started before healed (the old primary, once back, may refuse
// a few while it is demoted, which is no longer the failover).
func analyze(samples []sample, fault, promoted, healed time.Time) (outage, recovery time.Duration, byKind map[kind]counts) {
	byKind = map[kind]counts{}
	var okEnds []time.Time
	var lastFailure time.Time
	for _, s := range samples {
		c := byKind[s.kind]
		switch {
		case s.ok():
			c.ok++
			if s.kind != kindCast {
				okEnds = append(okEnds, s.end)
			}
		case s.status == 503:
			c.unavailable++
		default:
			c.other++
		}
		if !s.ok() && s.end.Sub(s.start) >= heldFor {
			c.held++
		}
		byKind[s.kind] = c
		if !s.ok() && s.kind != kindCast && s.start.Before(healed) && s.start.After(lastFailure) {
			lastFailure = s.start
		}
	}
	slices.SortFunc(okEnds, func(a, b time.Time) int { return a.Compare(b) })
	prev := fault
	for _, e := range okEnds {
		if e.Before(fault) {
			continue
		}
		outage = max(outage, e.Sub(prev))
		prev = e
	}
	// Failures with no success after them are an outage too, up to the heal.
	for _, s := range samples {
		if s.kind != kindCast && s.start.Before(healed) && s.end.After(prev) {
			outage = max(outage, s.end.Sub(prev))
		}
	}
	// Recovered: the first success that ended after the promotion and started after the last
	// failure.
	recovered := time.Time{}
	for _, s := range samples {
		if !s.ok() || s.kind == kindCast || s.end.Before(promoted) || s.start.Before(lastFailure) {
			continue
		}
		if recovered.IsZero() || s.end.Before(recovered) {
			recovered = s.end
		}
	}
	if recovered.IsZero() {
		return outage, -1, byKind
	}
	return outage, max(recovered.Sub(promoted), 0), byKind
}

// check lists what the scenario got wrong.
func (r *result) check() {
	for _, k := range []kind{kindWrite, kindHL7, kindCast} {
		if c := r.byKind[k]; c.other > 0 {
			r.problems = append(r.problems, fmt.Sprintf("%d %s requests answered neither 2xx nor 503", c.other, k))
		}
	}
	switch {
	case r.recovery < 0:
		r.problems = append(r.problems, "writes never recovered")
	case r.recovery > maxRecovery:
		r.problems = append(r.problems, fmt.Sprintf("writes recovered %s after the promotion (limit %s)", secs(r.recovery), secs(maxRecovery)))
	}
	if r.hint < 0 {
		r.problems = append(r.problems, "no hint reached the board socket after the recovery")
	}
	if r.lost > 0 {
		r.problems = append(r.problems, fmt.Sprintf("%d acknowledged writes lost", r.lost))
	}
}

// line is the scenario's one line of output.
func (r *result) line() string {
	verdict := "ok"
	if len(r.problems) > 0 {
		verdict = "FAIL: " + strings.Join(r.problems, "; ")
	}
	hint := "none"
	if r.hint >= 0 {
		hint = secs(r.hint)
	}
	rec := "never"
	if r.recovery >= 0 {
		rec = secs(r.recovery)
	}
	return fmt.Sprintf("%-16s promoted %6s after the fault | outage %6s | writes back %5s after promotion | writes %s | hl7 %s | casts %s | lost %d | hint %s after promotion | %s",
		r.name, secs(r.promoted), secs(r.outage), rec, r.byKind[kindWrite], r.byKind[kindHL7], r.byKind[kindCast], r.lost, hint, verdict)
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// missing returns the acknowledged ids the database does not hold.
func missing(acked []string, stored map[string]bool) []string {
	var out []string
	for _, id := range acked {
		if !stored[id] {
			out = append(out, id)
		}
	}
	return out
}
