package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// The hosted pages in a real browser, against a started server of their own (webhooks may be
// delivered to this machine, and the board test restarts it). Every page is checked with
// axe-core (zero serious or critical violations), watched for content-security-policy
// violations, and photographed at 375 px and 1280 px wide for review: the screenshots go to
// $SOUS_SCREENSHOT_DIR, else a directory under the system's temp directory (logged).

var (
	pagesOnce sync.Once
	pagesSrv  *Server
	pagesErr  error
	pagesWork string
)

// hostedPages starts the pages' server once for the package; TestMain's cleanup stops it.
func hostedPages(t *testing.T) *Server {
	t.Helper()
	pagesOnce.Do(func() {
		pagesWork, pagesErr = os.MkdirTemp("", "readmecheck-pages")
		if pagesErr != nil {
			return
		}
		pagesSrv, pagesErr = Start(context.Background(), Options{Repo: repo, WorkDir: pagesWork, Env: []string{"SOUS_WEBHOOK_ALLOW_PRIVATE=true", "SOUS_HOSTED_PAGES=true"}})
	})
	if pagesErr != nil {
		t.Fatal(pagesErr)
	}
	return pagesSrv
}

func stopHostedPages() {
	if pagesSrv != nil {
		pagesSrv.Stop()
	}
	if pagesWork != "" {
		os.RemoveAll(pagesWork)
	}
}

func (s *Server) base() string { return strings.TrimSuffix(s.API, "/v1") }

// browser is one chromium for a test; tabs are opened in it.
type browser struct {
	t     *testing.T
	alloc context.Context
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	exe := chromium()
	if exe == "" {
		missingTool(t, "chromium", "apt-get install chromium")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.Flag("disable-dev-shm-usage", true))
	alloc, cancel := chromedp.NewExecAllocator(t.Context(), opts...)
	t.Cleanup(cancel)
	return &browser{t: t, alloc: alloc}
}

// tab opens a tab that records content-security-policy violations in window.__csp before any
// page script runs.
func (b *browser) tab() context.Context {
	b.t.Helper()
	ctx, cancel := chromedp.NewContext(b.alloc)
	b.t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	b.t.Cleanup(cancelTimeout)
	err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{
			Source: `window.__csp = []; document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(e.violatedDirective + " " + e.blockedURI));`,
		})
		return err
	}))
	if err != nil {
		b.t.Fatal(err)
	}
	return ctx
}

func act(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	out, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return out
}

var (
	axeOnce   sync.Once
	axeSource string
)

// review runs axe-core on the page as it is, fails on a serious or critical violation or a CSP
// violation, and takes the page's screenshots at 375 px and 1280 px.
func review(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	axeOnce.Do(func() {
		b, err := os.ReadFile(filepath.Join(repo, "tools", "node_modules", "axe-core", "axe.min.js"))
		if err == nil {
			axeSource = string(b)
		}
	})
	if axeSource == "" {
		t.Fatal("axe-core is not installed: npm ci --prefix tools")
	}
	eval[bool](t, ctx, axeSource+";true")
	violations := eval[[]map[string]any](t, ctx, `axe.run(document, {resultTypes: ["violations"]}).then((r) => r.violations
		.filter((v) => v.impact === "serious" || v.impact === "critical")
		.map((v) => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(" "))})))`)
	if len(violations) > 0 {
		b, _ := json.MarshalIndent(violations, "", "  ")
		t.Errorf("%s: accessibility violations:\n%s", name, b)
	}
	if csp := eval[[]string](t, ctx, `window.__csp || []`); len(csp) > 0 {
		t.Errorf("%s: content security policy violations: %v", name, csp)
	}
	dir := os.Getenv("SOUS_SCREENSHOT_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "sous-page-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, w := range []int64{375, 1280} {
		act(t, ctx, chromedp.EmulateViewport(w, 900))
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.png", name, w)), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	act(t, ctx, chromedp.EmulateViewport(1280, 900))
	t.Logf("%s: screenshots in %s", name, dir)
}

// owner registers a user who owns a new organization with a site in Chicago.
type owner struct {
	srv             *Server
	email, password string
	token, org      string
	site            string
}

func newOwner(t *testing.T, srv *Server, orgName string) *owner {
	t.Helper()
	o := &owner{srv: srv, email: strings.ToLower(fmt.Sprintf("pages-%s-%d@example.com", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())), password: "walk-in-cooler-pantry-9"}
	var session struct {
		AccessToken string `json:"accessToken"`
		User        struct {
			Memberships []struct {
				OrgID string `json:"orgId"`
			} `json:"memberships"`
		} `json:"user"`
	}
	callAt(t, srv.API, "", "POST", "/auth/register", map[string]string{"name": "Ana", "email": o.email, "password": o.password, "orgName": orgName}, &session)
	o.token, o.org = session.AccessToken, session.User.Memberships[0].OrgID
	o.site = o.create(t, "sites", map[string]string{"name": "Main Kitchen", "timezone": "America/Chicago"})
	return o
}

func (o *owner) do(t *testing.T, method, path string, body, out any) {
	t.Helper()
	callAt(t, o.srv.API, o.token, method, "/orgs/"+o.org+"/"+path, body, out)
}

func (o *owner) create(t *testing.T, path string, body any) string {
	t.Helper()
	var out struct {
		ID string `json:"id"`
	}
	o.do(t, "POST", path, body, &out)
	return out.ID
}

func (o *owner) share(t *testing.T, path string) string {
	t.Helper()
	var l struct {
		Token string `json:"token"`
	}
	o.do(t, "POST", path, nil, &l)
	return l.Token
}

// sharedQuote makes an event next month and a quote for it, shared.
func (o *owner) sharedQuote(t *testing.T) (quote, token string) {
	t.Helper()
	client := o.create(t, "catering/clients", map[string]any{"name": "Maya Chen", "email": "maya@chen-ortiz.example"})
	start := time.Now().UTC().AddDate(0, 1, 0).Truncate(time.Hour)
	event := o.create(t, "catering/events", map[string]any{"clientId": client, "siteId": o.site, "name": "Chen–Ortiz wedding reception",
		"startsAt": start, "endsAt": start.Add(5 * time.Hour), "guestCount": 140, "venue": "Lakeview Pavilion"})
	quote = o.create(t, "catering/quotes", map[string]any{
		"eventId": event, "serviceChargeBps": 2000, "taxRateBps": 1025, "depositPercent": 30,
		"validUntil": start.AddDate(0, 0, -7).Format(time.DateOnly), "terms": "30% deposit secures the date.",
		"lines": []map[string]any{
			{"kind": "food", "description": "Braised short rib, plated", "quantity": "140", "unitPriceCents": 3450, "taxable": true},
			{"kind": "rental", "description": "Round tables", "quantity": "14", "unitPriceCents": 1500, "taxable": false},
		},
	})
	return quote, o.share(t, "catering/quotes/"+quote+"/share")
}

// receiver counts webhook deliveries.
type receiver struct {
	*httptest.Server
	mu   sync.Mutex
	hits []string
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.hits = append(r.hits, req.Header.Get("x-service-event")+" "+string(b))
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.hits)
}

// waitFor polls cond until it holds or the time is up.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestBrowserQuoteIsAcceptedOnceWhenSubmittedTwice(t *testing.T) {
	b := newBrowser(t)
	srv := hostedPages(t)
	o := newOwner(t, srv, "Harborview Kitchens")
	rcv := newReceiver(t)
	o.do(t, "POST", "webhooks", map[string]any{"url": rcv.URL + "/hooks", "events": []string{"catering.quote_accepted"}}, nil)
	quote, token := o.sharedQuote(t)
	url := srv.base() + "/share/q/" + token

	// Two tabs hold the form, as a client who opened the link twice; one double-clicks.
	a, c := b.tab(), b.tab()
	for _, ctx := range []context.Context{a, c} {
		act(t, ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.ID("name")),
			chromedp.SendKeys(chromedp.ID("name"), "Maya Chen"), chromedp.SendKeys(chromedp.ID("email"), "maya@chen-ortiz.example"),
			chromedp.Click(chromedp.ID("agree")))
	}
	review(t, a, "quote")
	var wg sync.WaitGroup
	for _, ctx := range []context.Context{a, c} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = chromedp.Run(ctx, chromedp.Evaluate[bool](`{const b = document.querySelector("form button"); b.click(); b.click(); true}`))
		}()
	}
	wg.Wait()
	for _, ctx := range []context.Context{a, c} {
		act(t, ctx, chromedp.WaitVisible(chromedp.ID("accepted")))
		if text := eval[string](t, ctx, `document.getElementById("accepted").textContent`); !strings.HasPrefix(text, "Accepted by Maya Chen on ") {
			t.Fatalf("accepted: %q", text)
		}
	}
	review(t, a, "quote-accepted")
	var q struct {
		Status string `json:"status"`
	}
	o.do(t, "GET", "catering/quotes/"+quote, nil, &q)
	if q.Status != "accepted" {
		t.Fatalf("quote %s", q.Status)
	}
	waitFor(t, 30*time.Second, "the webhook", func() bool { return rcv.count() >= 1 })
	// Four clicks made one acceptance: the event feed holds one catering.quote_accepted, and a
	// delivery is at most once per event, so no later round of the dispatcher can send another.
	var events []struct {
		Type string `json:"type"`
	}
	o.do(t, "GET", "events?types=catering.quote_accepted", nil, &events)
	if len(events) != 1 {
		t.Fatalf("%d catering.quote_accepted events: %+v", len(events), events)
	}
	if n := rcv.count(); n != 1 {
		t.Fatalf("%d deliveries: %v", n, rcv.hits)
	}

	// The invoice billed from the contract, and a link that is not valid.
	inv := o.create(t, "catering/invoices", map[string]any{"quoteId": quote, "kind": "deposit"})
	o.do(t, "POST", "catering/invoices/"+inv+"/payments", map[string]any{"amountCents": 50000, "method": "card", "paidAt": time.Now().UTC().Format(time.RFC3339)}, nil)
	itoken := o.share(t, "catering/invoices/"+inv+"/share")
	act(t, a, chromedp.Navigate(srv.base()+"/share/i/"+itoken), chromedp.WaitVisible(chromedp.CSS("h1")))
	review(t, a, "invoice")
	act(t, a, chromedp.Navigate(srv.base()+"/share/q/"+strings.Repeat("A", 43)), chromedp.WaitVisible(chromedp.CSS("h1")))
	if h := eval[string](t, a, `document.querySelector("h1").textContent`); h != "This link is not valid" {
		t.Fatalf("h1 %q", h)
	}
	review(t, a, "link-not-valid")
}

func TestBrowserSurveyShowsErrorsInlineThenThanks(t *testing.T) {
	b := newBrowser(t)
	srv := hostedPages(t)
	o := newOwner(t, srv, "Harborview Kitchens")
	survey := o.create(t, "surveys", map[string]any{"name": "Patient meal feedback", "siteId": o.site, "status": "open",
		"thankYouMessage": "Thank you — the kitchen reads every answer.", "questions": []map[string]any{
			{"key": "food", "type": "rating", "prompt": "How was the food?", "required": true},
			{"key": "recommend", "type": "nps", "prompt": "Would you recommend us?", "required": false},
			{"key": "meal", "type": "single_choice", "prompt": "Best meal?", "required": false, "options": []string{"Breakfast", "Lunch", "Dinner"}},
			{"key": "extras", "type": "multi_choice", "prompt": "Which extras?", "required": false, "options": []string{"Soup", "Salad", "Dessert"}},
			{"key": "warm", "type": "yes_no", "prompt": "Was it warm?", "required": false},
			{"key": "comments", "type": "text", "prompt": "Anything else?", "required": false},
		}})
	token := o.share(t, "surveys/"+survey+"/share")
	ctx := b.tab()
	act(t, ctx, chromedp.Navigate(srv.base()+"/survey/"+token), chromedp.WaitVisible(chromedp.ID("q5")))
	review(t, ctx, "survey")
	// The required rating left empty.
	act(t, ctx,
		chromedp.Click(chromedp.CSS(`input[name="a_recommend"][value="9"]`)),
		chromedp.Click(chromedp.CSS(`input[name="a_extras"][value="Soup"]`)),
		chromedp.Click(chromedp.CSS(`input[name="a_warm"][value="yes"]`)),
		chromedp.SendKeys(chromedp.ID("q5"), "Rice was cold"),
		chromedp.Click(chromedp.CSS("form button")),
		chromedp.WaitVisible(chromedp.ID("q0-error")))
	kept := eval[map[string]any](t, ctx, `({
		error: document.getElementById("q0-error").textContent,
		describedBy: document.getElementById("q0-error").closest("fieldset").getAttribute("aria-describedby"),
		nps: document.querySelector('input[name="a_recommend"][value="9"]').checked,
		soup: document.querySelector('input[name="a_extras"][value="Soup"]').checked,
		warm: document.querySelector('input[name="a_warm"][value="yes"]').checked,
		comments: document.getElementById("q5").value})`)
	if kept["error"] != "Please answer this question." || kept["describedBy"] != "q0-error" || kept["nps"] != true || kept["soup"] != true || kept["warm"] != true || kept["comments"] != "Rice was cold" {
		t.Fatalf("after the error: %v", kept)
	}
	review(t, ctx, "survey-error")
	act(t, ctx, chromedp.Click(chromedp.CSS(`input[name="a_food"][value="4"]`)), chromedp.Click(chromedp.CSS("form button")),
		chromedp.WaitVisible(chromedp.Search(`//h1[text()="Thank you"]`)))
	review(t, ctx, "survey-thanks")
	var s struct {
		ResponseCount int `json:"responseCount"`
	}
	o.do(t, "GET", "surveys/"+survey, nil, &s)
	if s.ResponseCount != 1 {
		t.Fatalf("%d responses", s.ResponseCount)
	}
}

func TestBrowserSignedOutScanGoesThroughSignIn(t *testing.T) {
	b := newBrowser(t)
	srv := hostedPages(t)
	o := newOwner(t, srv, "Harborview Kitchens")
	var tag struct {
		Code string `json:"code"`
	}
	o.do(t, "POST", "tags", map[string]any{"targetType": "site", "targetId": o.site}, &tag)
	ctx := b.tab()
	act(t, ctx, chromedp.Navigate(srv.base()+"/scan/"+tag.Code), chromedp.WaitVisible(chromedp.ID("email")))
	review(t, ctx, "scan-signin")
	act(t, ctx, chromedp.SendKeys(chromedp.ID("email"), o.email), chromedp.SendKeys(chromedp.ID("password"), o.password),
		chromedp.Click(chromedp.CSS("#signin button")), chromedp.WaitVisible(chromedp.ID("target")))
	got := eval[map[string]any](t, ctx, `({name: document.getElementById("target-name").textContent, kind: document.getElementById("target-kind").textContent,
		actions: [...document.querySelectorAll("#target button")].filter((b) => b.checkVisibility()).length, session: !!sessionStorage.getItem("sous.session"),
		local: localStorage.length, path: location.pathname})`)
	if got["name"] != "Main Kitchen" || got["kind"] != "Site" || got["actions"].(float64) < 1 || got["session"] != true || got["local"].(float64) != 0 || got["path"] != "/scan/"+tag.Code {
		t.Fatalf("after sign-in: %v", got)
	}
	var cookies []*network.Cookie
	act(t, ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		r, err := cdp.Call(ctx, t, network.GetCookies, network.GetCookiesParams{})
		cookies = r.Cookies
		return err
	}))
	if len(cookies) != 0 {
		t.Fatalf("cookies %v", cookies)
	}
	review(t, ctx, "scan-target")
}

func TestBrowserBoardPairsCastsSurvivesAnOutageAndUnpairs(t *testing.T) {
	b := newBrowser(t)
	srv := hostedPages(t)
	o := newOwner(t, srv, "Harborview Kitchens")
	device := o.create(t, "devices", map[string]any{"name": "Hot line", "kind": "wallboard_boh", "siteId": o.site})
	var pair struct {
		Code string `json:"code"`
	}
	o.do(t, "POST", "devices/"+device+"/pair", nil, &pair)
	ctx := b.tab()
	act(t, ctx, chromedp.Navigate(srv.base()+"/board"), chromedp.WaitVisible(chromedp.ID("code")))
	review(t, ctx, "board-pairing")
	// Typed as a person reads it: lower case, with a dash.
	typed := strings.ToLower(pair.Code[:3] + "-" + pair.Code[3:])
	act(t, ctx, chromedp.SendKeys(chromedp.ID("code"), typed), chromedp.Click(chromedp.CSS("#pairing button")),
		chromedp.WaitVisible(chromedp.ID("board-title")))
	if title := eval[string](t, ctx, `document.getElementById("board-title").textContent`); title != "Hot line · Main Kitchen" {
		t.Fatalf("title %q", title)
	}
	if eval[string](t, ctx, `localStorage.getItem("sous.deviceToken") || ""`) == "" {
		t.Fatal("no device token kept")
	}
	act(t, ctx, chromedp.WaitVisible(chromedp.CSS(".production")))
	review(t, ctx, "board-wallboard")

	// A cast appears within 2 s (the WebSocket hint makes the board refetch at once).
	castText := func() string {
		return eval[string](t, ctx, `document.getElementById("cast").hidden ? "" : document.getElementById("cast-text").textContent`)
	}
	sent := time.Now()
	o.do(t, "POST", "devices/"+device+"/cast", map[string]any{"type": "message", "title": "Allergen alert", "text": "Table 12: severe peanut allergy."}, nil)
	waitFor(t, 2*time.Second, "the cast", func() bool { return castText() == "Table 12: severe peanut allergy." })
	t.Logf("cast shown %v after the request was sent", time.Since(sent).Round(time.Millisecond))
	review(t, ctx, "board-cast")

	// The server goes down and restarts: the board keeps the last state on screen, shows the
	// offline banner once no poll has succeeded for 40 s (polls run every 10 s, so 30 to 40 s
	// after the last answer), and catches up when the server is back.
	offline := func() bool { return eval[bool](t, ctx, `!document.getElementById("offline").hidden`) }
	srv.Down()
	down := time.Now()
	if offline() || castText() != "Table 12: severe peanut allergy." {
		t.Fatal("the board dropped its state when the server stopped")
	}
	waitFor(t, 50*time.Second, "the offline banner", offline)
	if d := time.Since(down); d < 29*time.Second {
		t.Fatalf("offline banner %v after the server stopped", d)
	}
	t.Logf("offline banner %v after the server stopped", time.Since(down).Round(time.Second))
	if castText() != "Table 12: severe peanut allergy." || eval[string](t, ctx, `document.getElementById("board-title").textContent`) != "Hot line · Main Kitchen" {
		t.Fatal("the board lost its state while offline")
	}
	review(t, ctx, "board-offline")
	if err := srv.Up(t.Context()); err != nil {
		t.Fatal(err)
	}
	o.do(t, "POST", "devices/"+device+"/cast", map[string]any{"type": "message", "title": "Service", "text": "Doors open at 6."}, nil)
	waitFor(t, 45*time.Second, "catching up after the restart", func() bool { return castText() == "Doors open at 6." && !offline() })

	// Revoked: back to pairing, the token forgotten.
	o.do(t, "POST", "devices/"+device+"/revoke", nil, nil)
	act(t, ctx, chromedp.WaitVisible(chromedp.ID("pairing")))
	if eval[string](t, ctx, `localStorage.getItem("sous.deviceToken") || ""`) != "" {
		t.Fatal("the revoked token is still kept")
	}
}

// Menu boards and tray-line screens render their kinds' state (here a site with no menu and no
// trays yet), in the brand's colours.
func TestBrowserBoardKinds(t *testing.T) {
	b := newBrowser(t)
	srv := hostedPages(t)
	o := newOwner(t, srv, "Harborview Kitchens")
	callAt(t, srv.API, o.token, "PUT", "/orgs/"+o.org, map[string]any{"brand": map[string]any{"primary": "#0B3D2E", "accent": "#F2C14E"}}, nil)
	for kind, want := range map[string]string{"menu_board": ".menu h2", "tray_line": ".trays h2"} {
		device := o.create(t, "devices", map[string]any{"name": kind, "kind": kind, "siteId": o.site})
		var pair struct {
			Code string `json:"code"`
		}
		o.do(t, "POST", "devices/"+device+"/pair", nil, &pair)
		ctx := b.tab()
		act(t, ctx, chromedp.Navigate(srv.base()+"/board"), chromedp.WaitVisible(chromedp.ID("code")),
			chromedp.SendKeys(chromedp.ID("code"), pair.Code), chromedp.Click(chromedp.CSS("#pairing button")),
			chromedp.WaitVisible(chromedp.CSS(want)))
		got := eval[map[string]string](t, ctx, `({kind: document.body.dataset.kind, heading: document.querySelector("`+want+`").textContent,
			brand: getComputedStyle(document.documentElement).getPropertyValue("--brand").trim()})`)
		if got["kind"] != kind || got["heading"] == "" || !strings.EqualFold(got["brand"], "#0B3D2E") {
			t.Fatalf("%s: %v", kind, got)
		}
		review(t, ctx, "board-"+strings.ReplaceAll(kind, "_", "-"))
	}
}
