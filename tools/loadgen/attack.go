package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// attackConfig is one constant-rate run. Saturation mode reuses it per step
// with only Rate and Duration changed.
type attackConfig struct {
	Targets    []vegeta.Target
	Rate       float64 // requests per second
	Duration   time.Duration
	Workers    uint64
	MaxWorkers uint64 // 0 = unlimited, which keeps the attack open-loop
	Timeout    time.Duration
	Expect     statusSet
	// SLO only feeds the early-abort budget in saturation steps; 0 disables it.
	SLO time.Duration
}

// maxBodyKept bounds what vegeta buffers per response: the body is only
// used for error samples, and buffering whole responses at thousands of
// requests per second would make the generator itself the bottleneck.
const maxBodyKept = 512

// countedPacer keeps vegeta's ConstantPacer schedule (request k due at
// start + (k+1)·interval) and adds two things loadgen needs: it ends after
// exactly total requests, so a run's request count is rate × duration even
// when the generator falls behind, and it records when each request was
// released, which the coordinated-omission correction needs.
//
// It sleeps inside Pace itself (and returns 0 to vegeta) so that it knows
// the instant it released each request; vegeta's loop then hands the request
// to a worker, and the time until the next Pace call is how long that
// handover blocked.
type countedPacer struct {
	rate     float64
	interval time.Duration
	total    uint64

	mu    sync.Mutex
	began time.Time // vegeta's attack start; zero until the first Pace call
	sched schedule
}

func newCountedPacer(rate float64, total uint64) *countedPacer {
	iv := time.Second
	if rate > 0 {
		iv = max(time.Duration(float64(time.Second)/rate), 1)
	}
	return &countedPacer{rate: rate, interval: iv, total: total, sched: schedule{interval: iv}}
}

func (p *countedPacer) Rate(time.Duration) float64 { return p.rate }

func (p *countedPacer) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	now := time.Now()
	p.mu.Lock()
	if p.began.IsZero() {
		// vegeta measures elapsed from its own start instant with the
		// monotonic clock, so subtracting it recovers that instant.
		p.began = now.Add(-elapsed)
	}
	began := p.began
	p.mu.Unlock()
	if hits >= p.total {
		return 0, true
	}
	called := now.Sub(began)
	released := called
	if due := time.Duration(hits+1) * p.interval; called < due {
		time.Sleep(due - called)
		released = time.Since(began)
	}
	p.mu.Lock()
	p.sched.release(hits, called, released)
	p.mu.Unlock()
	return 0, false
}

// start is the instant request seq's latency is measured from.
func (p *countedPacer) start(seq uint64) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.began.IsZero() || seq >= uint64(len(p.sched.starts)) {
		return time.Time{}, false
	}
	return p.began.Add(p.sched.starts[seq]), true
}

// due is when request seq was scheduled to leave.
func (p *countedPacer) due(seq uint64) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.began.IsZero() {
		return time.Time{}, false
	}
	return p.began.Add(time.Duration(seq+1) * p.interval), true
}

// schedule decides, per request, how much of its late departure is owed to
// the server. Only one delay couples sends to responses in vegeta: the
// pacer blocking while no worker is free (possible once -max-workers caps
// them). That wait, and the backlog it leaves behind, is charged to the
// requests it delayed. Timer overshoot is not: sleeps routinely wake a
// fraction of a millisecond late, and charging that would inflate a
// sub-millisecond p50 severalfold with noise the server never caused.
// Generator slip is still reported separately as schedule slip.
//
// Offsets are durations since the attack began; there is no clock here, so
// the rules can be tested with synthetic timelines.
type schedule struct {
	interval  time.Duration
	debt      time.Duration // blocking-caused lateness not yet caught up
	lastReady time.Duration
	starts    []time.Duration
}

// release records request k: the pacer was called for it at called (right
// after request k-1 was handed to a worker) and let it go at released.
func (s *schedule) release(k uint64, called, released time.Duration) {
	if k > 0 {
		s.debt += max(called-s.lastReady, 0)
	}
	if due := time.Duration(k+1) * s.interval; called < due {
		// The pacer had time to spare, so earlier blocking no longer
		// delays anything.
		s.debt = 0
	} else {
		// Overdue: at most the overdue part can be blamed on blocking.
		s.debt = min(s.debt, called-due)
	}
	s.lastReady = released
	s.starts = append(s.starts, released-s.debt)
}

func plannedRequests(rate float64, d time.Duration) uint64 {
	n := uint64(math.Round(rate * d.Seconds()))
	if n == 0 {
		n = 1
	}
	return n
}

// abortFunc is polled after every result; a non-empty return stops the
// attack early with that reason.
type abortFunc func(c *collector) string

// runAttack performs one open-loop run and returns its report. It honours
// ctx cancellation by stopping the pacer; in-flight requests still complete
// (bounded by the timeout) so that their latency is counted rather than lost.
func runAttack(ctx context.Context, cfg attackConfig, abort abortFunc) *Report {
	if len(cfg.Targets) == 0 {
		panic("runAttack: no targets")
	}
	pacer := newCountedPacer(cfg.Rate, plannedRequests(cfg.Rate, cfg.Duration))

	opts := []func(*vegeta.Attacker){
		vegeta.Workers(max(cfg.Workers, 1)),
		vegeta.Timeout(cfg.Timeout),
		vegeta.MaxBody(maxBodyKept),
		// Benchmarks must see the endpoint's own status, not whatever a
		// redirect chain ends on.
		vegeta.Redirects(vegeta.NoFollow),
		vegeta.KeepAlive(true),
	}
	if cfg.MaxWorkers > 0 {
		opts = append(opts, vegeta.MaxWorkers(cfg.MaxWorkers))
	}
	atk := vegeta.NewAttacker(opts...)

	col := newCollector(cfg.Expect, pacer, cfg.SLO)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-ctx.Done():
			atk.Stop()
		case <-stop:
		}
	}()

	tr := vegeta.NewStaticTargeter(cfg.Targets...)
	// Duration 0: the counted pacer, not vegeta's clock, ends the attack.
	for res := range atk.Attack(tr, pacer, 0, "loadgen") {
		col.add(res)
		if abort != nil && col.aborted == "" {
			if why := abort(col); why != "" {
				col.aborted = why
				atk.Stop()
			}
		}
	}
	if col.aborted == "" && ctx.Err() != nil {
		col.aborted = "interrupted"
	}
	r := col.report()
	r.Mode = "constant"
	r.TargetRate = cfg.Rate
	r.Planned = plannedRequests(cfg.Rate, cfg.Duration)
	r.Expect = cfg.Expect.String()
	r.Targets = describeTargets(cfg.Targets)
	return r
}

// collector aggregates results as they stream in, keeping only latencies and
// a bounded set of error samples so long runs don't hold every response.
type collector struct {
	expect statusSet
	pacer  *countedPacer
	slo    time.Duration

	requests, successes, failures, overSLO uint64

	codes     map[uint16]uint64
	errs      map[string]*ErrorSample
	errOrder  []string
	corrected []time.Duration
	raw       []time.Duration
	slip      []time.Duration

	firstSend, lastSend, lastEnd time.Time
	aborted                      string
}

// maxErrorKinds caps distinct error keys; servers that echo request IDs in
// error bodies would otherwise grow the map without bound.
const maxErrorKinds = 50

func newCollector(expect statusSet, pacer *countedPacer, slo time.Duration) *collector {
	return &collector{
		expect: expect,
		pacer:  pacer,
		slo:    slo,
		codes:  map[uint16]uint64{},
		errs:   map[string]*ErrorSample{},
	}
}

func (c *collector) add(r *vegeta.Result) {
	c.requests++
	c.codes[r.Code]++

	lat := r.Latency
	corrected := lat
	if c.pacer != nil {
		// Coordinated-omission correction: measure from when the pacer
		// released the request, less any wait for a free worker, rather
		// than from when a worker finally sent it.
		if st, ok := c.pacer.start(r.Seq); ok {
			if d := r.End().Sub(st); d > corrected {
				corrected = d
			}
		}
		if due, ok := c.pacer.due(r.Seq); ok {
			c.slip = append(c.slip, max(r.Timestamp.Sub(due), 0))
		}
	}
	c.raw = append(c.raw, lat)
	c.corrected = append(c.corrected, corrected)
	if c.slo > 0 && corrected > c.slo {
		c.overSLO++
	}

	if c.firstSend.IsZero() || r.Timestamp.Before(c.firstSend) {
		c.firstSend = r.Timestamp
	}
	if r.Timestamp.After(c.lastSend) {
		c.lastSend = r.Timestamp
	}
	if e := r.End(); e.After(c.lastEnd) {
		c.lastEnd = e
	}

	if r.Code != 0 && c.expect.has(int(r.Code)) {
		c.successes++
		return
	}
	c.failures++
	c.addError(r)
}

func (c *collector) addError(r *vegeta.Result) {
	var key, example string
	if r.Code == 0 {
		key = r.Error
		if key == "" {
			key = "no response"
		}
	} else {
		// Group by status so that per-request details in bodies don't
		// fragment the counts; keep the first body as the example.
		key = fmt.Sprintf("HTTP %d %s", r.Code, http.StatusText(int(r.Code)))
		example = oneLine(r.Body, 160)
	}
	key = truncate(key, 240)
	if s, ok := c.errs[key]; ok {
		s.Count++
		return
	}
	if len(c.errs) >= maxErrorKinds {
		key, example = "(other errors)", ""
		if s, ok := c.errs[key]; ok {
			s.Count++
			return
		}
	}
	c.errs[key] = &ErrorSample{Error: key, Count: 1, Example: example}
	c.errOrder = append(c.errOrder, key)
}

func (c *collector) report() *Report {
	r := &Report{
		Requests:    c.requests,
		Successes:   c.successes,
		StatusCodes: map[string]uint64{},
		Errors:      []ErrorSample{},
		Aborted:     c.aborted,
	}
	for code, n := range c.codes {
		r.StatusCodes[strconv.Itoa(int(code))] = n
	}
	if c.requests > 0 {
		r.SuccessRatio = float64(c.successes) / float64(c.requests)
	}
	send := c.lastSend.Sub(c.firstSend)
	total := c.lastEnd.Sub(c.firstSend)
	r.SendDuration, r.TotalDuration = send, total
	if c.requests > 1 && send > 0 {
		// n requests span n-1 intervals.
		r.AttemptedRate = float64(c.requests-1) / send.Seconds()
	}
	if total > 0 {
		r.Throughput = float64(c.successes) / total.Seconds()
	}
	r.Latency = summarize(c.corrected)
	r.RawLatency = summarize(c.raw)
	r.Slip = summarize(c.slip)
	for _, k := range c.errOrder {
		r.Errors = append(r.Errors, *c.errs[k])
	}
	sort.SliceStable(r.Errors, func(i, j int) bool { return r.Errors[i].Count > r.Errors[j].Count })
	return r
}

// statusSet is the set of status codes counted as success.
type statusSet struct {
	ranges [][2]int
	spec   string
}

func (s statusSet) has(code int) bool {
	for _, r := range s.ranges {
		if code >= r[0] && code <= r[1] {
			return true
		}
	}
	return false
}

func (s statusSet) String() string { return s.spec }

// parseStatusSet accepts "2xx", "200,204", "200-299,404" and mixes thereof.
func parseStatusSet(spec string) (statusSet, error) {
	s := statusSet{spec: spec}
	for part := range strings.SplitSeq(spec, ",") {
		part = strings.TrimSpace(strings.ToLower(part))
		if part == "" {
			continue
		}
		switch {
		case len(part) == 3 && strings.HasSuffix(part, "xx") && part[0] >= '1' && part[0] <= '5':
			base := int(part[0]-'0') * 100
			s.ranges = append(s.ranges, [2]int{base, base + 99})
		case strings.Contains(part, "-"):
			lo, hi, _ := strings.Cut(part, "-")
			a, err1 := parseStatus(lo)
			b, err2 := parseStatus(hi)
			if err := errors.Join(err1, err2); err != nil {
				return statusSet{}, err
			}
			if a > b {
				return statusSet{}, fmt.Errorf("status range %q is reversed", part)
			}
			s.ranges = append(s.ranges, [2]int{a, b})
		default:
			n, err := parseStatus(part)
			if err != nil {
				return statusSet{}, err
			}
			s.ranges = append(s.ranges, [2]int{n, n})
		}
	}
	if len(s.ranges) == 0 {
		return statusSet{}, fmt.Errorf("no status codes in %q", spec)
	}
	return s, nil
}

func parseStatus(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 100 || n > 599 {
		return 0, fmt.Errorf("bad status code %q", s)
	}
	return n, nil
}

// targetSpec is what the flags say about requests, before credentials are
// known.
type targetSpec struct {
	URLs        []string
	TargetsFile string
	Method      string
	Body        []byte
	Header      http.Header
	// DeviceTokens, when set, multiply every target by the tokens: the sequence goes through
	// the tokens for each target in turn, each request with its token's x-device-token, so a
	// fleet of devices polls as the fleet would (each device every len(DeviceTokens)/rate).
	DeviceTokens []string
}

// buildTargets expands -url flags or a vegeta HTTP-format targets file. The
// file is read eagerly so every step of a saturation search replays the
// same round-robin sequence.
func buildTargets(spec targetSpec) ([]vegeta.Target, error) {
	var tgts []vegeta.Target
	if spec.TargetsFile != "" {
		f, err := os.Open(spec.TargetsFile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		tgts, err = parseTargets(f, spec.Body)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec.TargetsFile, err)
		}
	}
	for _, u := range spec.URLs {
		tgts = append(tgts, vegeta.Target{Method: spec.Method, URL: u, Body: spec.Body})
	}
	if len(tgts) == 0 {
		return nil, errors.New("no targets: give -url or -targets")
	}
	for i := range tgts {
		// Merge into a fresh map per target: vegeta's file parser shares
		// header slices with the map it is given, so passing ours there
		// could let one target's header lines leak into another's.
		h := http.Header{}
		for k, vs := range spec.Header {
			h[k] = append([]string(nil), vs...)
		}
		for k, vs := range tgts[i].Header {
			h[k] = append([]string(nil), vs...)
		}
		if len(tgts[i].Body) > 0 && h.Get("Content-Type") == "" {
			// The API speaks JSON; saves a -header on every POST.
			h.Set("Content-Type", "application/json")
		}
		tgts[i].Header = h
	}
	if len(spec.DeviceTokens) > 0 {
		fleet := make([]vegeta.Target, 0, len(tgts)*len(spec.DeviceTokens))
		for _, tok := range spec.DeviceTokens {
			for _, t := range tgts {
				h := t.Header.Clone()
				h.Set("x-device-token", tok)
				t.Header = h
				fleet = append(fleet, t)
			}
		}
		tgts = fleet
	}
	return tgts, nil
}

func parseTargets(src io.Reader, body []byte) ([]vegeta.Target, error) {
	tgts, err := vegeta.ReadAllTargets(vegeta.NewHTTPTargeter(src, body, nil))
	if err != nil {
		return nil, err
	}
	if len(tgts) == 0 {
		return nil, errors.New("file has no targets")
	}
	return tgts, nil
}

func describeTargets(tgts []vegeta.Target) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range tgts {
		d := t.Method + " " + t.URL
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

func oneLine(b []byte, n int) string {
	b = bytes.TrimSpace(b)
	s := strings.Join(strings.Fields(string(b)), " ")
	return truncate(s, n)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
