package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// page is the frontend the browser loads from another origin (another loopback port): it signs
// in, reads a list, walks a paged list through Link, and writes what it saw into the DOM.
const page = `<!doctype html>
<html><head><meta charset="utf-8"><title>frontend</title></head><body><pre id="result"></pre>
<script type="module">
const q = new URLSearchParams(location.search);
const api = q.get("api");
const out = {};
try {
  let res = await fetch(api + "/auth/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: q.get("email"), password: q.get("password") }),
  });
  out.loginStatus = res.status;
  out.requestId = res.headers.get("x-request-id");
  out.rateLimitPolicy = res.headers.get("ratelimit-policy");
  const session = await res.json();
  const auth = { authorization: "Bearer " + session.accessToken };
  const org = session.user.memberships[0].orgId;
  res = await fetch(api + "/orgs/" + org + "/sites", { headers: auth });
  out.sites = (await res.json()).map((s) => s.name);
  out.devices = [];
  out.pages = 0;
  let next = api + "/orgs/" + org + "/devices?limit=2";
  while (next) {
    res = await fetch(next, { headers: auth });
    if (!res.ok) throw new Error("page answered " + res.status);
    out.pages++;
    out.devices.push(...(await res.json()).map((d) => d.name));
    const m = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get("link") || "");
    next = m ? m[1] : null;
  }
} catch (e) {
  out.error = String(e);
}
document.getElementById("result").textContent = JSON.stringify(out);
const done = document.createElement("div");
done.id = "done";
document.body.append(done);
</script></body></html>`

func servePage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(page))
}

func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

type pageResult struct {
	LoginStatus     int
	RequestID       string
	RateLimitPolicy string
	Sites           []string
	Devices         []string
	Pages           int
	Error           string
}

func TestBrowserOnAnotherOriginUsesTheAPI(t *testing.T) {
	exe := chromium()
	if exe == "" {
		missingTool(t, "chromium", "apt-get install chromium")
	}
	email, password := seedForBrowser(t)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.Flag("disable-dev-shm-usage", true))
	allocCtx, cancel := chromedp.NewExecAllocator(t.Context(), opts...)
	defer cancel()
	load := func(origin string) pageResult {
		t.Helper()
		ctx, cancel := chromedp.NewContext(allocCtx)
		defer cancel()
		ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
		defer cancelTimeout()
		u := origin + "/?" + url.Values{"api": {srv.API}, "email": {email}, "password": {password}}.Encode()
		if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
			t.Fatalf("%s: %v", origin, err)
		}
		if err := chromedp.Do(ctx, chromedp.WaitReady("#done")); err != nil {
			t.Fatalf("%s: the page did not finish: %v", origin, err)
		}
		text, err := chromedp.Run(ctx, chromedp.TextContent("#result"))
		if err != nil {
			t.Fatalf("%s: %v", origin, err)
		}
		var r pageResult
		if err := json.Unmarshal([]byte(text), &r); err != nil {
			t.Fatalf("%s: page wrote %q", origin, text)
		}
		return r
	}

	got := load(allowed.URL)
	if got.Error != "" || got.LoginStatus != 200 || got.RequestID == "" || !strings.Contains(got.RateLimitPolicy, "signin_fail") {
		t.Fatalf("allowed origin: %+v", got)
	}
	if strings.Join(got.Sites, ",") != "Main Kitchen" || got.Pages != 3 || len(got.Devices) != 5 {
		t.Fatalf("allowed origin, lists: %+v", got)
	}

	// The browser refuses the API's answers to a page of an origin that is not allowed.
	if got := load(foreign.URL); !strings.Contains(got.Error, "Failed to fetch") || got.LoginStatus != 0 {
		t.Fatalf("another origin: %+v", got)
	}
}

// seedForBrowser registers a user with an organization, a site and five devices (three pages
// of two), through the API.
func seedForBrowser(t *testing.T) (email, password string) {
	t.Helper()
	email, password = "browser-"+strings.ReplaceAll(t.Name(), "/", "-")+"@example.com", "walk-in-cooler-pantry-9"
	email = strings.ToLower(email)
	var session struct {
		AccessToken string `json:"accessToken"`
		User        struct {
			Memberships []struct {
				OrgID string `json:"orgId"`
			} `json:"memberships"`
		} `json:"user"`
	}
	call(t, "", "POST", "/auth/register", map[string]string{"name": "Ana", "email": email, "password": password, "orgName": "Harborview"}, &session)
	org := session.User.Memberships[0].OrgID
	var site struct {
		ID string `json:"id"`
	}
	call(t, session.AccessToken, "POST", "/orgs/"+org+"/sites", map[string]string{"name": "Main Kitchen", "timezone": "UTC"}, &site)
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		call(t, session.AccessToken, "POST", "/orgs/"+org+"/devices", map[string]string{"name": n, "kind": "wallboard_boh", "siteId": site.ID}, nil)
	}
	return email, password
}

func call(t *testing.T, token, method, path string, body, out any) {
	t.Helper()
	callAt(t, srv.API, token, method, path, body, out)
}

func callAt(t *testing.T, api, token, method, path string, body, out any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(t.Context(), method, api+path, strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("content-type", "application/json")
	if token != "" {
		req.Header.Set("authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(res.Body)
		t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, msg)
	}
	if out != nil {
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
}
