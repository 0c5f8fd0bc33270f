// Command devfleet provisions a fleet of paired devices for load tests and writes their tokens,
// one a line, for loadgen's -device-tokens.
//
// It signs in as -login (an owner; the organization's plan must allow -n paired devices: pro
// allows 25, so set enterprise first with `sous admin plan --org <id> --tier enterprise`),
// creates a site (or uses -site), then registers, pairs and claims -n devices of -kind, -workers
// at a time. Claims are limited to 10 per minute per client IP, so each claim says it comes from
// a different address in X-Forwarded-For: run the server with SOUS_TRUSTED_PROXIES=127.0.0.1/32.
//
//	go run -C tools ./devfleet -base http://127.0.0.1:8081 -login "$EMAIL:$PASS" -n 2000 -out $BENCH/tokens.txt
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
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "devfleet:", err)
		os.Exit(1)
	}
}

type client struct {
	base  string
	token string
	http  *http.Client
}

func (c *client) do(ctx context.Context, method, path string, header http.Header, body, out any) error {
	var r io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
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
	fs := flag.NewFlagSet("devfleet", flag.ContinueOnError)
	base := fs.String("base", "http://127.0.0.1:8080", "server base URL")
	login := fs.String("login", "", "owner's email:password")
	org := fs.String("org", "", "organization id (default: the first membership's)")
	site := fs.String("site", "", "site id (default: create one)")
	n := fs.Int("n", 100, "devices to provision")
	kind := fs.String("kind", "wallboard_boh", "device kind")
	out := fs.String("out", "tokens.txt", "file the device tokens are written to, one a line")
	workers := fs.Int("workers", 8, "devices provisioned at once")
	allowRemote := fs.Bool("allow-remote", false, "allow a server that is not on a loopback address")
	if err := fs.Parse(args); err != nil {
		return err
	}
	email, password, ok := strings.Cut(*login, ":")
	if !ok || *n <= 0 || *workers <= 0 {
		return errors.New("need -login email:password, -n > 0 and -workers > 0")
	}
	if u, err := url.Parse(*base); err != nil {
		return err
	} else if !*allowRemote {
		host := u.Hostname()
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return fmt.Errorf("%s is not a loopback server (use -allow-remote)", *base)
		}
	}
	ctx := context.Background()
	c := &client{base: strings.TrimSuffix(*base, "/"), http: &http.Client{Timeout: 30 * time.Second}}
	var session struct {
		AccessToken string `json:"accessToken"`
	}
	if err := c.do(ctx, http.MethodPost, "/v1/auth/login", nil, map[string]string{"email": email, "password": password}, &session); err != nil {
		return err
	}
	c.token = session.AccessToken
	if *org == "" {
		var me struct {
			Memberships []struct {
				OrgID string `json:"orgId"`
			} `json:"memberships"`
		}
		if err := c.do(ctx, http.MethodGet, "/v1/auth/me", nil, nil, &me); err != nil {
			return err
		}
		if len(me.Memberships) == 0 {
			return errors.New("the user has no organization")
		}
		*org = me.Memberships[0].OrgID
	}
	if *site == "" {
		var s struct {
			ID string `json:"id"`
		}
		body := map[string]string{"name": fmt.Sprintf("Fleet %d", time.Now().Unix()), "timezone": "America/Chicago"}
		if err := c.do(ctx, http.MethodPost, "/v1/orgs/"+*org+"/sites", nil, body, &s); err != nil {
			return err
		}
		*site = s.ID
	}

	tokens := make([]string, *n)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, *workers)
	start := time.Now()
	for range *workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= *n {
					return
				}
				tok, err := provision(ctx, c, *org, *site, *kind, i)
				if err != nil {
					errs <- fmt.Errorf("device %d: %w", i, err)
					return
				}
				tokens[i] = tok
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	if err := os.WriteFile(*out, []byte(strings.Join(tokens, "\n")+"\n"), 0o600); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "devfleet: %d %s devices paired at site %s of %s in %s; tokens in %s\n",
		*n, *kind, *site, *org, time.Since(start).Round(time.Millisecond), *out)
	return nil
}

// provision registers device i, mints its pairing code and claims it as the device would, from
// an address of its own (10.x.y.z in X-Forwarded-For) so the per-IP claim limit does not apply.
func provision(ctx context.Context, c *client, org, site, kind string, i int) (string, error) {
	var dev struct {
		ID string `json:"id"`
	}
	body := map[string]string{"name": fmt.Sprintf("Screen %04d", i), "kind": kind, "siteId": site}
	if err := c.do(ctx, http.MethodPost, "/v1/orgs/"+org+"/devices", nil, body, &dev); err != nil {
		return "", err
	}
	var code struct {
		Code string `json:"code"`
	}
	if err := c.do(ctx, http.MethodPost, "/v1/orgs/"+org+"/devices/"+dev.ID+"/pair", nil, nil, &code); err != nil {
		return "", err
	}
	var claim struct {
		DeviceToken string `json:"deviceToken"`
	}
	device := &client{base: c.base, http: c.http}
	h := http.Header{"X-Forwarded-For": {fmt.Sprintf("10.%d.%d.%d", (i>>16)&0xff, (i>>8)&0xff, i&0xff)}}
	if err := device.do(ctx, http.MethodPost, "/v1/devices/pair", h, map[string]string{"code": code.Code}, &claim); err != nil {
		return "", err
	}
	return claim.DeviceToken, nil
}
