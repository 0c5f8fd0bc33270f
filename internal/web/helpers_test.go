package web_test

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

func pagesOn(c *config.Config) { c.HostedPages = true; c.WebhookAllowPrivate = true }

// org is an organization with a site in Chicago, a catering client and an event there.
type org struct {
	env   *apitest.Env
	owner apitest.Session
	id    uuid.UUID
	site  uuid.UUID
}

func newOrg(t *testing.T, name string, opts ...apitest.Option) *org {
	env := apitest.New(t, append([]apitest.Option{pagesOn}, opts...)...)
	owner, id := env.NewOwner(name)
	return &org{env: env, owner: owner, id: id, site: env.Site(owner.AccessToken, id, "Main Kitchen")}
}

func (o *org) call(method, path string) *apitest.Request {
	return o.env.Call(method, "orgs/"+o.id.String()+"/"+path).Token(o.owner.AccessToken)
}

func (o *org) create(path string, body any) string {
	o.env.T.Helper()
	var out struct {
		ID string `json:"id"`
	}
	o.call(http.MethodPost, path).JSON(body).Do().Expect(http.StatusCreated).Decode(&out)
	return out.ID
}

// event creates a client and an event (Saturday June 13, 2026, 6 PM in Chicago).
func (o *org) event() string {
	client := o.create("catering/clients", map[string]any{"name": "Maya Chen", "email": "maya@chen-ortiz.example"})
	return o.create("catering/events", map[string]any{
		"clientId": client, "siteId": o.site, "name": "Chen–Ortiz wedding reception", "startsAt": "2026-06-13T23:00:00Z",
		"endsAt": "2026-06-14T04:00:00Z", "guestCount": 140, "venue": "Lakeview Pavilion",
	})
}

// quote creates the spec's example quote for the event: total $7,106.45 ... and shares it.
func (o *org) quote(event, validUntil string) (id, token string) {
	o.env.T.Helper()
	id = o.create("catering/quotes", map[string]any{
		"eventId": event, "serviceChargeBps": 2000, "taxRateBps": 1025, "depositPercent": 30, "validUntil": validUntil,
		"terms": "30% deposit secures the date.",
		"lines": []map[string]any{
			{"kind": "food", "description": "Braised short rib, plated", "quantity": "140", "unitPriceCents": 3450, "taxable": true},
			{"kind": "beverage", "description": "Sparkling wine toast", "quantity": "140", "unitPriceCents": 650, "taxable": true},
			{"kind": "rental", "description": "Round tables", "quantity": "14", "unitPriceCents": 1500, "taxable": false},
			{"kind": "discount", "description": "Off-season discount", "quantity": "1", "unitPriceCents": 20000, "taxable": true},
		},
	})
	return id, o.share("catering/quotes/" + id + "/share")
}

func (o *org) share(path string) string {
	o.env.T.Helper()
	var l struct {
		Token string `json:"token"`
	}
	o.call(http.MethodPost, path).Do().Expect(http.StatusOK).Decode(&l)
	return l.Token
}

// page is a hosted page's answer.
type page struct {
	status int
	header http.Header
	body   string
}

// get fetches a page as a browser would, from ip (a fresh one when empty).
func get(t *testing.T, env *apitest.Env, path, ip string) page {
	t.Helper()
	return send(t, env, http.MethodGet, path, ip, nil)
}

func post(t *testing.T, env *apitest.Env, path, ip string, form url.Values) page {
	t.Helper()
	return send(t, env, http.MethodPost, path, ip, form)
}

// noRedirect keeps a 303 as the answer, so tests see it.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func send(t *testing.T, env *apitest.Env, method, path, ip string, form url.Values) page {
	t.Helper()
	if ip == "" {
		ip = env.NewIP()
	}
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(t.Context(), method, env.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Forwarded-For", ip)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return page{status: res.StatusCode, header: res.Header, body: string(b)}
}

// expectPage checks a page's status and the headers every page carries.
func (p page) expect(t *testing.T, status int) page {
	t.Helper()
	if p.status != status {
		t.Fatalf("status %d, want %d\n%s", p.status, status, p.body)
	}
	if ct := p.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("Content-Type %q", ct)
	}
	if csp := p.header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'self'") || strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "http") {
		t.Fatalf("Content-Security-Policy %q", csp)
	}
	if cc := p.header.Get("Cache-Control"); cc != "no-store" {
		t.Fatalf("Cache-Control %q", cc)
	}
	if strings.Contains(p.body, "<script>") || strings.Contains(p.body, "<style") || inlineRe.MatchString(p.body) {
		t.Fatalf("inline script or style in the page:\n%s", p.body)
	}
	return p
}

var uuidRe = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// noIDs fails when the page shows an id, the organization's or any other, or a member's email.
func (p page) noIDs(t *testing.T, o *org) {
	t.Helper()
	if id := uuidRe.FindString(p.body); id != "" {
		t.Fatalf("the page shows an id %s", id)
	}
	if strings.Contains(p.body, o.owner.User.Email) {
		t.Fatal("the page shows a member's email")
	}
}

func (p page) contains(t *testing.T, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(p.body, w) {
			t.Fatalf("the page lacks %q:\n%s", w, p.body)
		}
	}
}

// assetRe finds the page's stylesheets and scripts: hashed files, and the brand's colours.
var assetRe = regexp.MustCompile(`(?:href|src)="(/assets/(?:[a-z]+\.[0-9a-f]{12}|brand-[0-9a-f]{6}-[0-9a-f]{6})\.(?:css|js))"`)

// inlineRe finds a style attribute or an event handler in a tag.
var inlineRe = regexp.MustCompile(`<[^>]*\s(?:style|on[a-z]+)=`)
