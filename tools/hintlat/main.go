// Command hintlat measures how long a change to a device's state takes to reach the device's
// WebSocket as a hint, across replicas: the write goes to one server (-a), the socket is held
// on another (-b), both on one database, so the hint travels through PostgreSQL LISTEN/NOTIFY.
//
// It signs in on -a as -login (registering it with an organization if new; a fresh random owner
// without -login), creates a site and a wallboard, pairs it, opens the wallboard's socket on -b, then -n times: casts a message to the wallboard through -a
// and waits for the frame on -b before the next cast (writes are paced at -rate at most). Each
// sample is measured from just before the cast request leaves to the frame's arrival, so it
// includes the write's own round trip and commit; the cast's round trip alone is printed too, and
// how long after the cast's response the frame came (0 when it came first).
// The wallboard is deleted at the end, so repeated runs do not fill the plan's device cap.
//
//	go run -C tools ./hintlat -a http://127.0.0.1:8081 -b http://127.0.0.1:8082 \
//	    -login bench@example.com:walk-in-cooler-pantry-9 -n 2000 -rate 20
//
// Only loopback servers unless -allow-remote.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/coder/websocket"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "hintlat:", err)
		os.Exit(1)
	}
}

type client struct {
	base  string
	token string
	http  *http.Client
}

func (c *client) do(method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	if err != nil {
		return err
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
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

func run(args []string) error {
	fs := flag.NewFlagSet("hintlat", flag.ContinueOnError)
	a := fs.String("a", "http://127.0.0.1:8081", "server that receives the writes")
	b := fs.String("b", "http://127.0.0.1:8082", "server that holds the device's WebSocket")
	n := fs.Int("n", 1000, "number of writes (samples)")
	rate := fs.Float64("rate", 20, "at most this many writes per second")
	timeout := fs.Duration("timeout", 5*time.Second, "give up on a frame after this long (counted as lost)")
	allowRemote := fs.Bool("allow-remote", false, "allow servers that are not loopback addresses")
	login := fs.String("login", "", "email:password of an owner to use (registered with an organization if new); default a new random one each run")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, s := range []string{*a, *b} {
		if err := checkLoopback(s, *allowRemote); err != nil {
			return err
		}
	}
	api := &client{base: strings.TrimRight(*a, "/") + "/v1", http: &http.Client{Timeout: 10 * time.Second}}

	// Set up: an owner with an organization, a site, a paired wallboard.
	org, err := signIn(api, *login)
	if err != nil {
		return err
	}
	var site, device struct {
		ID string `json:"id"`
	}
	if err := api.do("POST", "/orgs/"+org+"/sites", map[string]string{"name": "Main Kitchen", "timezone": "America/Chicago"}, &site); err != nil {
		return err
	}
	if err := api.do("POST", "/orgs/"+org+"/devices", map[string]string{"name": "Hot line", "kind": "wallboard_boh", "siteId": site.ID}, &device); err != nil {
		return err
	}
	var code struct {
		Code string `json:"code"`
	}
	if err := api.do("POST", "/orgs/"+org+"/devices/"+device.ID+"/pair", nil, &code); err != nil {
		return err
	}
	var paired struct {
		DeviceToken string `json:"deviceToken"`
	}
	if err := (&client{base: api.base, http: api.http}).do("POST", "/devices/pair", map[string]string{"code": code.Code}, &paired); err != nil {
		return err
	}

	ctx := context.Background()
	wsURL := "ws" + strings.TrimPrefix(strings.TrimRight(*b, "/"), "http") + "/v1/board/ws?token=" + url.QueryEscape(paired.DeviceToken)
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	conn, _, err := websocket.Dial(dctx, wsURL, nil)
	cancel()
	if err != nil {
		return fmt.Errorf("dial %s: %w", *b, err)
	}
	defer conn.CloseNow()
	frames := make(chan time.Time, 16)
	go func() {
		defer close(frames)
		for {
			if _, _, err := conn.Read(ctx); err != nil {
				return
			}
			frames <- time.Now()
		}
	}()

	fmt.Fprintf(os.Stderr, "hintlat: writes to %s, socket on %s, %d samples at most %.0f/s\n", *a, *b, *n, *rate)
	castPath := "/orgs/" + org + "/devices/" + device.ID + "/cast"
	interval := time.Duration(float64(time.Second) / *rate)
	var hint, write, after []time.Duration
	lost, early := 0, 0
	next := time.Now()
	for i := range *n {
		time.Sleep(time.Until(next))
		next = next.Add(interval)
		t0 := time.Now()
		if err := api.do("POST", castPath, map[string]string{"type": "message", "text": fmt.Sprintf("hint %d", i)}, nil); err != nil {
			return err
		}
		done := time.Now()
		write = append(write, done.Sub(t0))
		select {
		case at, ok := <-frames:
			if !ok {
				return errors.New("the socket closed")
			}
			hint = append(hint, at.Sub(t0))
			// The hint is sent at commit, before the response is written; a frame that arrived
			// before the response counts as 0 here.
			if at.Before(done) {
				early++
				at = done
			}
			after = append(after, at.Sub(done))
		case <-time.After(*timeout):
			lost++
		}
	}
	_ = conn.Close(websocket.StatusNormalClosure, "")
	// The wallboard counts against the plan's device cap; leave the organization as found.
	if err := api.do("DELETE", "/orgs/"+org+"/devices/"+device.ID, nil, nil); err != nil {
		fmt.Fprintln(os.Stderr, "hintlat: cleaning up:", err)
	}

	fmt.Printf("Samples       %d writes, %d frames, %d lost (no frame within %v), %d frames before the write's response\n", *n, len(hint), lost, *timeout, early)
	fmt.Printf("\n%16s %9s %9s %9s %9s %9s\n", "", "p50", "p90", "p99", "p99.9", "max")
	for _, row := range []struct {
		name string
		ds   []time.Duration
	}{{"write → frame", hint}, {"write only", write}, {"response → frame", after}} {
		s := slices.Clone(row.ds)
		slices.Sort(s)
		fmt.Printf("%16s %9s %9s %9s %9s %9s\n", row.name, ms(q(s, 0.5)), ms(q(s, 0.9)), ms(q(s, 0.99)), ms(q(s, 0.999)), ms(q(s, 1)))
	}
	return nil
}

// signIn logs in as login (email:password), registering it with an organization when it does
// not exist yet, or registers a fresh owner when login is empty. It returns an organization the
// user owns, creating one if needed. Registrations are limited to 3 per IP per hour, so repeated
// runs should pass -login.
func signIn(api *client, login string) (org string, err error) {
	email, password, _ := strings.Cut(login, ":")
	if login == "" {
		email, password = fmt.Sprintf("hintlat-%d@example.com", rand.Int64()), "walk-in-cooler-pantry-9"
	}
	var session struct {
		AccessToken string `json:"accessToken"`
		User        struct {
			Memberships []struct {
				OrgID string `json:"orgId"`
				Role  string `json:"role"`
			} `json:"memberships"`
		} `json:"user"`
	}
	err = api.do("POST", "/auth/login", map[string]string{"email": email, "password": password}, &session)
	if err != nil {
		err = api.do("POST", "/auth/register", map[string]string{
			"name": "Hint latency", "email": email, "password": password, "orgName": "Hint Latency Kitchens",
		}, &session)
	}
	if err != nil {
		return "", err
	}
	api.token = session.AccessToken
	for _, m := range session.User.Memberships {
		if m.Role == "owner" || m.Role == "admin" {
			return m.OrgID, nil
		}
	}
	var o struct {
		ID string `json:"id"`
	}
	if err := api.do("POST", "/orgs", map[string]string{"name": "Hint Latency Kitchens"}, &o); err != nil {
		return "", err
	}
	return o.ID, nil
}

// q is the nearest-rank quantile of a sorted slice.
func q(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }

func checkLoopback(raw string, allowRemote bool) error {
	if allowRemote {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s is not a loopback address; pass -allow-remote to measure it anyway", raw)
}
