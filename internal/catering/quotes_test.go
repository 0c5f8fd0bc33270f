package catering_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

func TestQuoteTotalsAreComputedByTheServer(t *testing.T) {
	t.Parallel()
	c := newCaterer(t)
	q := c.quote("2026-03-20")
	if q.Status != "draft" || q.Version != 1 {
		t.Fatalf("new quote %s v%d", q.Status, q.Version)
	}
	got := []int64{q.Lines[0].TotalCents, q.Lines[1].TotalCents, q.Lines[2].TotalCents, q.Lines[3].TotalCents}
	if got[0] != 483000 || got[1] != 91000 || got[2] != 21000 || got[3] != -20000 {
		t.Fatalf("line totals %v", got)
	}
	// 669,000 taxable × 10.25 % = 68,572.5: half-even to 68,572.
	tt := q.Totals
	if tt.SubtotalCents != 575000 || tt.ServiceChargeCents != 115000 || tt.TaxCents != 68572 || tt.TotalCents != 758572 || tt.DepositCents != 227572 {
		t.Fatalf("totals %+v", tt)
	}

	// A discount may not take the subtotal below 0; nothing is written.
	body := quoteBody(c.event, "2026-03-20")
	body["lines"] = []map[string]any{
		{"kind": "food", "description": "Canapés", "quantity": "1", "unitPriceCents": 100, "taxable": true},
		{"kind": "discount", "description": "Too generous", "quantity": "1", "unitPriceCents": 101, "taxable": true},
	}
	c.call(http.MethodPost, "catering/quotes").JSON(body).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	body["lines"] = []map[string]any{{"kind": "food", "description": "Canapés", "quantity": "0", "unitPriceCents": 100, "taxable": true}}
	e := c.call(http.MethodPost, "catering/quotes").JSON(body).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	if len(e.Details) != 1 || e.Details[0].Field != "lines[0].quantity" {
		t.Fatalf("details %+v", e.Details)
	}
	var quotes []quote
	c.call(http.MethodGet, "catering/quotes").Do().Expect(http.StatusOK).Decode(&quotes)
	if len(quotes) != 1 {
		t.Fatalf("%d quotes after refused ones", len(quotes))
	}
	// A viewer reads; a viewer cannot write.
	viewer := c.env.Member(c.org, "viewer")
	c.env.Call(http.MethodGet, "orgs/"+c.org.String()+"/catering/quotes/"+q.ID).Token(viewer.AccessToken).Do().Expect(http.StatusOK)
	c.env.Call(http.MethodPost, "orgs/"+c.org.String()+"/catering/quotes").Token(viewer.AccessToken).JSON(quoteBody(c.event, "2026-03-20")).Do().ExpectError(http.StatusForbidden, "")
}

// The client accepts from the link: the quote becomes the contract, its event contracted, and
// catering.quote_accepted reaches a subscribed receiver, signed, with exactly the spec's data.
func TestAcceptingASharedQuoteFiresTheSignedWebhook(t *testing.T) {
	t.Parallel()
	c := newCaterer(t)
	rcv := newReceiver(t)
	secret := c.subscribe(rcv.URL+"/hooks", "catering.quote_accepted")
	q := c.quote("2026-03-20")
	l := c.share("quotes", q.ID)
	if l.URL != "https://app.sous.example/share/q/"+l.Token || len(l.Token) != 43 {
		t.Fatalf("link %+v", l)
	}
	if c.getQuote(q.ID).Status != "sent" || c.eventStatus(c.event) != "quoted" {
		t.Fatal("sharing did not send the quote")
	}
	var shared struct {
		Status     string `json:"status"`
		ClientName string `json:"clientName"`
		Brand      struct {
			Name string `json:"name"`
		} `json:"brand"`
	}
	c.env.Call(http.MethodGet, "share/q/"+l.Token).Do().Expect(http.StatusOK).Decode(&shared)
	if shared.Status != "sent" || shared.ClientName != "Maya Chen" || shared.Brand.Name != "Harborview Kitchens" {
		t.Fatalf("shared %+v", shared)
	}
	// agree must be true; nothing happens otherwise.
	c.env.Call(http.MethodPost, "share/q/"+l.Token+"/accept").JSON(map[string]any{"name": "Maya Chen", "agree": false}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	if c.countEvents("catering.quote_accepted") != 0 {
		t.Fatal("a refused accept published an event")
	}
	c.env.Call(http.MethodPost, "share/q/"+l.Token+"/accept").JSON(map[string]any{"name": "Maya Chen", "email": "maya@chen-ortiz.example", "agree": true}).Do().Expect(http.StatusOK).Decode(&shared)
	if shared.Status != "accepted" || c.eventStatus(c.event) != "contracted" {
		t.Fatalf("after accept: quote %s, event %s", shared.Status, c.eventStatus(c.event))
	}
	got := c.getQuote(q.ID)
	if got.Acceptance == nil || got.Acceptance.Name != "Maya Chen" || got.Acceptance.Via != "link" {
		t.Fatalf("acceptance %+v", got.Acceptance)
	}
	// Accepting again, by link or by staff, is a conflict; so is changing the contract.
	c.env.Call(http.MethodPost, "share/q/"+l.Token+"/accept").JSON(map[string]any{"name": "Maya Chen", "agree": true}).Do().ExpectCode(http.StatusConflict, "quote_not_open")
	c.call(http.MethodPost, "catering/quotes/"+q.ID+"/accept").JSON(map[string]any{"name": "Maya"}).Do().ExpectCode(http.StatusConflict, "quote_not_open")
	c.call(http.MethodPut, "catering/quotes/"+q.ID).JSON(quoteBody(c.event, "2026-03-20")).Do().ExpectCode(http.StatusConflict, "contract_immutable")
	c.call(http.MethodPost, "catering/quotes/"+q.ID+"/decline").Do().ExpectCode(http.StatusConflict, "quote_not_open")

	c.env.DrainWebhooks()
	hits := rcv.all()
	if len(hits) != 1 {
		t.Fatalf("%d deliveries", len(hits))
	}
	h := hits[0]
	if h.header.Get("x-service-event") != "catering.quote_accepted" || !verify(secret, h.body, h.header.Get("x-service-signature")) {
		t.Fatalf("delivery headers %v do not verify", h.header)
	}
	var body struct {
		Event string          `json:"event"`
		OrgID string          `json:"orgId"`
		Data  json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(h.body, &body); err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	_ = json.Unmarshal(body.Data, &data)
	if body.Event != "catering.quote_accepted" || body.OrgID != c.org.String() || len(data) != 3 ||
		data["eventId"] != c.event || data["quoteId"] != q.ID || data["totalCents"] != float64(758572) {
		t.Fatalf("delivery %s", h.body)
	}
}

// Of N simultaneous accepts of one quote, exactly one wins; the others answer 409 and exactly
// one event is published.
func TestParallelAcceptsHaveOneWinner(t *testing.T) {
	t.Parallel()
	c := newCaterer(t)
	q := c.quote("2026-03-20")
	l := c.share("quotes", q.ID)
	const n = 12
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		ip := c.env.NewIP()
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = c.env.Call(http.MethodPost, "share/q/"+l.Token+"/accept").FromIP(ip).
				JSON(map[string]any{"name": "Maya Chen", "agree": true}).Do().Status
		}()
	}
	wg.Wait()
	won, lost := 0, 0
	for _, s := range statuses {
		switch s {
		case http.StatusOK:
			won++
		case http.StatusConflict:
			lost++
		}
	}
	if won != 1 || lost != n-1 {
		t.Fatalf("statuses %v", statuses)
	}
	if c.countEvents("catering.quote_accepted") != 1 {
		t.Fatal("not exactly one catering.quote_accepted")
	}
	// A second quote of the contracted event cannot be accepted too.
	q2 := c.quote("2026-03-20")
	c.call(http.MethodPost, "catering/quotes/"+q2.ID+"/accept").JSON(map[string]any{"name": "Maya"}).Do().ExpectCode(http.StatusConflict, "quote_not_open")
}

// validUntil is a date in the site's zone (America/Chicago, UTC−6 in early March): the quote is
// acceptable through the end of that local day, by the injected clock.
func TestQuotesExpireAtTheEndOfTheirLastDayInTheSiteZone(t *testing.T) {
	t.Parallel()
	c := newCaterer(t)
	q := c.quote("2026-03-02")
	l := c.share("quotes", q.ID)
	c.env.Clock.Set(time.Date(2026, 3, 3, 5, 59, 59, 0, time.UTC)) // 23:59:59 on the 2nd in Chicago
	c.owner = c.env.SignIn(c.owner.User.Email)
	if st := c.getQuote(q.ID).Status; st != "sent" {
		t.Fatalf("a minute before local midnight: %s", st)
	}
	c.env.Clock.Set(time.Date(2026, 3, 3, 6, 0, 0, 0, time.UTC))
	c.owner = c.env.SignIn(c.owner.User.Email)
	if st := c.getQuote(q.ID).Status; st != "expired" {
		t.Fatalf("at local midnight: %s", st)
	}
	var shared struct {
		Status string `json:"status"`
	}
	c.env.Call(http.MethodGet, "share/q/"+l.Token).Do().Expect(http.StatusOK).Decode(&shared)
	if shared.Status != "expired" {
		t.Fatalf("shared %s", shared.Status)
	}
	c.env.Call(http.MethodPost, "share/q/"+l.Token+"/accept").JSON(map[string]any{"name": "Maya", "agree": true}).Do().ExpectCode(http.StatusConflict, "quote_not_open")
	c.call(http.MethodPost, "catering/quotes/"+q.ID+"/accept").JSON(map[string]any{"name": "Maya"}).Do().ExpectCode(http.StatusConflict, "quote_not_open")
	c.call(http.MethodPost, "catering/quotes/"+q.ID+"/share").Do().ExpectCode(http.StatusConflict, "quote_not_open")

	// A draft past its date cannot be accepted or shared either, and no quote is made or moved
	// to a date already over.
	draft := c.quote("2026-03-10")
	c.env.Clock.Set(time.Date(2026, 3, 11, 6, 0, 0, 0, time.UTC))
	c.owner = c.env.SignIn(c.owner.User.Email)
	c.call(http.MethodPost, "catering/quotes/"+draft.ID+"/accept").JSON(map[string]any{"name": "Maya"}).Do().ExpectCode(http.StatusConflict, "quote_not_open")
	c.call(http.MethodPost, "catering/quotes/"+draft.ID+"/share").Do().ExpectCode(http.StatusConflict, "quote_not_open")
	c.call(http.MethodPost, "catering/quotes").JSON(quoteBody(c.event, "2026-03-10")).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	c.call(http.MethodPut, "catering/quotes/"+q.ID).JSON(quoteBody(c.event, "2026-03-10")).Do().ExpectCode(http.StatusBadRequest, "validation_failed")

	// Editing the expired quote with a new date makes version 2, a draft; shared again, it can be accepted.
	var v2 quote
	c.call(http.MethodPut, "catering/quotes/"+q.ID).JSON(quoteBody(c.event, "2026-03-11")).Do().Expect(http.StatusOK).Decode(&v2)
	if v2.Version != 2 || v2.Status != "draft" {
		t.Fatalf("edited: v%d %s", v2.Version, v2.Status)
	}
	c.env.Call(http.MethodGet, "share/q/"+l.Token).Do().ExpectCode(http.StatusNotFound, "link_not_found")
	l2 := c.share("quotes", q.ID)
	c.env.Call(http.MethodPost, "share/q/"+l2.Token+"/accept").JSON(map[string]any{"name": "Maya", "agree": true}).Do().Expect(http.StatusOK)
}

// Sharing again rotates the token; editing a sent quote voids its link; declining ends it. Every
// token that opens nothing answers the same 404, byte for byte.
func TestRotatedVoidedAndUnknownTokensAnswerTheSame404(t *testing.T) {
	t.Parallel()
	c := newCaterer(t)
	q := c.quote("2026-03-20")
	first := c.share("quotes", q.ID)
	second := c.share("quotes", q.ID)
	if first.Token == second.Token {
		t.Fatal("sharing again kept the token")
	}
	c.env.Call(http.MethodGet, "share/q/"+second.Token).Do().Expect(http.StatusOK)
	unknown := c.env.Call(http.MethodGet, "share/q/"+strings.Repeat("A", 43)).Do().Expect(http.StatusNotFound)
	rotated := c.env.Call(http.MethodGet, "share/q/"+first.Token).Do().Expect(http.StatusNotFound)
	garbage := c.env.Call(http.MethodGet, "share/q/nope").Do().Expect(http.StatusNotFound)
	// A quote token does not open the invoice page, nor inspections (not built yet).
	otherKind := c.env.Call(http.MethodGet, "share/i/"+second.Token).Do().Expect(http.StatusNotFound)
	if string(unknown.Body) != string(rotated.Body) || string(unknown.Body) != string(garbage.Body) || string(unknown.Body) != string(otherKind.Body) {
		t.Fatalf("404 bodies differ:\n%s\n%s\n%s\n%s", unknown.Body, rotated.Body, garbage.Body, otherKind.Body)
	}
	c.env.Call(http.MethodGet, "share/insp/"+second.Token).Do().Expect(http.StatusNotFound)

	var v2 quote
	c.call(http.MethodPut, "catering/quotes/"+q.ID).JSON(quoteBody(c.event, "2026-03-21")).Do().Expect(http.StatusOK).Decode(&v2)
	if v2.Version != 2 || v2.Status != "draft" {
		t.Fatalf("edited sent quote: v%d %s", v2.Version, v2.Status)
	}
	edited := c.env.Call(http.MethodGet, "share/q/"+second.Token).Do().Expect(http.StatusNotFound)
	if string(edited.Body) != string(unknown.Body) {
		t.Fatalf("voided link: %s", edited.Body)
	}
	// Editing a draft keeps its version.
	c.call(http.MethodPut, "catering/quotes/"+q.ID).JSON(quoteBody(c.event, "2026-03-22")).Do().Expect(http.StatusOK).Decode(&v2)
	if v2.Version != 2 {
		t.Fatalf("draft edit made version %d", v2.Version)
	}
	third := c.share("quotes", q.ID)
	c.call(http.MethodPost, "catering/quotes/"+q.ID+"/decline").Do().Expect(http.StatusOK)
	c.env.Call(http.MethodGet, "share/q/"+third.Token).Do().ExpectCode(http.StatusNotFound, "link_not_found")
}

// A member limited to another site finds nothing of this site's catering.
func TestCateringIsSiteScoped(t *testing.T) {
	t.Parallel()
	c := newCaterer(t)
	q := c.quote("2026-03-20")
	other := c.env.Site(c.owner.AccessToken, c.org, "Pastry")
	limited := c.env.Member(c.org, "manager", other)
	call := func(method, path string) *apitest.Request {
		return c.env.Call(method, "orgs/"+c.org.String()+"/"+path).Token(limited.AccessToken)
	}
	call(http.MethodGet, "catering/quotes/"+q.ID).Do().ExpectError(http.StatusNotFound, "Quote not found")
	call(http.MethodGet, "catering/events/"+c.event).Do().ExpectError(http.StatusNotFound, "Event not found")
	var list []quote
	call(http.MethodGet, "catering/quotes").Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 0 {
		t.Fatalf("limited member lists %d quotes", len(list))
	}
	call(http.MethodPost, "catering/quotes").JSON(quoteBody(c.event, "2026-03-20")).Do().ExpectError(http.StatusNotFound, "Event not found")
	// Clients are the organization's: readable, not writable, by a site-limited member.
	call(http.MethodGet, "catering/clients").Do().Expect(http.StatusOK)
	call(http.MethodPost, "catering/clients").JSON(map[string]any{"name": "X"}).Do().ExpectError(http.StatusForbidden, "")
}

func TestCateringListsPage(t *testing.T) {
	t.Parallel()
	c := newCaterer(t)
	for _, n := range []string{"Ana", "Bea", "Cy"} {
		c.create("catering/clients", map[string]any{"name": n})
	}
	for range 3 {
		c.quote("2026-03-20")
	}
	for _, list := range []struct {
		path string
		want int
	}{{"catering/clients", 4}, {"catering/quotes", 3}, {"catering/events", 1}} {
		seen := map[string]bool{}
		path := list.path + "?limit=2"
		for pages := 0; path != ""; pages++ {
			if pages > 3 {
				t.Fatalf("%s: too many pages", list.path)
			}
			var page []struct {
				ID string `json:"id"`
			}
			res := c.call(http.MethodGet, path).Do().Expect(http.StatusOK).Decode(&page)
			for _, p := range page {
				if seen[p.ID] {
					t.Fatalf("%s: %s twice", list.path, p.ID)
				}
				seen[p.ID] = true
			}
			path = ""
			if l := res.Header.Get("Link"); l != "" {
				path = strings.TrimPrefix(l[strings.Index(l, "/v1/"):strings.Index(l, ">")], "/v1/orgs/"+c.org.String()+"/")
			}
		}
		if len(seen) != list.want {
			t.Fatalf("%s: %d items over the pages, want %d", list.path, len(seen), list.want)
		}
	}
}
