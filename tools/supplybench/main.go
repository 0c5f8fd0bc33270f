// Command supplybench provisions the stock benchmarks of docs/benchmarks.md and writes loadgen
// targets for them.
//
// It signs in as -login (an owner), creates a site with -locations storage locations and -items
// inventory items, gives every item an opening balance at every location (200 ledger lines per
// request), and writes into -out:
//
//   - adjust.targets: POST /stock/adjust of one line, round-robin over the first -hot items at
//     the first location, an issue of 1 lb then a receipt of 1 lb at a cost, so the stock never
//     runs out (for loadgen -targets; the header carries the access token, valid 15 minutes);
//   - stock.url: GET /stock?siteId=…&limit=500, the first page of the site's stock;
//   - site.txt: the organization and site ids, for the invariant check afterwards.
//
// Usage:
//
//	go run -C tools ./supplybench -base http://127.0.0.1:28080 -login "$EMAIL:$PASS" -items 5000 -out $BENCH
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
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "supplybench:", err)
		os.Exit(1)
	}
}

type client struct {
	base  string
	token string
	http  *http.Client
}

func (c *client) do(ctx context.Context, method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
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

type created struct {
	ID string `json:"id"`
}

func run(args []string) error {
	fs := flag.NewFlagSet("supplybench", flag.ContinueOnError)
	base := fs.String("base", "http://127.0.0.1:8080", "server base URL")
	login := fs.String("login", "", "owner's email:password (registered if unknown)")
	nItems := fs.Int("items", 5000, "inventory items")
	nLocs := fs.Int("locations", 4, "storage locations")
	hot := fs.Int("hot", 10, "items the adjust targets write to")
	outDir := fs.String("out", ".", "directory the targets are written to")
	workers := fs.Int("workers", 8, "requests in flight while provisioning")
	allowRemote := fs.Bool("allow-remote", false, "allow a server that is not on a loopback address")
	if err := fs.Parse(args); err != nil {
		return err
	}
	email, password, ok := strings.Cut(*login, ":")
	if !ok || *nItems < *hot || *hot <= 0 || *nLocs <= 0 || *workers <= 0 {
		return errors.New("need -login email:password, -items ≥ -hot > 0, -locations > 0, -workers > 0")
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
	c := &client{base: strings.TrimSuffix(*base, "/"), http: &http.Client{Timeout: 60 * time.Second}}
	var session struct {
		AccessToken string `json:"accessToken"`
	}
	if err := c.do(ctx, http.MethodPost, "/v1/auth/login", map[string]string{"email": email, "password": password}, &session); err != nil {
		if err := c.do(ctx, http.MethodPost, "/v1/auth/register", map[string]string{"email": email, "password": password, "name": "Bench"}, &session); err != nil {
			return err
		}
	}
	c.token = session.AccessToken
	var me struct {
		Memberships []struct {
			OrgID string `json:"orgId"`
		} `json:"memberships"`
	}
	if err := c.do(ctx, http.MethodGet, "/v1/auth/me", nil, &me); err != nil {
		return err
	}
	var org string
	if len(me.Memberships) == 0 {
		var o created
		if err := c.do(ctx, http.MethodPost, "/v1/orgs", map[string]string{"name": "Bench Kitchens"}, &o); err != nil {
			return err
		}
		org = o.ID
	} else {
		org = me.Memberships[0].OrgID
	}
	p := "/v1/orgs/" + org
	var site created
	if err := c.do(ctx, http.MethodPost, p+"/sites", map[string]string{"name": fmt.Sprintf("Bench %d", time.Now().Unix()), "timezone": "America/Chicago"}, &site); err != nil {
		return err
	}
	start := time.Now()
	locs := make([]string, *nLocs)
	for i := range locs {
		var l created
		if err := c.do(ctx, http.MethodPost, p+"/storage-locations", map[string]any{"siteId": site.ID, "name": fmt.Sprintf("Location %d", i+1), "kind": "dry"}, &l); err != nil {
			return err
		}
		locs[i] = l.ID
	}
	items := make([]string, *nItems)
	if err := parallel(*workers, *nItems, func(i int) error {
		var it created
		err := c.do(ctx, http.MethodPost, p+"/inventory-items", map[string]any{
			"name": fmt.Sprintf("Item %05d", i), "category": "bench", "baseUnit": "lb", "units": []map[string]string{{"name": "case", "factor": "12"}},
			"parLevels": []map[string]string{{"siteId": site.ID, "par": "100", "reorderPoint": "40"}},
		}, &it)
		items[i] = it.ID
		return err
	}); err != nil {
		return err
	}
	// Opening balances: every item at every location, 200 lines a request.
	type line = map[string]any
	var lines []line
	for i, it := range items {
		for _, l := range locs {
			qty := "1000"
			if i >= *hot {
				qty = fmt.Sprint(1 + i%150)
			}
			lines = append(lines, line{"itemId": it, "locationId": l, "quantity": qty, "unit": "lb", "reason": "receipt", "unitCostCents": 100 + i%900})
		}
	}
	batches := (len(lines) + 199) / 200
	if err := parallel(*workers, batches, func(b int) error {
		end := min((b+1)*200, len(lines))
		return c.do(ctx, http.MethodPost, p+"/stock/adjust", map[string]any{"siteId": site.ID, "lines": lines[b*200 : end]}, nil)
	}); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "supplybench: %d items × %d locations stocked at site %s in %s\n", *nItems, *nLocs, site.ID, time.Since(start).Round(time.Millisecond))

	// adjust.targets: one-line adjustments over the hot items, issue then receipt.
	var targets strings.Builder
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return err
	}
	for i := 0; i < 2*(*hot); i++ {
		l := line{"itemId": items[i%*hot], "locationId": locs[0], "quantity": "-1", "unit": "lb", "reason": "issue"}
		if i >= *hot {
			l = line{"itemId": items[i%*hot], "locationId": locs[0], "quantity": "1", "unit": "lb", "reason": "receipt", "unitCostCents": 150}
		}
		raw, _ := json.Marshal(map[string]any{"siteId": site.ID, "lines": []line{l}})
		bodyFile := filepath.Join(*outDir, fmt.Sprintf("adjust-%02d.json", i))
		if err := os.WriteFile(bodyFile, raw, 0o644); err != nil {
			return err
		}
		abs, _ := filepath.Abs(bodyFile)
		fmt.Fprintf(&targets, "POST %s%s/stock/adjust\nAuthorization: Bearer %s\nContent-Type: application/json\n@%s\n\n", c.base, p, c.token, abs)
	}
	if err := os.WriteFile(filepath.Join(*outDir, "adjust.targets"), []byte(targets.String()), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*outDir, "stock.url"), []byte(fmt.Sprintf("%s%s/stock?siteId=%s&limit=500\n", c.base, p, site.ID)), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(*outDir, "site.txt"), []byte(org+" "+site.ID+"\n"), 0o644)
}

// parallel runs fn(0..n-1), workers at a time, and returns the first error.
func parallel(workers, n int, fn func(int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var first error
	var once sync.Once
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					once.Do(func() { first = err })
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}
