package catering_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// caterer is an organization with a site in Chicago, a client and an event there.
type caterer struct {
	env    *apitest.Env
	owner  apitest.Session
	org    uuid.UUID
	site   uuid.UUID
	client string
	event  string
}

func allowPrivate(c *config.Config) { c.WebhookAllowPrivate = true }

func newCaterer(t *testing.T) *caterer {
	env := apitest.New(t, allowPrivate)
	owner, org := env.NewOwner("Harborview Kitchens")
	c := &caterer{env: env, owner: owner, org: org, site: env.Site(owner.AccessToken, org, "Main Kitchen")}
	c.client = c.create("catering/clients", map[string]any{"name": "Maya Chen", "email": "maya@chen-ortiz.example"})
	c.event = c.newEvent()
	return c
}

func (c *caterer) call(method, path string) *apitest.Request {
	return c.env.Call(method, "orgs/"+c.org.String()+"/"+path).Token(c.owner.AccessToken)
}

func (c *caterer) create(path string, body any) string {
	c.env.T.Helper()
	var out struct {
		ID string `json:"id"`
	}
	c.call(http.MethodPost, path).JSON(body).Do().Expect(http.StatusCreated).Decode(&out)
	return out.ID
}

func (c *caterer) newEvent() string {
	return c.create("catering/events", map[string]any{
		"clientId": c.client, "siteId": c.site, "name": "Chen–Ortiz wedding reception", "startsAt": "2026-06-13T23:00:00Z",
		"endsAt": "2026-06-14T04:00:00Z", "guestCount": 140, "venue": "Lakeview Pavilion",
	})
}

// The spec's example quote: 140 × $34.50 food, 140 × $6.50 wine, 14 tables at $15 (not
// taxable), a $200 taxable discount; 20 % service, 10.25 % tax, 30 % deposit.
func quoteBody(event, validUntil string) map[string]any {
	return map[string]any{
		"eventId": event, "serviceChargeBps": 2000, "taxRateBps": 1025, "depositPercent": 30, "validUntil": validUntil,
		"terms": "30% deposit secures the date.",
		"lines": []map[string]any{
			{"kind": "food", "description": "Braised short rib, plated", "quantity": "140", "unitPriceCents": 3450, "taxable": true},
			{"kind": "beverage", "description": "Sparkling wine toast", "quantity": "140", "unitPriceCents": 650, "taxable": true},
			{"kind": "rental", "description": "Round tables", "quantity": "14", "unitPriceCents": 1500, "taxable": false},
			{"kind": "discount", "description": "Off-season discount", "quantity": "1", "unitPriceCents": 20000, "taxable": true},
		},
	}
}

type quote struct {
	ID      string `json:"id"`
	EventID string `json:"eventId"`
	Version int    `json:"version"`
	Status  string `json:"status"`
	Lines   []struct {
		TotalCents int64 `json:"totalCents"`
	} `json:"lines"`
	Totals struct {
		SubtotalCents      int64 `json:"subtotalCents"`
		ServiceChargeCents int64 `json:"serviceChargeCents"`
		TaxCents           int64 `json:"taxCents"`
		TotalCents         int64 `json:"totalCents"`
		DepositCents       int64 `json:"depositCents"`
	} `json:"totals"`
	Acceptance *struct {
		Name string `json:"name"`
		Via  string `json:"via"`
	} `json:"acceptance"`
}

func (c *caterer) quote(validUntil string) quote {
	c.env.T.Helper()
	var q quote
	c.call(http.MethodPost, "catering/quotes").JSON(quoteBody(c.event, validUntil)).Do().Expect(http.StatusCreated).Decode(&q)
	return q
}

func (c *caterer) getQuote(id string) quote {
	c.env.T.Helper()
	var q quote
	c.call(http.MethodGet, "catering/quotes/"+id).Do().Expect(http.StatusOK).Decode(&q)
	return q
}

type link struct {
	URL   string `json:"url"`
	Token string `json:"token"`
}

func (c *caterer) share(kind, id string) link {
	c.env.T.Helper()
	var l link
	c.call(http.MethodPost, "catering/"+kind+"/"+id+"/share").Do().Expect(http.StatusOK).Decode(&l)
	return l
}

func (c *caterer) eventStatus(id string) string {
	c.env.T.Helper()
	var e struct {
		Status string `json:"status"`
	}
	c.call(http.MethodGet, "catering/events/"+id).Do().Expect(http.StatusOK).Decode(&e)
	return e.Status
}

func (c *caterer) countEvents(name string) int {
	c.env.T.Helper()
	var n int
	if err := c.env.Pool.QueryRow(c.env.T.Context(), `SELECT count(*) FROM events WHERE org_id = $1 AND name = $2`, c.org, name).Scan(&n); err != nil {
		c.env.T.Fatal(err)
	}
	return n
}

// receiver is a partner's endpoint recording every delivery.
type receiver struct {
	*httptest.Server
	mu   sync.Mutex
	hits []hit
}

type hit struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.hits = append(r.hits, hit{header: req.Header.Clone(), body: body})
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) all() []hit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]hit(nil), r.hits...)
}

// verify checks x-service-signature as a receiver would: HMAC-SHA256 of the raw bytes, in
// constant time.
func verify(secret string, body []byte, signature string) bool {
	got, err := hex.DecodeString(signature)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}

func (c *caterer) subscribe(url string, events ...string) string {
	c.env.T.Helper()
	var s struct {
		Secret string `json:"secret"`
	}
	c.call(http.MethodPost, "webhooks").JSON(map[string]any{"url": url, "events": events}).Do().Expect(http.StatusCreated).Decode(&s)
	return s.Secret
}
