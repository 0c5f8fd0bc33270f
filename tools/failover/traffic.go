package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// kind of request a sample records.
type kind string

const (
	kindWrite kind = "write" // a site created
	kindHL7   kind = "hl7"   // a batch of HL7 admissions
	kindCast  kind = "cast"  // a message cast to the wallboard
)

// sample is one request the traffic sent.
type sample struct {
	kind       kind
	start, end time.Time
	status     int // 0: no answer (connection error or the client's timeout)
	code       string
}

func (s sample) ok() bool { return s.status >= 200 && s.status < 300 }

// traffic is the steady load of the test: site writes, HL7 batches and a wallboard's socket.
type traffic struct {
	base   string // http://host:port/v1
	token  string
	org    string
	site   string
	device string
	http   *http.Client

	mu      sync.Mutex
	samples []sample
	sites   []string // ids of sites whose creation was acknowledged
	hl7IDs  []string // control ids of messages acknowledged (applied)
	frames  []time.Time
	seq     atomic.Int64
}

func newTraffic(base string) *traffic {
	return &traffic{base: strings.TrimRight(base, "/") + "/v1", http: &http.Client{Timeout: 75 * time.Second}}
}

// call sends one request and decodes a 2xx body into out; status 0 means no answer.
func (t *traffic) call(ctx context.Context, method, path string, body, out any) (status int, code string, err error) {
	var r io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, t.base+path, r)
	if err != nil {
		return 0, "", err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if t.token != "" {
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	res, err := t.http.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		var e struct {
			Code string `json:"code"`
		}
		_ = json.Unmarshal(raw, &e)
		return res.StatusCode, e.Code, fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return res.StatusCode, "", err
		}
	}
	return res.StatusCode, "", nil
}

// setup registers an owner with an organization, creates a site and pairs a wallboard.
func (t *traffic) setup(ctx context.Context) error {
	var session struct {
		AccessToken string `json:"accessToken"`
		User        struct {
			Memberships []struct {
				OrgID string `json:"orgId"`
			} `json:"memberships"`
		} `json:"user"`
	}
	email := fmt.Sprintf("failover-%d@example.com", rand.Int64())
	if _, _, err := t.call(ctx, "POST", "/auth/register", map[string]string{
		"name": "Failover test", "email": email, "password": "walk-in-cooler-pantry-9", "orgName": "Failover Kitchens",
	}, &session); err != nil {
		return err
	}
	if len(session.User.Memberships) == 0 {
		return errors.New("registration created no organization")
	}
	t.token, t.org = session.AccessToken, session.User.Memberships[0].OrgID
	var site, device struct {
		ID string `json:"id"`
	}
	if _, _, err := t.call(ctx, "POST", "/orgs/"+t.org+"/sites", map[string]string{"name": "Main kitchen", "timezone": "America/Chicago"}, &site); err != nil {
		return err
	}
	t.site = site.ID
	if _, _, err := t.call(ctx, "POST", "/orgs/"+t.org+"/devices", map[string]string{"name": "Hot line", "kind": "wallboard_boh", "siteId": t.site}, &device); err != nil {
		return err
	}
	t.device = device.ID
	var code struct {
		Code string `json:"code"`
	}
	if _, _, err := t.call(ctx, "POST", "/orgs/"+t.org+"/devices/"+t.device+"/pair", nil, &code); err != nil {
		return err
	}
	var paired struct {
		DeviceToken string `json:"deviceToken"`
	}
	anon := &traffic{base: t.base, http: t.http}
	if _, _, err := anon.call(ctx, "POST", "/devices/pair", map[string]string{"code": code.Code}, &paired); err != nil {
		return err
	}
	wsURL := "ws" + strings.TrimPrefix(t.base, "http") + "/board/ws?token=" + url.QueryEscape(paired.DeviceToken)
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	conn, _, err := websocket.Dial(dctx, wsURL, nil)
	cancel()
	if err != nil {
		return fmt.Errorf("board socket: %w", err)
	}
	go func() {
		defer conn.CloseNow()
		for {
			if _, _, err := conn.Read(ctx); err != nil {
				return
			}
			t.mu.Lock()
			t.frames = append(t.frames, time.Now())
			t.mu.Unlock()
		}
	}()
	return nil
}

func (t *traffic) record(s sample) {
	t.mu.Lock()
	t.samples = append(t.samples, s)
	t.mu.Unlock()
}

// run drives writers site writers and one HL7 feed until ctx ends.
func (t *traffic) run(ctx context.Context, writers int, pause time.Duration) {
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for ctx.Err() == nil {
				t.writeSite(ctx)
				sleep(ctx, pause)
			}
		})
	}
	wg.Go(func() {
		for ctx.Err() == nil {
			t.sendHL7(ctx, 3)
			sleep(ctx, 10*pause)
		}
	})
	// A load balancer's readiness probe, once a second.
	wg.Go(func() {
		ready := strings.TrimSuffix(t.base, "/v1") + "/readyz"
		for ctx.Err() == nil {
			if res, err := t.http.Get(ready); err == nil {
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
			sleep(ctx, time.Second)
		}
	})
	wg.Wait()
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func (t *traffic) writeSite(ctx context.Context) {
	n := t.seq.Add(1)
	var site struct {
		ID string `json:"id"`
	}
	start := time.Now()
	status, code, _ := t.call(context.WithoutCancel(ctx), "POST", "/orgs/"+t.org+"/sites",
		map[string]string{"name": fmt.Sprintf("Site %d", n), "timezone": "America/Chicago"}, &site)
	s := sample{kind: kindWrite, start: start, end: time.Now(), status: status, code: code}
	t.mu.Lock()
	t.samples = append(t.samples, s)
	if s.ok() {
		t.sites = append(t.sites, site.ID)
	}
	t.mu.Unlock()
}

const admission = "MSH|^~\\&|EPIC|HMC|SOUS|SOUS|20260302083000||ADT^A01|%s|P|2.5.1\rEVN|A01|20260302083000\rPID|1||%s^^^HMC^MR||DOE^JANE||19800412|F\rPV1|1|I|4W^412^A\r"

func (t *traffic) sendHL7(ctx context.Context, messages int) {
	ids := make([]string, messages)
	var body strings.Builder
	for i := range ids {
		n := t.seq.Add(1)
		ids[i] = fmt.Sprintf("FO%d", n)
		fmt.Fprintf(&body, admission, ids[i], fmt.Sprintf("MRN%d", n))
	}
	var res struct {
		Results []struct {
			Outcome string `json:"outcome"`
		} `json:"results"`
	}
	start := time.Now()
	status, code, _ := t.call(context.WithoutCancel(ctx), "POST", "/orgs/"+t.org+"/adt/hl7",
		map[string]string{"siteId": t.site, "message": body.String()}, &res)
	s := sample{kind: kindHL7, start: start, end: time.Now(), status: status, code: code}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.samples = append(t.samples, s)
	if s.ok() {
		for i, r := range res.Results {
			if i < len(ids) && r.Outcome == "applied" {
				t.hl7IDs = append(t.hl7IDs, ids[i])
			}
		}
	}
}

// cast sends a message to the wallboard, whose socket should then get a hint.
func (t *traffic) cast(ctx context.Context) sample {
	start := time.Now()
	status, code, _ := t.call(ctx, "POST", "/orgs/"+t.org+"/devices/"+t.device+"/cast",
		map[string]string{"type": "message", "text": fmt.Sprintf("failover %d", t.seq.Add(1))}, nil)
	s := sample{kind: kindCast, start: start, end: time.Now(), status: status, code: code}
	t.record(s)
	return s
}

// frameAfter is the first socket frame at or after at.
func (t *traffic) frameAfter(at time.Time) (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, f := range t.frames {
		if !f.Before(at) {
			return f, true
		}
	}
	return time.Time{}, false
}

// between returns the samples that started in [from, to).
func (t *traffic) between(from, to time.Time) []sample {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []sample
	for _, s := range t.samples {
		if !s.start.Before(from) && s.start.Before(to) {
			out = append(out, s)
		}
	}
	return out
}

// acknowledged returns copies of the acknowledged site ids and HL7 control ids.
func (t *traffic) acknowledged() (sites, hl7 []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.sites...), append([]string(nil), t.hl7IDs...)
}
