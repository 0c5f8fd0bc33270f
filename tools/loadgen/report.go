package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is the outcome of one constant-rate run. JSON field names are part
// of the tool's interface (benchmark tables are generated from them), so
// rename with care.
type Report struct {
	Mode          string            `json:"mode"`
	Targets       []string          `json:"targets"`
	TargetRate    float64           `json:"target_rate"`
	Planned       uint64            `json:"planned_requests"`
	Requests      uint64            `json:"requests"`
	Successes     uint64            `json:"successes"`
	AttemptedRate float64           `json:"attempted_rate"`
	Throughput    float64           `json:"throughput"`
	SuccessRatio  float64           `json:"success_ratio"`
	Expect        string            `json:"expect_status"`
	SendDuration  time.Duration     `json:"-"`
	TotalDuration time.Duration     `json:"-"`
	StatusCodes   map[string]uint64 `json:"status_codes"`
	Latency       Latencies         `json:"latency_ms"`
	RawLatency    Latencies         `json:"uncorrected_latency_ms"`
	Slip          Latencies         `json:"schedule_slip_ms"`
	Errors        []ErrorSample     `json:"errors"`
	Aborted       string            `json:"aborted,omitempty"`
	WebSocket     *WSReport         `json:"websocket,omitempty"`
}

// MarshalJSON adds the durations as seconds/milliseconds: a bare
// time.Duration would serialise as nanoseconds, which nobody reading a
// benchmark file expects.
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report
	return json.Marshal(struct {
		plain
		SendSeconds  float64 `json:"send_seconds"`
		TotalSeconds float64 `json:"total_seconds"`
	}{plain(r), r.SendDuration.Seconds(), r.TotalDuration.Seconds()})
}

// Latencies is a percentile summary.
type Latencies struct {
	Min, Mean, P50, P90, P99, P999, Max time.Duration
}

func (l Latencies) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]float64{
		"min": ms(l.Min), "mean": ms(l.Mean), "p50": ms(l.P50), "p90": ms(l.P90),
		"p99": ms(l.P99), "p99.9": ms(l.P999), "max": ms(l.Max),
	})
}

func ms(d time.Duration) float64 {
	// Microsecond resolution is all a loopback benchmark can claim.
	return math.Round(float64(d)/1e3) / 1e3
}

// ErrorSample counts one kind of failure.
type ErrorSample struct {
	Error   string `json:"error"`
	Count   uint64 `json:"count"`
	Example string `json:"example,omitempty"`
}

// summarize computes exact nearest-rank percentiles. Exact rather than a
// sketch because tail percentiles are the whole point and a sorted slice of
// int64 is cheap at the request counts a single machine can generate.
func summarize(ds []time.Duration) Latencies {
	if len(ds) == 0 {
		return Latencies{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	var sum float64
	for _, d := range s {
		sum += float64(d)
	}
	return Latencies{
		Min:  s[0],
		Mean: time.Duration(sum / float64(len(s))),
		P50:  quantile(s, 0.50),
		P90:  quantile(s, 0.90),
		P99:  quantile(s, 0.99),
		P999: quantile(s, 0.999),
		Max:  s[len(s)-1],
	}
}

// quantile is nearest-rank on a sorted slice: the smallest value with at
// least q of the samples at or below it, so it is always an observed value.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// fmtDur renders a latency in milliseconds with precision suited to its
// size, so columns stay comparable without drowning small values in digits.
func fmtDur(d time.Duration) string {
	m := float64(d) / 1e6
	switch {
	case d == 0:
		return "0"
	case m < 1:
		return strconv.FormatFloat(m, 'f', 3, 64) + "ms"
	case m < 100:
		return strconv.FormatFloat(m, 'f', 2, 64) + "ms"
	default:
		return strconv.FormatFloat(m, 'f', 1, 64) + "ms"
	}
}

func fmtRate(r float64) string { return strconv.FormatFloat(r, 'f', 1, 64) }

func fmtPct(r float64) string { return strconv.FormatFloat(r*100, 'f', 2, 64) + "%" }

// writeTable prints the human-readable report.
func writeTable(w io.Writer, r *Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	targets := strings.Join(r.Targets, ", ")
	if len(r.Targets) > 3 {
		targets = fmt.Sprintf("%s, … (%d targets)", strings.Join(r.Targets[:3], ", "), len(r.Targets))
	}
	fmt.Fprintf(tw, "Targets\t%s\n", targets)
	fmt.Fprintf(tw, "Requests\t%d of %d planned\n", r.Requests, r.Planned)
	fmt.Fprintf(tw, "Rate\ttarget %s/s, attempted %s/s, throughput %s/s\n",
		fmtRate(r.TargetRate), fmtRate(r.AttemptedRate), fmtRate(r.Throughput))
	fmt.Fprintf(tw, "Duration\t%.3fs sending, %.3fs to last response\n",
		r.SendDuration.Seconds(), r.TotalDuration.Seconds())
	fmt.Fprintf(tw, "Success\t%s (%d/%d, expecting %s)\n", fmtPct(r.SuccessRatio), r.Successes, r.Requests, r.Expect)
	fmt.Fprintf(tw, "Status codes\t%s\n", fmtCodes(r.StatusCodes))
	if r.Aborted != "" {
		fmt.Fprintf(tw, "Aborted\t%s\n", r.Aborted)
	}
	tw.Flush()

	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Latency\tmin\tmean\tp50\tp90\tp99\tp99.9\tmax\t")
	for _, row := range []struct {
		name string
		l    Latencies
	}{{"corrected", r.Latency}, {"uncorrected", r.RawLatency}} {
		l := row.l
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", row.name,
			fmtDur(l.Min), fmtDur(l.Mean), fmtDur(l.P50), fmtDur(l.P90), fmtDur(l.P99), fmtDur(l.P999), fmtDur(l.Max))
	}
	tw.Flush()
	// Slip is how late requests left versus their slot. Large values mean
	// the generator (timers, CPU) could not keep the schedule, and the run
	// measured less than the rate it claims.
	fmt.Fprintf(w, "Schedule slip: p50 %s, p99 %s, max %s\n", fmtDur(r.Slip.P50), fmtDur(r.Slip.P99), fmtDur(r.Slip.Max))

	fmt.Fprintln(w)
	if len(r.Errors) == 0 {
		fmt.Fprintln(w, "Errors: none")
	} else {
		fmt.Fprintln(w, "Errors:")
		for i, e := range r.Errors {
			if i == 10 {
				fmt.Fprintf(w, "  … %d more kinds (see -json)\n", len(r.Errors)-10)
				break
			}
			fmt.Fprintf(w, "  %7d  %s\n", e.Count, e.Error)
			if e.Example != "" {
				fmt.Fprintf(w, "           e.g. %s\n", e.Example)
			}
		}
	}
	if r.WebSocket != nil {
		fmt.Fprintln(w)
		writeWSTable(w, r.WebSocket)
	}
}

func fmtCodes(codes map[string]uint64) string {
	if len(codes) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(codes))
	for k := range codes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		label := k
		if k == "0" {
			// Vegeta records transport failures as code 0.
			label = "0 (no response)"
		}
		parts = append(parts, fmt.Sprintf("%s: %d", label, codes[k]))
	}
	return strings.Join(parts, ", ")
}

func writeWSTable(w io.Writer, s *WSReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "WebSocket\t%s\n", s.URL)
	fmt.Fprintf(tw, "Connections\t%d requested, %d opened, %d failed to open\n", s.Requested, s.Opened, s.DialFailed)
	fmt.Fprintf(tw, "Held\t%d still connected at end, %d dropped early\n", s.StillConnected, s.Dropped)
	fmt.Fprintf(tw, "Frames\t%d received (%d bytes)\n", s.Frames, s.Bytes)
	fmt.Fprintf(tw, "Connect time\tp50 %s, p99 %s, max %s\n", fmtDur(s.Connect.P50), fmtDur(s.Connect.P99), fmtDur(s.Connect.Max))
	tw.Flush()
	for i, e := range s.Errors {
		if i == 0 {
			fmt.Fprintln(w, "WebSocket errors:")
		}
		if i == 10 {
			fmt.Fprintf(w, "  … %d more kinds (see -json)\n", len(s.Errors)-10)
			break
		}
		fmt.Fprintf(w, "  %7d  %s\n", e.Count, e.Error)
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
