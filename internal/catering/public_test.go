package catering_test

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/httpapi"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

var uuidPattern = regexp.MustCompile(`(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// Public responses expose display data only: the test walks every answer of every public link
// operation (successes and errors) and fails on any UUID, any member's email or the
// organization's id, in the body or a header. It also checks that it exercised every public
// {token} operation of the spec, so a new one is held to it.
func TestPublicResponsesLeakNothing(t *testing.T) {
	t.Parallel()
	c := newCaterer(t)
	manager := c.env.Member(c.org, "manager")
	secrets := []string{c.org.String(), c.owner.User.Email, manager.User.Email, c.site.String(), c.client, c.event}

	exercised := map[string]bool{}
	check := func(op string, res *apitest.Response) {
		t.Helper()
		exercised[op] = true
		if m := uuidPattern.Find(res.Body); m != nil {
			t.Errorf("%s (%d): body carries a UUID %s: %s", op, res.Status, m, res.Body)
		}
		for _, s := range secrets {
			if strings.Contains(strings.ToLower(string(res.Body)), strings.ToLower(s)) {
				t.Errorf("%s (%d): body carries %s: %s", op, res.Status, s, res.Body)
			}
		}
		for name, values := range res.Header {
			if name == "X-Request-Id" {
				continue // the request's own id, not a row's
			}
			for _, v := range values {
				if uuidPattern.MatchString(v) {
					t.Errorf("%s: header %s carries a UUID: %s", op, name, v)
				}
			}
		}
	}
	get := func(op, path string) *apitest.Response {
		res := c.env.Call(http.MethodGet, path).FromIP(c.env.NewIP()).Do()
		check(op, res)
		return res
	}
	post := func(op, path string, body any) *apitest.Response {
		res := c.env.Call(http.MethodPost, path).FromIP(c.env.NewIP()).JSON(body).Do()
		check(op, res)
		return res
	}

	// Quotes: sent, accepted, accepted again (409), bad body (400), unknown (404).
	q := c.quote("2026-03-20")
	ql := c.share("quotes", q.ID)
	get("GET /share/q/{token}", "share/q/"+ql.Token).Expect(http.StatusOK)
	post("POST /share/q/{token}/accept", "share/q/"+ql.Token+"/accept", map[string]any{"name": "Maya", "agree": false}).Expect(http.StatusBadRequest)
	post("POST /share/q/{token}/accept", "share/q/"+ql.Token+"/accept", map[string]any{"name": "Maya", "email": "maya@chen-ortiz.example", "agree": true}).Expect(http.StatusOK)
	post("POST /share/q/{token}/accept", "share/q/"+ql.Token+"/accept", map[string]any{"name": "Maya", "agree": true}).Expect(http.StatusConflict)
	get("GET /share/q/{token}", "share/q/"+ql.Token).Expect(http.StatusOK)
	get("GET /share/q/{token}", "share/q/"+strings.Repeat("x", 43)).Expect(http.StatusNotFound)

	// Invoices: open, paid, unknown.
	inv := c.invoice(q.ID, "deposit")
	il := c.share("invoices", inv.ID)
	get("GET /share/i/{token}", "share/i/"+il.Token).Expect(http.StatusOK)
	c.pay(inv.ID, inv.TotalCents)
	get("GET /share/i/{token}", "share/i/"+il.Token).Expect(http.StatusOK)
	get("GET /share/i/{token}", "share/i/"+ql.Token).Expect(http.StatusNotFound)

	// Surveys: open, submitted (with an invalid one first), single-use reused, closed, unknown.
	var s struct {
		ID string `json:"id"`
	}
	c.call(http.MethodPost, "surveys").JSON(map[string]any{"name": "Event feedback", "siteId": c.site, "status": "open", "thankYouMessage": "Thanks!",
		"questions": []map[string]any{{"key": "food", "type": "rating", "prompt": "Food?", "required": true}, {"key": "note", "type": "text", "prompt": "Note?", "required": false}}}).
		Do().Expect(http.StatusCreated).Decode(&s)
	var invs []struct {
		Token string `json:"token"`
	}
	c.call(http.MethodPost, "surveys/"+s.ID+"/invitations").JSON(map[string]any{"recipients": []map[string]any{{"name": "Guest", "email": manager.User.Email}}, "singleUse": true}).
		Do().Expect(http.StatusCreated).Decode(&invs)
	tok := invs[0].Token
	get("GET /survey/{token}", "survey/"+tok).Expect(http.StatusOK)
	post("POST /survey/{token}/submit", "survey/"+tok+"/submit", map[string]any{"answers": map[string]any{"food": 9, "other": 1}}).Expect(http.StatusBadRequest)
	post("POST /survey/{token}/submit", "survey/"+tok+"/submit", map[string]any{"answers": map[string]any{"food": 4, "note": "Lovely"}}).Expect(http.StatusOK)
	post("POST /survey/{token}/submit", "survey/"+tok+"/submit", map[string]any{"answers": map[string]any{"food": 4}}).Expect(http.StatusConflict)
	get("GET /survey/{token}", "survey/"+strings.Repeat("y", 43)).Expect(http.StatusNotFound)
	c.call(http.MethodPut, "surveys/"+s.ID).JSON(map[string]any{"name": "Event feedback", "siteId": c.site, "status": "closed", "thankYouMessage": "Thanks!",
		"questions": []map[string]any{{"key": "food", "type": "rating", "prompt": "Food?", "required": true}, {"key": "note", "type": "text", "prompt": "Note?", "required": false}}}).
		Do().Expect(http.StatusOK)
	get("GET /survey/{token}", "survey/"+tok).Expect(http.StatusGone)
	post("POST /survey/{token}/submit", "survey/"+tok+"/submit", map[string]any{"answers": map[string]any{"food": 4}}).Expect(http.StatusGone)

	// Inspection reports (internal/records): completed with a finding whose note names a member,
	// reissued (the old token is the unknown one's 404), unknown.
	tmpl := c.create("inspection-templates", map[string]any{"name": "Monthly", "sections": []map[string]any{{"title": "Cold holding",
		"items": []map[string]any{{"key": "labels", "prompt": "Containers labelled", "kind": "pass_fail"}}}}})
	insp := c.create("inspections", map[string]any{"templateId": tmpl, "siteId": c.site, "scheduledFor": "2026-03-02T14:00:00Z"})
	c.call(http.MethodPut, "inspections/"+insp+"/responses").JSON(map[string]any{"answers": []map[string]any{
		{"key": "labels", "passed": false, "note": "Ask " + manager.User.Email + " (" + c.site.String() + ")"}}}).Do().Expect(http.StatusOK)
	c.call(http.MethodPost, "inspections/"+insp+"/complete").Do().Expect(http.StatusOK)
	var insl struct {
		Token string `json:"token"`
	}
	c.call(http.MethodPost, "inspections/"+insp+"/share").Do().Expect(http.StatusOK).Decode(&insl)
	get("GET /share/insp/{token}", "share/insp/"+insl.Token).Expect(http.StatusOK)
	old := insl.Token
	c.call(http.MethodPost, "inspections/"+insp+"/share").Do().Expect(http.StatusOK).Decode(&insl)
	get("GET /share/insp/{token}", "share/insp/"+old).Expect(http.StatusNotFound)
	get("GET /share/insp/{token}", "share/insp/"+ql.Token).Expect(http.StatusNotFound)
	get("GET /share/insp/{token}", "share/insp/"+insl.Token).Expect(http.StatusOK)

	// Rate-limited answers too.
	ip := c.env.NewIP()
	var limited *apitest.Response
	for range 121 {
		limited = c.env.Call(http.MethodGet, "share/q/"+ql.Token).FromIP(ip).Do()
	}
	check("GET /share/q/{token}", limited.Expect(http.StatusTooManyRequests))

	doc, err := httpapi.LoadSpec()
	if err != nil {
		t.Fatal(err)
	}
	for path, item := range doc.Paths.Map() {
		if !strings.Contains(path, "{token}") {
			continue
		}
		for method := range item.Operations() {
			if !exercised[method+" "+path] {
				t.Errorf("the leak walk never called %s %s", method, path)
			}
		}
	}
}

// Public links are limited per client IP in PostgreSQL (shared by replicas): 120 reads and 20
// writes a minute, then 429 with Retry-After. Found or not, every lookup counts.
func TestPublicLinksAreRateLimitedPerIP(t *testing.T) {
	t.Parallel()
	c := newCaterer(t)
	q := c.quote("2026-03-20")
	l := c.share("quotes", q.ID)
	replica := c.env.Replica()
	ip := c.env.NewIP()
	for i := range 120 {
		env := c.env
		if i%2 == 1 {
			env = replica // the other replica counts in the same place
		}
		path := "share/q/" + l.Token
		if i%3 == 0 {
			path = "survey/" + strings.Repeat("z", 43) // unknown tokens count too
		}
		res := env.Call(http.MethodGet, path).FromIP(ip).Do()
		if res.Status == http.StatusTooManyRequests {
			t.Fatalf("read %d refused", i+1)
		}
	}
	res := c.env.Call(http.MethodGet, "share/i/"+l.Token).FromIP(ip).Do()
	res.ExpectCode(http.StatusTooManyRequests, "rate_limited")
	if ra, _ := strconv.Atoi(res.Header.Get("Retry-After")); ra < 1 || ra > 60 {
		t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
	}
	// Another client reads on; the limited one's writes have their own allowance.
	c.env.Call(http.MethodGet, "share/q/"+l.Token).FromIP(c.env.NewIP()).Do().Expect(http.StatusOK)
	for i := range 20 {
		res := c.env.Call(http.MethodPost, "survey/"+strings.Repeat("w", 43)+"/submit").FromIP(ip).JSON(map[string]any{"answers": map[string]any{}}).Do()
		if res.Status != http.StatusNotFound {
			t.Fatalf("write %d: %d", i+1, res.Status)
		}
	}
	w := c.env.Call(http.MethodPost, "share/q/"+l.Token+"/accept").FromIP(ip).JSON(map[string]any{"name": "Maya", "agree": true}).Do()
	w.ExpectCode(http.StatusTooManyRequests, "rate_limited")
	if w.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	if c.getQuote(q.ID).Status != "sent" {
		t.Fatal("a refused accept changed the quote")
	}
	// A minute on, the client is let through again.
	c.env.Clock.Advance(time.Minute)
	c.env.Call(http.MethodGet, "share/q/"+l.Token).FromIP(ip).Do().Expect(http.StatusOK)
	c.env.Call(http.MethodPost, "share/q/"+l.Token+"/accept").FromIP(ip).JSON(map[string]any{"name": "Maya", "agree": true}).Do().Expect(http.StatusOK)
}
