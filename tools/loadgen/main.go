// Command loadgen benchmarks Sous API endpoints with open-loop, constant-rate
// load and reports latency percentiles corrected for coordinated omission.
//
// Why open-loop: closed-loop tools (wrk, ab, a fixed pool of clients each
// waiting for its previous response) slow down exactly when the server does,
// so the requests that would have queued behind a stall are never sent and
// never measured, and the tail looks far better than real users would see.
// That is coordinated omission. Loadgen drives vegeta's attacker with a
// constant pacer (vegeta's ConstantPacer schedule: request k leaves at
// start + (k+1)/rate) that never looks at responses, and vegeta starts
// another worker whenever all existing ones are busy, so a slow response
// does not hold back the next send.
//
// Why a correction on top: once -max-workers caps the workers, the pacer
// has to wait for one to come free, and every request behind it leaves
// late. Latency is then measured from the request's slot in the schedule
// instead of from when it finally left, so that wait shows up in the
// percentiles instead of vanishing ("corrected"; the plain send-to-response
// figures are printed too, as "uncorrected"). Timer overshoot, the
// fraction of a millisecond by which sleeps wake late, is not charged: it is
// the generator's noise, not the server's doing. How far sends slipped
// behind the schedule for any reason is printed as "schedule slip". A large
// slip together with an attempted rate below the target means the generator
// ran short of CPU and the run understates the load.
//
// Usage:
//
//	go run -C tools ./loadgen -base http://127.0.0.1:8080 \
//	    -login bench@example.com:correct-horse-battery \
//	    -url /v1/auth/me -rate 1000 -duration 30s
//
// -rate 0 or -saturate searches for the highest rate the server sustains
// within -slo instead. README.md beside this file has more examples.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ", ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

type options struct {
	urls        multiFlag
	headers     multiFlag
	targets     string
	method      string
	body        string
	bodyFile    string
	rate        float64
	saturate    bool
	duration    time.Duration
	workers     uint64
	maxWorkers  uint64
	timeout     time.Duration
	expect      string
	jsonOut     bool
	base        string
	login       string
	loginName   string
	deviceToken string
	tokensFile  string
	allowRemote bool

	sat saturateConfig

	wsURL         string
	wsConns       int
	wsConcurrency int

	badLogins int
	rssPID    int
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{sat: defaultSaturateConfig()}
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Var(&o.urls, "url", "target URL, repeatable (round-robin); a path like /v1/x is joined to -base")
	fs.StringVar(&o.targets, "targets", "", "targets file in vegeta's HTTP format (METHOD URL, header lines, @body-file)")
	fs.StringVar(&o.method, "method", "GET", "HTTP method for -url targets")
	fs.Var(&o.headers, "header", "request header 'Key: Value', repeatable")
	fs.StringVar(&o.body, "body", "", "request body")
	fs.StringVar(&o.bodyFile, "body-file", "", "read the request body from this file")
	fs.Float64Var(&o.rate, "rate", 50, "requests per second; 0 searches for the saturated rate")
	fs.BoolVar(&o.saturate, "saturate", false, "search for the highest rate sustained within -slo")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "length of a constant-rate attack (also how long -ws-url connections are held without HTTP targets)")
	fs.Uint64Var(&o.workers, "workers", 10, "initial workers; more are added when all are busy")
	fs.Uint64Var(&o.maxWorkers, "max-workers", 0, "cap on workers, 0 = unlimited (a cap makes sends slip; latencies stay corrected)")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "per-request timeout (also WebSocket handshake timeout)")
	fs.StringVar(&o.expect, "expect-status", "2xx", "statuses counted as success: e.g. 2xx, 200,204, 200-299,404")
	fs.BoolVar(&o.jsonOut, "json", false, "print a JSON report on stdout (progress goes to stderr)")
	fs.StringVar(&o.base, "base", "http://127.0.0.1:8080", "server base URL for -login and relative -url/-ws-url")
	fs.StringVar(&o.login, "login", "", "email:password; register (or log in) first and send 'Authorization: Bearer <accessToken>'")
	fs.StringVar(&o.loginName, "login-name", "", "display name sent on register (default: the email's local part)")
	fs.StringVar(&o.deviceToken, "device-token", "", "send 'x-device-token: <value>' on every request")
	fs.StringVar(&o.tokensFile, "device-tokens", "", "file of device tokens, one a line: requests go round-robin over them (x-device-token), and {token} in -ws-url is replaced by each connection's token in turn")
	fs.BoolVar(&o.allowRemote, "allow-remote", false, "allow targets that are not loopback addresses")

	fs.DurationVar(&o.sat.SLO, "slo", o.sat.SLO, "saturation: p99 latency (corrected) a step must stay within")
	fs.Float64Var(&o.sat.StartRate, "start-rate", o.sat.StartRate, "saturation: first rate tried, doubled until a step fails")
	fs.Float64Var(&o.sat.MaxRate, "max-rate", o.sat.MaxRate, "saturation: never try more than this")
	fs.DurationVar(&o.sat.StepDuration, "step-duration", o.sat.StepDuration, "saturation: length of each step")
	fs.DurationVar(&o.sat.Cooldown, "cooldown", o.sat.Cooldown, "saturation: pause between steps")
	fs.Float64Var(&o.sat.Precision, "precision", o.sat.Precision, "saturation: stop bisecting when the bracket is within this fraction")
	fs.IntVar(&o.sat.MaxSteps, "max-steps", o.sat.MaxSteps, "saturation: give up after this many steps")

	fs.StringVar(&o.wsURL, "ws-url", "", "WebSocket URL to hold connections on during the attack (ws:// or a path joined to -base)")
	fs.IntVar(&o.wsConns, "ws-conns", 0, "number of WebSocket connections to hold (default 1 when -ws-url is set)")
	fs.IntVar(&o.wsConcurrency, "ws-dial-concurrency", 64, "WebSocket handshakes in flight at once")

	fs.IntVar(&o.badLogins, "bad-logins", 0, "keep this many sign-ins with distinct unknown emails (each from its own X-Forwarded-For address) in flight during the run; see badlogins.go")
	fs.IntVar(&o.rssPID, "rss-pid", 0, "with -bad-logins: sample this process's resident memory (the server's pid)")

	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run -C tools ./loadgen [flags]\n\nOpen-loop constant-rate HTTP load with coordinated-omission-corrected latencies.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if o.rate < 0 {
		return nil, errors.New("-rate must be ≥ 0")
	}
	if o.rate == 0 {
		o.saturate = true
	}
	if o.body != "" && o.bodyFile != "" {
		return nil, errors.New("give -body or -body-file, not both")
	}
	if o.deviceToken != "" && o.tokensFile != "" {
		return nil, errors.New("give -device-token or -device-tokens, not both")
	}
	if o.wsURL != "" && o.wsConns == 0 {
		o.wsConns = 1
	}
	if o.badLogins < 0 || (o.rssPID != 0 && o.badLogins == 0) {
		return nil, errors.New("-rss-pid needs -bad-logins > 0")
	}
	if o.badLogins > 0 && o.saturate {
		return nil, errors.New("-bad-logins runs beside a constant-rate attack, not -saturate")
	}
	if o.wsConns > 0 && o.wsURL == "" {
		return nil, errors.New("-ws-conns needs -ws-url")
	}
	if o.sat.StartRate <= 0 || o.sat.MaxRate < o.sat.StartRate {
		return nil, errors.New("need 0 < -start-rate ≤ -max-rate")
	}
	if o.duration <= 0 || o.sat.StepDuration <= 0 {
		return nil, errors.New("-duration and -step-duration must be positive")
	}
	return o, nil
}

func run(args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	expect, err := parseStatusSet(o.expect)
	if err != nil {
		return fmt.Errorf("-expect-status: %w", err)
	}
	header, err := parseHeaders(o.headers)
	if err != nil {
		return err
	}
	if o.deviceToken != "" {
		header.Set("x-device-token", o.deviceToken)
	}
	var tokens []string
	if o.tokensFile != "" {
		if tokens, err = readTokens(o.tokensFile); err != nil {
			return err
		}
	}
	body := []byte(o.body)
	if o.bodyFile != "" {
		if body, err = os.ReadFile(o.bodyFile); err != nil {
			return err
		}
	}

	urls := make([]string, 0, len(o.urls))
	for _, u := range o.urls {
		urls = append(urls, resolve(o.base, u, false))
	}
	wsURL := ""
	if o.wsURL != "" {
		wsURL = resolve(o.base, o.wsURL, true)
	}
	if !o.allowRemote {
		check := append([]string(nil), urls...)
		if wsURL != "" {
			check = append(check, wsURL)
		}
		if o.login != "" || o.badLogins > 0 {
			check = append(check, o.base)
		}
		for _, u := range check {
			if err := requireLoopback(u); err != nil {
				return err
			}
		}
	}

	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()

	if o.login != "" {
		email, password, ok := strings.Cut(o.login, ":")
		if !ok || email == "" || password == "" {
			return errors.New("-login wants email:password")
		}
		token, how, err := obtainToken(ctx, o.base, email, password, o.loginName, o.timeout)
		if err != nil {
			return err
		}
		header.Set("Authorization", "Bearer "+token)
		fmt.Fprintf(stderr, "loadgen: %s as %s\n", how, email)
	}

	haveHTTP := len(urls) > 0 || o.targets != ""
	if !haveHTTP && wsURL == "" && o.badLogins == 0 {
		return errors.New("nothing to do: give -url, -targets, -ws-url or -bad-logins")
	}
	base := attackConfig{
		Workers: o.workers, MaxWorkers: o.maxWorkers, Timeout: o.timeout, Expect: expect,
		Rate: o.rate, Duration: o.duration,
	}
	if haveHTTP {
		base.Targets, err = buildTargets(targetSpec{
			URLs: urls, TargetsFile: o.targets, Method: strings.ToUpper(o.method), Body: body, Header: header,
			DeviceTokens: tokens,
		})
		if err != nil {
			return err
		}
		if !o.allowRemote && o.targets != "" {
			for _, t := range base.Targets {
				if err := requireLoopback(t.URL); err != nil {
					return err
				}
			}
		}
	}

	raiseFileLimit(o, stderr)

	var ws *wsHolder
	if wsURL != "" {
		fmt.Fprintf(stderr, "loadgen: opening %d WebSocket connections to %s\n", o.wsConns, wsURL)
		ws = startWS(ctx, wsConfig{
			URL: wsURL, Tokens: tokens, Conns: o.wsConns, Header: header, DialTimeout: o.timeout, DialConcurrency: o.wsConcurrency,
		})
		s := ws.snapshot()
		fmt.Fprintf(stderr, "loadgen: %d open, %d failed\n", s.Opened, s.DialFailed)
	}

	var fl *flood
	if o.badLogins > 0 {
		fmt.Fprintf(stderr, "loadgen: %d bad sign-ins in flight\n", o.badLogins)
		fl = startFlood(ctx, floodConfig{Base: o.base, Concurrency: o.badLogins, Timeout: o.timeout, PID: o.rssPID})
	}

	switch {
	case fl != nil:
		var rep *Report
		if haveHTTP {
			fmt.Fprintf(stderr, "loadgen: %s/s for %s beside the flood\n", fmtRate(o.rate), o.duration)
			rep = runAttack(ctx, base, nil)
		} else {
			select {
			case <-time.After(o.duration):
			case <-ctx.Done():
			}
		}
		frep := fl.stop()
		if ws != nil && rep != nil {
			rep.WebSocket = ws.stop()
		} else if ws != nil {
			ws.stop()
		}
		if o.jsonOut {
			return writeJSON(stdout, map[string]any{"mode": "bad-logins", "flood": frep, "probe": rep})
		}
		writeFloodTable(stdout, frep)
		if rep != nil {
			fmt.Fprintln(stdout)
			writeTable(stdout, rep)
		}
		return nil

	case !haveHTTP:
		select {
		case <-time.After(o.duration):
		case <-ctx.Done():
		}
		rep := ws.stop()
		if o.jsonOut {
			return writeJSON(stdout, map[string]any{"mode": "websocket", "websocket": rep})
		}
		writeWSTable(stdout, rep)
		return nil

	case o.saturate:
		progress := stdout
		if o.jsonOut {
			progress = stderr
		}
		writeStepHeader(progress)
		res := saturate(ctx, base, o.sat, func(st Step) { writeStepLine(progress, st) })
		if ws != nil {
			res.WebSocket = ws.stop()
		}
		if o.jsonOut {
			return writeJSON(stdout, res)
		}
		writeSaturation(stdout, res, o.sat)
		return nil

	default:
		fmt.Fprintf(stderr, "loadgen: %s/s for %s\n", fmtRate(o.rate), o.duration)
		rep := runAttack(ctx, base, nil)
		if ws != nil {
			rep.WebSocket = ws.stop()
		}
		if o.jsonOut {
			return writeJSON(stdout, rep)
		}
		writeTable(stdout, rep)
		return nil
	}
}

func parseHeaders(hs []string) (http.Header, error) {
	h := http.Header{}
	for _, line := range hs {
		k, v, ok := strings.Cut(line, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return nil, fmt.Errorf("bad -header %q, want 'Key: Value'", line)
		}
		h.Add(k, v)
	}
	return h, nil
}

// resolve joins a bare path to base so endpoint lists stay short; for
// WebSocket URLs it also swaps http(s) for ws(s).
func resolve(base, u string, ws bool) string {
	if strings.HasPrefix(u, "/") {
		u = strings.TrimRight(base, "/") + u
	}
	if ws {
		switch {
		case strings.HasPrefix(u, "http://"):
			u = "ws://" + strings.TrimPrefix(u, "http://")
		case strings.HasPrefix(u, "https://"):
			u = "wss://" + strings.TrimPrefix(u, "https://")
		}
	}
	return u
}

// requireLoopback refuses targets off this machine unless -allow-remote is
// given: a mistyped host would otherwise aim thousands of requests per second
// at someone else's server.
func requireLoopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("bad URL %q: %w", raw, err)
	}
	host := u.Hostname()
	if host == "" {
		return fmt.Errorf("URL %q has no host", raw)
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil {
		if ip.IsLoopback() {
			return nil
		}
		return fmt.Errorf("%s is not a loopback address; pass -allow-remote to load it anyway", host)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return fmt.Errorf("resolving %s: %w", host, err)
	}
	for _, a := range addrs {
		if !a.IP.IsLoopback() {
			return fmt.Errorf("%s resolves to %s, not loopback; pass -allow-remote to load it anyway", host, a.IP)
		}
	}
	return nil
}

// obtainToken registers the benchmark user, falling back to logging in when
// the account already exists (or registration doesn't hand out a token), so
// the same command works on a fresh and on a reused database.
func obtainToken(ctx context.Context, base, email, password, name string, timeout time.Duration) (token, how string, err error) {
	if name == "" {
		name, _, _ = strings.Cut(email, "@")
	}
	client := &http.Client{Timeout: timeout}
	base = strings.TrimRight(base, "/")

	regStatus, regBody, regErr := postJSON(ctx, client, base+"/v1/auth/register",
		map[string]string{"name": name, "email": email, "password": password})
	if regErr == nil && regStatus/100 == 2 {
		if t := findAccessToken(regBody); t != "" {
			return t, "registered", nil
		}
	}
	status, body, err := postJSON(ctx, client, base+"/v1/auth/login",
		map[string]string{"email": email, "password": password})
	if err != nil {
		return "", "", fmt.Errorf("login: %w", err)
	}
	if status/100 != 2 {
		regNote := ""
		if regErr != nil {
			regNote = fmt.Sprintf(" (register: %v)", regErr)
		} else {
			regNote = fmt.Sprintf(" (register: HTTP %d %s)", regStatus, oneLine(regBody, 200))
		}
		return "", "", fmt.Errorf("login: HTTP %d %s%s", status, oneLine(body, 200), regNote)
	}
	t := findAccessToken(body)
	if t == "" {
		return "", "", fmt.Errorf("login: no accessToken in response %s", oneLine(body, 200))
	}
	return t, "logged in", nil
}

func postJSON(ctx context.Context, c *http.Client, u string, v any) (int, []byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(b))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, body, err
}

// findAccessToken looks for "accessToken" at the top level and one object
// down, so a response envelope like {"data": {...}} or {"tokens": {...}}
// doesn't break the pre-step.
func findAccessToken(body []byte) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return ""
	}
	if t := tokenField(top); t != "" {
		return t
	}
	for _, raw := range top {
		var inner map[string]json.RawMessage
		if json.Unmarshal(raw, &inner) == nil {
			if t := tokenField(inner); t != "" {
				return t
			}
		}
	}
	return ""
}

func tokenField(m map[string]json.RawMessage) string {
	var s string
	if raw, ok := m["accessToken"]; ok && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

// raiseFileLimit lifts RLIMIT_NOFILE: every in-flight request and held
// WebSocket is a descriptor, and running out shows up as dial errors that
// look like server failures. Go already raises the soft limit to the hard
// one at start-up; this goes further (as root) when that is still short.
func raiseFileLimit(o *options, stderr io.Writer) {
	// Descriptors we know we will hold, plus headroom for the HTTP pool.
	sure := uint64(o.wsConns) + o.maxWorkers + 1024
	// With unlimited workers, in-flight requests can reach rate × timeout
	// when the server stalls; ask for that much but don't insist on it.
	rate := o.rate
	if o.saturate {
		rate = o.sat.MaxRate
	}
	hope := sure
	if o.maxWorkers == 0 {
		hope += uint64(rate * o.timeout.Seconds())
	}
	hope = min(hope, 1<<20)

	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return
	}
	for _, want := range []uint64{hope, sure} {
		if lim.Cur >= want {
			return
		}
		next := syscall.Rlimit{Cur: want, Max: max(lim.Max, want)}
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &next) == nil {
			return
		}
	}
	// Not privileged: take what the hard limit allows.
	if lim.Cur < lim.Max {
		next := syscall.Rlimit{Cur: lim.Max, Max: lim.Max}
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &next) == nil {
			lim = next
		}
	}
	if lim.Cur < sure {
		fmt.Fprintf(stderr, "loadgen: open-file limit is %d but this run holds about %d; expect dial errors\n", lim.Cur, sure)
	}
}

// readTokens reads -device-tokens: one token a line, blank lines and surrounding space ignored.
func readTokens(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var tokens []string
	for _, line := range strings.Split(string(raw), "\n") {
		if t := strings.TrimSpace(line); t != "" {
			tokens = append(tokens, t)
		}
	}
	if len(tokens) == 0 {
		return nil, fmt.Errorf("%s: no device tokens", path)
	}
	return tokens, nil
}
