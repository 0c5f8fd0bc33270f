package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// saturateConfig drives the search for the highest sustainable rate.
type saturateConfig struct {
	StartRate     float64
	MaxRate       float64
	StepDuration  time.Duration
	Cooldown      time.Duration
	SLO           time.Duration // p99 (corrected) must stay at or under this
	MaxErrorRatio float64       // a step fails at or above this error ratio
	MinThroughput float64       // achieved/target ratio a step must reach
	Precision     float64       // stop bisecting when hi-lo <= Precision*lo
	MaxSteps      int
}

func defaultSaturateConfig() saturateConfig {
	return saturateConfig{
		StartRate:     50,
		MaxRate:       100000,
		StepDuration:  5 * time.Second,
		Cooldown:      time.Second,
		SLO:           50 * time.Millisecond,
		MaxErrorRatio: 0.01,
		MinThroughput: 0.95,
		Precision:     0.05,
		MaxSteps:      30,
	}
}

// Step is one constant-rate probe of the search.
type Step struct {
	N       int      `json:"step"`
	Rate    float64  `json:"target_rate"`
	Pass    bool     `json:"pass"`
	Reasons []string `json:"reasons,omitempty"`
	Report  *Report  `json:"report"`
}

// Saturation is the search outcome. MaxRate 0 means even the lowest rate
// tried failed; FirstFailing 0 means nothing failed up to -max-rate, so the
// server was not saturated and the number is a lower bound.
type Saturation struct {
	Mode         string    `json:"mode"`
	SLOms        float64   `json:"slo_ms"`
	MaxRate      float64   `json:"max_sustained_rate"`
	Throughput   float64   `json:"max_sustained_throughput"`
	FirstFailing float64   `json:"first_failing_rate"`
	Saturated    bool      `json:"saturated"`
	Steps        []Step    `json:"steps"`
	Best         *Report   `json:"best,omitempty"`
	WebSocket    *WSReport `json:"websocket,omitempty"`
}

// judge applies the pass criteria to one step.
func judge(r *Report, sc saturateConfig) (bool, []string) {
	var why []string
	if r.Aborted != "" {
		why = append(why, "stopped early: "+r.Aborted)
	}
	if r.Requests == 0 {
		return false, append(why, "no responses")
	}
	if errRatio := 1 - r.SuccessRatio; errRatio >= sc.MaxErrorRatio {
		why = append(why, fmt.Sprintf("errors %s ≥ %s", fmtPct(errRatio), fmtPct(sc.MaxErrorRatio)))
	}
	if need := sc.MinThroughput * r.TargetRate; r.Throughput < need {
		why = append(why, fmt.Sprintf("throughput %s/s < %s/s", fmtRate(r.Throughput), fmtRate(need)))
		// Distinguish a slow server from a generator that could not even
		// send at the rate; the latter says nothing about the server.
		if r.AttemptedRate < need {
			why = append(why, fmt.Sprintf("generator only sent %s/s", fmtRate(r.AttemptedRate)))
		}
	}
	if r.Latency.P99 > sc.SLO {
		why = append(why, fmt.Sprintf("p99 %s > SLO %s", fmtDur(r.Latency.P99), fmtDur(sc.SLO)))
	}
	return len(why) == 0, why
}

// stepAbort ends a step as soon as its verdict can no longer be a pass, so
// overload steps don't spend their whole duration piling up a backlog that
// then slows the next step.
func stepAbort(planned uint64, sc saturateConfig) abortFunc {
	budget := uint64(math.Floor(sc.MaxErrorRatio * float64(planned)))
	// More than 1% of the planned samples over the SLO forces nearest-rank
	// p99 over it, whatever the remaining samples turn out to be.
	sloBudget := uint64(math.Floor(0.01 * float64(planned)))
	return func(c *collector) string {
		if c.failures > budget && c.failures >= 1 {
			return fmt.Sprintf("%d errors out of %d planned", c.failures, planned)
		}
		if c.overSLO > sloBudget && c.overSLO >= 1 {
			return fmt.Sprintf("%d responses over SLO out of %d planned", c.overSLO, planned)
		}
		return ""
	}
}

// saturate doubles the rate from StartRate until a step fails, then bisects
// between the last pass and the first failure. onStep sees each step as it
// finishes so progress is visible during multi-minute searches.
func saturate(ctx context.Context, base attackConfig, sc saturateConfig, onStep func(Step)) *Saturation {
	out := &Saturation{Mode: "saturate", SLOms: ms(sc.SLO)}
	var lo, hi float64 // last passing and first failing rate; 0 = unknown
	rate := roundRate(sc.StartRate)
	// Each step goes on through the targets where the last one stopped, so that a file of
	// requests meant to be sent once (HL7 bodies with their own control ids, say) is not
	// replayed from the start by every step.
	var sent uint64
	for n := 1; n <= sc.MaxSteps && ctx.Err() == nil; n++ {
		if n > 1 && sc.Cooldown > 0 {
			// Let the server drain queues and close idle sockets so each
			// step starts from a comparable state.
			select {
			case <-time.After(sc.Cooldown):
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				break
			}
		}
		cfg := base
		cfg.Rate, cfg.Duration, cfg.SLO = rate, sc.StepDuration, sc.SLO
		cfg.Targets = rotated(base.Targets, sent)
		rep := runAttack(ctx, cfg, stepAbort(plannedRequests(rate, sc.StepDuration), sc))
		sent += rep.Requests
		rep.Mode = "saturate-step"
		pass, why := judge(rep, sc)
		if ctx.Err() != nil {
			// An interrupted step proves nothing either way.
			break
		}
		st := Step{N: n, Rate: rate, Pass: pass, Reasons: why, Report: rep}
		out.Steps = append(out.Steps, st)
		if onStep != nil {
			onStep(st)
		}
		if pass {
			if rate > lo {
				lo, out.Best = rate, rep
			}
		} else if hi == 0 || rate < hi {
			hi = rate
		}

		if hi == 0 {
			if rate >= sc.MaxRate {
				break
			}
			rate = math.Min(rate*2, sc.MaxRate)
			continue
		}
		if hi-lo <= math.Max(1, sc.Precision*lo) {
			break
		}
		next := roundRate((lo + hi) / 2)
		if next <= lo || next >= hi {
			break
		}
		rate = next
	}
	out.MaxRate, out.FirstFailing, out.Saturated = lo, hi, hi > 0
	if out.Best != nil {
		out.Throughput = out.Best.Throughput
	}
	return out
}

// roundRate keeps probed rates to whole requests per second (or a tenth
// below 10 req/s) so the step table reads cleanly.
func roundRate(r float64) float64 {
	if r >= 10 {
		return math.Round(r)
	}
	return math.Max(0.1, math.Round(r*10)/10)
}

// Steps are printed one at a time as they finish, so columns use fixed
// widths rather than a tabwriter that would need every row up front.
const stepFormat = "%4s  %9s  %11s  %12s  %8s  %9s  %9s  %9s  %s\n"

func writeStepHeader(w io.Writer) {
	fmt.Fprintf(w, stepFormat, "step", "target/s", "attempted/s", "throughput/s", "success", "p50", "p99", "p99.9", "verdict")
}

func writeStepLine(w io.Writer, st Step) {
	r := st.Report
	verdict := "ok"
	if !st.Pass {
		verdict = "FAIL: " + strings.Join(st.Reasons, "; ")
	}
	fmt.Fprintf(w, stepFormat, strconv.Itoa(st.N),
		fmtRate(st.Rate), fmtRate(r.AttemptedRate), fmtRate(r.Throughput), fmtPct(r.SuccessRatio),
		fmtDur(r.Latency.P50), fmtDur(r.Latency.P99), fmtDur(r.Latency.P999), verdict)
}

func writeSaturation(w io.Writer, s *Saturation, sc saturateConfig) {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Criteria\terrors < %s, throughput ≥ %.0f%% of target, p99 ≤ %s (corrected)\n",
		fmtPct(sc.MaxErrorRatio), sc.MinThroughput*100, fmtDur(sc.SLO))
	switch {
	case s.Best == nil:
		fmt.Fprintf(tw, "Result\tno rate passed (lowest tried failed)\n")
	case !s.Saturated:
		fmt.Fprintf(tw, "Result\tnot saturated: every step passed up to %s/s; raise -max-rate\n", fmtRate(s.MaxRate))
	default:
		fmt.Fprintf(tw, "Result\tmax sustained rate %s/s (throughput %s/s); %s/s failed\n",
			fmtRate(s.MaxRate), fmtRate(s.Throughput), fmtRate(s.FirstFailing))
	}
	tw.Flush()
	if s.Best != nil {
		fmt.Fprintf(w, "\nBest passing step (%s/s):\n", fmtRate(s.MaxRate))
		writeTable(w, s.Best)
	}
	if s.WebSocket != nil {
		fmt.Fprintln(w)
		writeWSTable(w, s.WebSocket)
	}
}

// rotated returns targets starting at the one after the first n sent, wrapping around.
func rotated[T any](targets []T, n uint64) []T {
	if len(targets) == 0 {
		return targets
	}
	k := int(n % uint64(len(targets)))
	return append(append(make([]T, 0, len(targets)), targets[k:]...), targets[:k]...)
}
