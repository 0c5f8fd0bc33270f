package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// The scan and board shells are the same for everyone: no data, their script and styles as
// hashed files.
func TestAppShells(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, pagesOn)
	for path, script := range map[string]string{"/scan/K7QM2XVB": "scan", "/scan/k7qm-2xvb": "scan", "/board": "board"} {
		p := get(t, env, path, "").expect(t, http.StatusOK)
		if !strings.Contains(p.body, `<script type="module" src="/assets/`+script+`.`) {
			t.Fatalf("%s lacks its script:\n%s", path, p.body)
		}
		for _, m := range assetRe.FindAllStringSubmatch(p.body, -1) {
			a := get(t, env, m[1], "")
			if a.status != http.StatusOK || a.header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
				t.Fatalf("asset %s: %d", m[1], a.status)
			}
			if strings.HasSuffix(m[1], ".js") && !strings.HasPrefix(a.header.Get("Content-Type"), "text/javascript") {
				t.Fatalf("asset %s: %s", m[1], a.header.Get("Content-Type"))
			}
		}
	}
	get(t, env, "/scan/%3Cscript%3E", "").expect(t, http.StatusNotFound).contains(t, "This link is not valid")
	// An asset name that is not one of the current files is the not-valid page, not a file.
	get(t, env, "/assets/board.000000000000.js", "").expect(t, http.StatusNotFound)
	get(t, env, "/assets/brand-zzzzzz-000000.css", "").expect(t, http.StatusNotFound)
	b := get(t, env, "/assets/brand-ffffff-1f2937.css", "")
	if b.status != http.StatusOK || !strings.Contains(b.body, "--brand:#ffffff;--on-brand:#000000;--accent:#1f2937;--on-accent:#ffffff") {
		t.Fatalf("brand stylesheet: %d %s", b.status, b.body)
	}
}

// SOUS_HOSTED_PAGES=false: the paths are the API's JSON 404, for the operator's own web app.
func TestPagesOff(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, func(c *config.Config) { c.HostedPages = false })
	for _, path := range []string{"/board", "/scan/K7QM2XVB", "/share/q/" + strings.Repeat("A", 43), "/survey/x", "/assets/pages.css"} {
		p := get(t, env, path, "")
		if p.status != http.StatusNotFound || !strings.HasPrefix(p.header.Get("Content-Type"), "application/json") {
			t.Fatalf("%s: %d %s", path, p.status, p.header.Get("Content-Type"))
		}
	}
}

// The pages count against the public API's per-IP limit of link reads (120 a minute), shared
// with GET /v1/share/…, and answer 429 with Retry-After as a page.
func TestPagesShareThePublicLimits(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, pagesOn)
	ip := env.NewIP()
	path := "/share/q/" + strings.Repeat("A", 43)
	for i := 0; i < 60; i++ {
		get(t, env, path, ip).expect(t, http.StatusNotFound)
		env.Call(http.MethodGet, "/v1"+path).FromIP(ip).Do().Expect(http.StatusNotFound)
	}
	p := get(t, env, path, ip).expect(t, http.StatusTooManyRequests)
	if p.header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	p.contains(t, "Too many requests")
	env.Call(http.MethodGet, "/v1"+path).FromIP(ip).Do().Expect(http.StatusTooManyRequests)
	// Another client is not affected.
	get(t, env, path, "").expect(t, http.StatusNotFound)
}

// The database out of reach: a page answers 503 with Retry-After, as the API does, never a 500.
func TestPagesAnswer503WhenTheDatabaseIsDown(t *testing.T) {
	t.Parallel()
	env, proxy, _ := apitest.NewBehindProxy(t, pagesOn, func(c *config.Config) { c.RequestTimeout = 700 * time.Millisecond })
	owner, id := env.NewOwner("Harborview Kitchens")
	o := &org{env: env, owner: owner, id: id, site: env.Site(owner.AccessToken, id, "Main Kitchen")}
	_, token := o.quote(o.event(), "2026-03-20")
	get(t, env, "/share/q/"+token, "").expect(t, http.StatusOK)
	proxy.Close()
	for _, path := range []string{"/share/q/" + token, "/survey/" + token} {
		p := get(t, env, path, "").expect(t, http.StatusServiceUnavailable)
		if p.header.Get("Retry-After") == "" {
			t.Fatalf("%s: no Retry-After", path)
		}
		p.contains(t, "Temporarily unavailable")
	}
	post(t, env, "/share/q/"+token, "", url.Values{"name": {"Maya"}, "agree": {"yes"}}).expect(t, http.StatusServiceUnavailable)
}
