// Command sensorsim simulates a fleet of sensor gateways and their probes through the real API:
// it signs in as an owner, creates a site with a walk-in cooler, a reach-in and a walk-in
// freezer, registers, pairs and claims -gateways sensor gateways, registers -probes temperature
// probes and a door sensor on each, then sends their readings as gateways do, one call per
// gateway and report interval.
//
// The probes drift, defrost every few hours, warm when their gateway's walk-in door opens (a
// delivery, a cook fetching stock), and -failing of them lose their compressor at a random
// moment and climb toward the kitchen's air: the excursions, alerts and corrective tasks follow.
// One gateway in -outage-every goes offline for -outage, buffering its readings, then flushes
// the buffer oldest first (at most 1,000 a call) before its current readings.
//
// Simulated time runs -speed times faster than the wall clock, from -duration ago up to now
// (readings are never sent ahead of the server's clock); with -duration 0 it runs live until
// interrupted.
//
//	go run -C tools ./sensorsim -base http://127.0.0.1:8080 -login "$EMAIL:$PASS" -gateways 3 -probes 4 -duration 6h -speed 600
//
// Pairing claims are limited per client IP; each claim says it comes from an address of its own
// in X-Forwarded-For, which the server believes with SOUS_TRUSTED_PROXIES=127.0.0.1/32 (without
// it, pair at most 10 gateways a minute). Only loopback servers unless -allow-remote.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "sensorsim:", err)
		os.Exit(1)
	}
}

type options struct {
	base, login, org, site string
	gateways, probes       int
	failing                int
	every, duration        time.Duration
	outage                 time.Duration
	outageEvery            int
	speed                  float64
	seed                   uint64
	allowRemote            bool
}

func parse(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("sensorsim", flag.ContinueOnError)
	fs.StringVar(&o.base, "base", "http://127.0.0.1:8080", "server base URL")
	fs.StringVar(&o.login, "login", "", "owner's email:password")
	fs.StringVar(&o.org, "org", "", "organization id (default: the first membership's)")
	fs.StringVar(&o.site, "site", "", "site id (default: create one)")
	fs.IntVar(&o.gateways, "gateways", 3, "sensor gateways")
	fs.IntVar(&o.probes, "probes", 4, "temperature probes per gateway (plus one door sensor each)")
	fs.IntVar(&o.failing, "failing", 1, "probes whose compressor fails during the run")
	fs.DurationVar(&o.every, "every", time.Minute, "report interval: one reading per probe and call per gateway")
	fs.DurationVar(&o.duration, "duration", 6*time.Hour, "simulated time, ending now (0: live until interrupted)")
	fs.DurationVar(&o.outage, "outage", time.Hour, "how long an outage lasts (0: none)")
	fs.IntVar(&o.outageEvery, "outage-every", 3, "one gateway in this many goes offline once, mid-run")
	fs.Float64Var(&o.speed, "speed", 60, "simulated seconds per wall-clock second (0: as fast as the server answers)")
	fs.Uint64Var(&o.seed, "seed", 1, "random seed (the same seed, the same fleet and events)")
	fs.BoolVar(&o.allowRemote, "allow-remote", false, "allow a server that is not on a loopback address")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case !strings.Contains(o.login, ":"):
		return o, errors.New("need -login email:password")
	case o.gateways < 1 || o.gateways > 1000 || o.probes < 1 || o.probes > 999:
		return o, errors.New("-gateways must be 1..1000 and -probes 1..999 (a call carries at most 1,000 readings)")
	case o.every < 15*time.Second || o.every > time.Hour:
		return o, errors.New("-every must be 15s..1h (a gateway's reportIntervalSeconds)")
	case o.speed < 0 || o.duration < 0 || o.outage < 0 || o.outageEvery < 1 || o.failing < 0:
		return o, errors.New("-speed, -duration, -outage and -failing may not be negative; -outage-every is at least 1")
	}
	u, err := url.Parse(o.base)
	if err != nil {
		return o, err
	}
	if host := u.Hostname(); !o.allowRemote {
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return o, fmt.Errorf("%s is not a loopback server (use -allow-remote)", o.base)
		}
	}
	o.base = strings.TrimSuffix(o.base, "/")
	return o, nil
}

type client struct {
	base  string
	token string
	http  *http.Client
}

func (c *client) do(ctx context.Context, method, path string, header http.Header, body, out any) error {
	var r io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode >= 300 {
		e := &statusError{method: method, path: path, status: res.StatusCode, body: raw}
		if secs, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && secs >= 0 {
			e.retryAfter = time.Duration(secs) * time.Second
		}
		return e
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// statusError is an answer other than 2xx, with its Retry-After.
type statusError struct {
	method, path string
	status       int
	body         []byte
	retryAfter   time.Duration
}

func (e *statusError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.method, e.path, e.status, e.body)
}

// gateway is one simulated gateway: its token, probes, door, and the readings it buffers while
// offline.
type gateway struct {
	name        string
	token       string
	probes      []*probe
	door        *door
	outageFrom  time.Time // zero: no outage
	outageUntil time.Time
	buffer      []reading
}

type reading struct {
	Sensor string    `json:"sensor"`
	At     time.Time `json:"at"`
	Value  string    `json:"value"`
	Unit   string    `json:"unit"`
}

type tally struct {
	mu                              sync.Mutex
	calls, accepted, dups, rejected int
	failed                          int
}

func run(args []string) error {
	o, err := parse(args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	c := &client{base: o.base, http: &http.Client{Timeout: 60 * time.Second}}
	fleet, err := setUp(ctx, c, &o)
	if err != nil {
		return err
	}
	now := time.Now().UTC().Truncate(time.Second)
	start := now.Add(-o.duration)
	plan(fleet, o, start)
	fmt.Fprintf(os.Stderr, "sensorsim: %d gateways × %d probes + a door each at site %s of org %s, from %s at %gx\n",
		len(fleet), o.probes, o.site, o.org, start.Format(time.RFC3339), o.speed)

	var t tally
	wallStart := time.Now()
	hour := start
	for at := start; o.duration == 0 || at.Before(now); at = at.Add(o.every) {
		// Pace: simulated time runs speed× the wall clock, and never ahead of it.
		wait := time.Until(wallStart.Add(time.Duration(float64(at.Sub(start)) / max(o.speed, 1e-9))))
		if o.speed == 0 {
			wait = 0
		}
		wait = max(wait, time.Until(at))
		if wait > 0 {
			select {
			case <-ctx.Done():
				return summary(ctx, c, o, &t)
			case <-time.After(wait):
			}
		}
		if ctx.Err() != nil {
			break
		}
		tick(ctx, fleet, at, o.every, &t)
		if at.Sub(hour) >= time.Hour {
			hour = at
			t.mu.Lock()
			fmt.Fprintf(os.Stderr, "sensorsim: at %s: %d calls, %d accepted, %d duplicates, %d rejected, %d failed\n",
				at.Format("2006-01-02 15:04"), t.calls, t.accepted, t.dups, t.rejected, t.failed)
			t.mu.Unlock()
		}
	}
	// Gateways still offline at the end flush what they buffered.
	for _, g := range fleet {
		g.outageUntil = time.Time{}
	}
	tick(ctx, fleet, time.Time{}, o.every, &t)
	return summary(ctx, c, o, &t)
}

// plan picks the failing compressors and the outages, from the seed.
func plan(fleet []*gateway, o options, start time.Time) {
	rng := rand.New(rand.NewPCG(o.seed, 2))
	span := o.duration
	if span == 0 {
		span = 6 * time.Hour
	}
	var all []*probe
	for _, g := range fleet {
		all = append(all, g.probes...)
	}
	for i, p := range rng.Perm(len(all)) {
		if i >= o.failing {
			break
		}
		all[p].failAt = start.Add(span/4 + time.Duration(rng.Int64N(int64(span/2))))
	}
	if o.outage > 0 {
		for i, g := range fleet {
			if i%o.outageEvery == 0 {
				g.outageFrom = start.Add(span / 3).Add(time.Duration(i) * o.every)
				g.outageUntil = g.outageFrom.Add(o.outage)
			}
		}
	}
}

// tick makes every gateway's readings at at (none when at is zero: only flushes) and sends them,
// the gateways at once; a gateway in an outage keeps them.
func tick(ctx context.Context, fleet []*gateway, at time.Time, every time.Duration, t *tally) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for _, g := range fleet {
		if !at.IsZero() {
			open, ago, openFor := g.door.step(at, every)
			state := "closed"
			if open {
				state = "open"
			}
			g.buffer = append(g.buffer, reading{Sensor: g.door.ext, At: at, Value: "0", Unit: state})
			for _, p := range g.probes {
				g.buffer = append(g.buffer, reading{Sensor: p.ext, At: at, Value: strconv.FormatFloat(p.at(at, ago, openFor), 'f', 1, 64), Unit: "F"})
			}
			if !g.outageFrom.IsZero() && !at.Before(g.outageFrom) && at.Before(g.outageUntil) {
				continue // offline: buffered
			}
		}
		if len(g.buffer) == 0 {
			continue
		}
		batch := g.buffer
		g.buffer = nil
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			send(ctx, g, batch, t)
		}()
	}
	wg.Wait()
}

// send posts a gateway's readings, oldest first, at most 1,000 a call.
func send(ctx context.Context, g *gateway, rs []reading, t *tally) {
	for len(rs) > 0 {
		n := min(len(rs), 1000)
		var res struct {
			Accepted   int   `json:"accepted"`
			Duplicates int   `json:"duplicates"`
			Rejected   []any `json:"rejected"`
		}
		err := gatewayClient.do(ctx, http.MethodPost, "/v1/device/readings", http.Header{"X-Device-Token": {g.token}}, map[string]any{"readings": rs[:n]}, &res)
		t.mu.Lock()
		t.calls++
		if err != nil {
			t.failed++
			fmt.Fprintf(os.Stderr, "sensorsim: %s: %v\n", g.name, err)
		}
		t.accepted += res.Accepted
		t.dups += res.Duplicates
		t.rejected += len(res.Rejected)
		t.mu.Unlock()
		rs = rs[n:]
	}
}

// gatewayClient sends the gateways' calls (no user token); setUp sets its base.
var gatewayClient = &client{http: &http.Client{Timeout: 60 * time.Second}}

// summary prints the totals and the site's open alerts by kind.
func summary(ctx context.Context, c *client, o options, t *tally) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := signIn(ctx, c, o.login); err != nil {
		return err
	}
	counts := map[string]int{}
	for _, status := range []string{"open", "resolved"} {
		var alerts []struct {
			Kind string `json:"kind"`
		}
		if err := c.do(ctx, http.MethodGet, "/v1/orgs/"+o.org+"/alerts?siteId="+o.site+"&status="+status+"&limit=500", nil, nil, &alerts); err != nil {
			return err
		}
		for _, a := range alerts {
			counts[status+" "+a.Kind]++
		}
	}
	fmt.Fprintf(os.Stderr, "sensorsim: done: %d calls, %d readings accepted, %d duplicates, %d rejected, %d calls failed; alerts %v\n",
		t.calls, t.accepted, t.dups, t.rejected, t.failed, counts)
	if t.failed > 0 {
		return fmt.Errorf("%d calls failed", t.failed)
	}
	return nil
}
