package records_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// kitchen is an organization with a site in Chicago and its owner; webhooks may reach a local
// receiver.
type kitchen struct {
	t     *testing.T
	env   *apitest.Env
	owner apitest.Session
	org   uuid.UUID
	site  uuid.UUID
}

func newKitchen(t *testing.T) *kitchen {
	env := apitest.New(t, func(c *config.Config) { c.WebhookAllowPrivate = true })
	owner, org := env.NewOwner("Harborview Kitchens")
	k := &kitchen{t: t, env: env, owner: owner, org: org}
	k.site = env.Site(owner.AccessToken, org, "Main Kitchen")
	return k
}

func (k *kitchen) call(method, path, token string) *apitest.Request {
	return k.env.Call(method, "orgs/"+k.org.String()+"/"+path).Token(token)
}

func (k *kitchen) create(collection string, body any, out any) {
	k.t.Helper()
	k.call(http.MethodPost, collection, k.owner.AccessToken).JSON(body).Do().Expect(http.StatusCreated).Decode(out)
}

// advance moves the clock and signs the owner in again (access tokens last 15 minutes).
func (k *kitchen) advance(d time.Duration) {
	k.t.Helper()
	k.env.Clock.Advance(d)
	k.owner = k.env.SignIn(k.owner.User.Email)
}

// receiver is a webhook subscriber of the organization that keeps every delivery body.
type receiver struct {
	mu     sync.Mutex
	bodies []map[string]any
	k      *kitchen
}

func (k *kitchen) receiver(events ...string) *receiver {
	r := &receiver{k: k}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var m map[string]any
		_ = json.NewDecoder(req.Body).Decode(&m)
		r.mu.Lock()
		r.bodies = append(r.bodies, m)
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	k.t.Cleanup(srv.Close)
	k.call(http.MethodPost, "webhooks", k.owner.AccessToken).JSON(map[string]any{"url": srv.URL + "/hooks", "events": events}).
		Do().Expect(http.StatusCreated)
	return r
}

// deliveries drains the webhooks and returns the data of each delivery of event, in order.
func (r *receiver) deliveries(event string) []map[string]any {
	r.k.t.Helper()
	r.k.env.DrainWebhooks()
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []map[string]any
	for _, b := range r.bodies {
		if b["event"] == event {
			if b["orgId"] != r.k.org.String() {
				r.k.t.Fatalf("delivery of another organization: %v", b)
			}
			d, _ := b["data"].(map[string]any)
			out = append(out, d)
		}
	}
	return out
}
