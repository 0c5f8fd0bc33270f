package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

func (o *org) countEvents(name string) int {
	o.env.T.Helper()
	var n int
	if err := o.env.Pool.QueryRow(o.env.T.Context(), `SELECT count(*) FROM events WHERE org_id = $1 AND name = $2`, o.id, name).Scan(&n); err != nil {
		o.env.T.Fatal(err)
	}
	return n
}

func TestQuotePageShowsTheQuoteInTheSitesZone(t *testing.T) {
	t.Parallel()
	o := newOrg(t, "Harborview Kitchens")
	_, token := o.quote(o.event(), "2026-03-20")
	p := get(t, o.env, "/share/q/"+token, "").expect(t, http.StatusOK)
	p.noIDs(t, o)
	p.contains(t, "Harborview Kitchens", "Chen–Ortiz wedding reception", "Maya Chen", "Lakeview Pavilion",
		// 23:00 UTC is 6:00 PM in Chicago (CDT), the site's zone.
		"Saturday, June 13, 2026, 6:00 PM CDT", "11:00 PM CDT", "Friday, March 20, 2026",
		"$5,750.00", "$1,150.00", "$685.72", "$7,585.72", "$2,275.72", "10.25%", "20%", "Braised short rib, plated",
		"30% deposit secures the date.", `method="post"`, `name="agree"`, "Awaiting your acceptance")
	// Every asset is a file of this server under a content-hashed name.
	for _, m := range assetRe.FindAllStringSubmatch(p.body, -1) {
		a := get(t, o.env, m[1], "")
		if a.status != http.StatusOK || a.header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Fatalf("asset %s: %d %q", m[1], a.status, a.header.Get("Cache-Control"))
		}
	}
	if n := len(assetRe.FindAllString(p.body, -1)); n < 3 {
		t.Fatalf("%d assets", n)
	}
}

func TestQuoteFormAcceptsOnceAndShowsTheAcceptance(t *testing.T) {
	t.Parallel()
	o := newOrg(t, "Harborview Kitchens")
	event := o.event()
	_, token := o.quote(event, "2026-03-20")
	path := "/share/q/" + token

	// Without agreeing, or without a name, or with a malformed email: the form comes back with
	// the message beside the field and what was typed kept; nothing is accepted.
	for _, c := range []struct {
		form  url.Values
		field string
	}{
		{url.Values{"name": {"Maya Chen"}, "email": {"maya@chen-ortiz.example"}}, "agree-error"},
		{url.Values{"name": {"  "}, "agree": {"yes"}}, "name-error"},
		{url.Values{"name": {"Maya Chen"}, "email": {"not an email"}, "agree": {"yes"}}, "email-error"},
		{url.Values{"name": {strings.Repeat("m", 201)}, "agree": {"yes"}}, "name-error"},
	} {
		p := post(t, o.env, path, "", c.form).expect(t, http.StatusBadRequest)
		p.contains(t, `id="`+c.field+`"`, `aria-invalid="true"`)
		if n := strings.Count(p.body, `<p class="error"`); n != 1 {
			t.Fatalf("%v: %d field errors, want 1 (%s)", c.form, n, c.field)
		}
		if n := c.form.Get("email"); n != "" {
			p.contains(t, `value="`+n+`"`)
		}
	}
	// Hostile bytes are a 400, never a 500.
	post(t, o.env, path, "", url.Values{"name": {"Maya\x00"}, "agree": {"yes"}}).expect(t, http.StatusBadRequest)
	post(t, o.env, path, "", url.Values{"name": {"Maya\xff"}, "agree": {"yes"}}).expect(t, http.StatusBadRequest)
	if n := o.countEvents("catering.quote_accepted"); n != 0 {
		t.Fatalf("%d events after refused forms", n)
	}

	// The form submitted several times at once (a double click, a retry): every submission ends
	// on the accepted quote, and the quote is accepted once.
	form := url.Values{"name": {"Maya Chen"}, "email": {"maya@chen-ortiz.example"}, "agree": {"yes"}}
	var wg sync.WaitGroup
	statuses := make([]int, 8)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := post(t, o.env, path, "", form)
			statuses[i] = p.status
			if p.status == http.StatusSeeOther && p.header.Get("Location") != path {
				t.Errorf("Location %q", p.header.Get("Location"))
			}
		}()
	}
	wg.Wait()
	for _, s := range statuses {
		if s != http.StatusSeeOther {
			t.Fatalf("statuses %v", statuses)
		}
	}
	if n := o.countEvents("catering.quote_accepted"); n != 1 {
		t.Fatalf("%d catering.quote_accepted events", n)
	}
	p := get(t, o.env, path, "").expect(t, http.StatusOK)
	p.contains(t, "Accepted by Maya Chen on Monday, March 2, 2026, 3:00 AM CST")
	if strings.Contains(p.body, `method="post"`) {
		t.Fatal("an accepted quote still shows the form")
	}
	p.noIDs(t, o)
	if strings.Contains(p.body, "maya@chen-ortiz.example") {
		t.Fatal("the page shows the acceptor's email")
	}
}

func TestQuotePageStates(t *testing.T) {
	t.Parallel()
	o := newOrg(t, "Harborview Kitchens")
	// Expired: valid until March 20 in Chicago, read on the 21st there.
	_, expired := o.quote(o.event(), "2026-03-20")
	id, declined := o.quote(o.event(), "2026-03-30")
	o.call(http.MethodPost, "catering/quotes/"+id+"/decline").Do().Expect(http.StatusOK)
	// Declining a quote ends its link (the API's rule): the link is no longer valid.
	get(t, o.env, "/share/q/"+declined, "").expect(t, http.StatusNotFound).contains(t, "This link is not valid")
	post(t, o.env, "/share/q/"+declined, "", url.Values{"name": {"Maya"}, "agree": {"yes"}}).expect(t, http.StatusNotFound)

	o.env.Clock.Set(time.Date(2026, 3, 21, 6, 0, 0, 0, time.UTC))
	p := get(t, o.env, "/share/q/"+expired, "").expect(t, http.StatusOK)
	p.contains(t, "This quote has expired")
	if strings.Contains(p.body, `method="post"`) {
		t.Fatal("an expired quote shows the form")
	}
	p = post(t, o.env, "/share/q/"+expired, "", url.Values{"name": {"Maya"}, "agree": {"yes"}}).expect(t, http.StatusConflict)
	p.contains(t, "This quote can no longer be accepted.")
	if n := o.countEvents("catering.quote_accepted"); n != 0 {
		t.Fatalf("%d events", n)
	}
}

// The organization's name is the client's to read, not the page's to run.
func TestHostileOrgNameIsEscaped(t *testing.T) {
	t.Parallel()
	o := newOrg(t, `<script>alert(1)</script>"><img src=x onerror=alert(2)>`)
	_, token := o.quote(o.event(), "2026-03-20")
	p := get(t, o.env, "/share/q/"+token, "").expect(t, http.StatusOK)
	if strings.Contains(p.body, "<script>alert") || strings.Contains(p.body, "<img src=x") {
		t.Fatalf("unescaped:\n%s", p.body)
	}
	p.contains(t, "&lt;script&gt;alert(1)&lt;/script&gt;")
}
