package webhooks_test

import (
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/events"
	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/webhooks"
)

func TestSubscriptionLifecycle(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	const url = "https://hooks.harborview-kitchens.example/sous"

	c := subscribe(env, owner.AccessToken, orgID, url, "alert.created", "signoff.decided")
	if c.URL != url || strings.Join(c.Events, ",") != "alert.created,signoff.decided" || !c.Active ||
		c.LastDeliveryAt != nil || c.LastStatus != nil || c.FailureCount != 0 {
		t.Fatalf("created %+v", c)
	}
	// The secret: shown once, at least 128 random bits, kept so the server can sign.
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(c.Secret, "whsec_"))
	if !strings.HasPrefix(c.Secret, "whsec_") || err != nil || len(raw) < 16 {
		t.Fatalf("secret %q", c.Secret)
	}
	var stored string
	if err := env.Pool.QueryRow(t.Context(), `SELECT secret FROM webhook_subscriptions WHERE id = $1`, c.ID).Scan(&stored); err != nil || stored != c.Secret {
		t.Fatalf("stored secret %q, %v", stored, err)
	}
	other := subscribe(env, owner.AccessToken, orgID, url, "*")
	if other.Secret == c.Secret {
		t.Fatal("two subscriptions share a secret")
	}

	list := env.Call(http.MethodGet, hooksPath(orgID)).Token(owner.AccessToken).Do().Expect(http.StatusOK)
	if strings.Contains(string(list.Body), c.Secret) || strings.Contains(string(list.Body), "secret") {
		t.Fatalf("the list shows a secret: %s", list.Body)
	}
	var listed []created
	list.Decode(&listed)
	if len(listed) != 2 || listed[0].ID != c.ID || listed[1].ID != other.ID || listed[1].Events[0] != "*" {
		t.Fatalf("listed %+v", listed)
	}

	// Pause, change the filter and the URL; the secret stays.
	var patched created
	env.Call(http.MethodPatch, hooksPath(orgID, c.ID.String())).Token(owner.AccessToken).
		JSON(`{"active":false,"events":["*"],"url":"https://erp.example.com/in"}`).Do().Expect(http.StatusOK).Decode(&patched)
	if patched.Active || patched.Events[0] != "*" || patched.URL != "https://erp.example.com/in" || patched.Secret != "" {
		t.Fatalf("patched %+v", patched)
	}
	env.Call(http.MethodPatch, hooksPath(orgID, c.ID.String())).Token(owner.AccessToken).JSON(`{}`).Do().ExpectError(http.StatusBadRequest, "")
	env.Call(http.MethodPatch, hooksPath(orgID, uuid.NewString())).Token(owner.AccessToken).JSON(`{"active":true}`).Do().ExpectError(http.StatusNotFound, "Webhook not found")

	env.Call(http.MethodDelete, hooksPath(orgID, c.ID.String())).Token(owner.AccessToken).Do().Expect(http.StatusNoContent)
	env.Call(http.MethodDelete, hooksPath(orgID, c.ID.String())).Token(owner.AccessToken).Do().ExpectError(http.StatusNotFound, "Webhook not found")
	if got := subscription(env, owner.AccessToken, orgID, other.ID); got.ID != other.ID {
		t.Fatal("the other subscription went too")
	}

	var audited int
	if err := env.Pool.QueryRow(t.Context(), `SELECT count(*) FROM audit_log WHERE org_id = $1 AND action IN ('createWebhook', 'updateWebhook', 'deleteWebhook')`, orgID).Scan(&audited); err != nil || audited != 4 {
		t.Fatalf("%d audit rows, %v", audited, err)
	}
}

func TestWebhooksAreOwnerOnlyAndOrgScoped(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	outsider, outsiderOrg := env.NewOwner("Elsewhere")
	admin := env.Member(orgID, "admin")
	c := subscribe(env, owner.AccessToken, orgID, "https://hooks.example.com/a", "*")

	ops := []struct {
		method, path, body string
	}{
		{http.MethodGet, hooksPath(orgID), ""},
		{http.MethodPost, hooksPath(orgID), `{"url":"https://hooks.example.com/b","events":["*"]}`},
		{http.MethodPatch, hooksPath(orgID, c.ID.String()), `{"active":false}`},
		{http.MethodDelete, hooksPath(orgID, c.ID.String()), ""},
		{http.MethodGet, hooksPath(orgID, c.ID.String(), "deliveries"), ""},
		{http.MethodPost, hooksPath(orgID, c.ID.String(), "test"), ""},
	}
	for _, role := range []string{"admin", "manager", "inspector", "viewer"} {
		m := admin
		if role != "admin" {
			m = env.Member(orgID, role)
		}
		for _, op := range ops {
			req := env.Call(op.method, op.path).Token(m.AccessToken)
			if op.body != "" {
				req.JSON(op.body)
			}
			req.Do().ExpectError(http.StatusForbidden, "owner")
		}
	}
	for _, op := range ops {
		req := env.Call(op.method, op.path)
		if op.body != "" {
			req.JSON(op.body)
		}
		req.Do().ExpectError(http.StatusUnauthorized, "")
	}
	// Nothing the refused calls asked for happened.
	if s := subscription(env, owner.AccessToken, orgID, c.ID); !s.Active || s.LastDeliveryAt != nil {
		t.Fatalf("after refused calls: %+v", s)
	}
	env.Call(http.MethodGet, hooksPath(orgID)).Token(outsider.AccessToken).Do().ExpectError(http.StatusNotFound, "Organization not found")
	// Through the outsider's own organization, the subscription does not exist.
	env.Call(http.MethodDelete, hooksPath(outsiderOrg, c.ID.String())).Token(outsider.AccessToken).Do().ExpectError(http.StatusNotFound, "Webhook not found")
	env.Call(http.MethodGet, hooksPath(outsiderOrg, c.ID.String(), "deliveries")).Token(outsider.AccessToken).Do().ExpectError(http.StatusNotFound, "Webhook not found")
	env.Call(http.MethodPost, hooksPath(outsiderOrg, c.ID.String(), "test")).Token(outsider.AccessToken).Do().ExpectError(http.StatusNotFound, "Webhook not found")
	subscription(env, owner.AccessToken, orgID, c.ID)
}

func TestWebhooksNeedAPlanWithTheFeature(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	subscribe(env, owner.AccessToken, orgID, "https://hooks.example.com/trial", "*")

	env.Clock.Advance(30 * 24 * time.Hour) // the trial ends
	owner = env.SignIn(owner.User.Email)
	e := env.Call(http.MethodPost, hooksPath(orgID)).Token(owner.AccessToken).
		JSON(`{"url":"https://hooks.example.com/free","events":["*"]}`).Do().ExpectError(http.StatusPaymentRequired, "webhooks")
	if e.Feature != "webhooks" {
		t.Fatalf("feature %q", e.Feature)
	}
	env.Call(http.MethodGet, hooksPath(orgID)).Token(owner.AccessToken).Do().ExpectError(http.StatusPaymentRequired, "")

	env.SetPlan(orgID, "pro", nil)
	subscribe(env, owner.AccessToken, orgID, "https://hooks.example.com/pro", "*")
	var list []created
	env.Call(http.MethodGet, hooksPath(orgID)).Token(owner.AccessToken).Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 2 {
		t.Fatalf("%d subscriptions", len(list))
	}
}

func TestSubscriptionValidation(t *testing.T) {
	t.Parallel()
	env := apitest.New(t) // SOUS_WEBHOOK_ALLOW_PRIVATE is off
	owner, orgID := env.NewOwner("Harborview")
	for _, tc := range []struct {
		body, field, message string
	}{
		{`{"url":"https://hooks.example.com/x","events":["alert.opened"]}`, "events.0", "must be one of"},
		{`{"url":"https://hooks.example.com/x","events":["*","alert.created"]}`, "events.0", `"*" must be the only entry`},
		{`{"url":"https://hooks.example.com/x","events":["alert.created","*"]}`, "events.1", `"*" must be the only entry`},
		{`{"url":"https://hooks.example.com/x","events":["webhook.test"]}`, "events.0", "must be one of"},
		{`{"url":"https://hooks.example.com/x","events":[]}`, "events", ""},
		{`{"url":"https://hooks.example.com/x","events":["alert.created","alert.created"]}`, "events", ""},
		{`{"url":"https://hooks.example.com/x"}`, "events", "is required"},
		{`{"events":["*"]}`, "url", "is required"},
		{`{"url":"http://hooks.example.com/x","events":["*"]}`, "url", "must use https"},
		{`{"url":"ftp://hooks.example.com/x","events":["*"]}`, "url", "must use https"},
		{`{"url":"https://10.0.0.7/x","events":["*"]}`, "url", "private or reserved address"},
		{`{"url":"https://169.254.169.254/latest","events":["*"]}`, "url", "private or reserved address"},
		{`{"url":"https://[::1]:8443/x","events":["*"]}`, "url", "private or reserved address"},
		{`{"url":"https://localhost/x","events":["*"]}`, "url", "must not point to localhost"},
		{`{"url":"https://user:pw@hooks.example.com/x","events":["*"]}`, "url", "user name or password"},
		{`{"url":"https://hooks.example.com/x#frag","events":["*"]}`, "url", "fragment"},
		{`{"url":"not a url","events":["*"]}`, "url", ""},
		{`{"url":"","events":["*"]}`, "url", ""},
		{`{"url":"https://hooks.example.com/x","events":["*"],"secret":"mine"}`, "secret", "not a known field"},
	} {
		e := env.Call(http.MethodPost, hooksPath(orgID)).Token(owner.AccessToken).JSON(tc.body).Do().ExpectError(http.StatusBadRequest, "")
		found := false
		for _, d := range e.Details {
			if d.Field == tc.field && strings.Contains(d.Message, tc.message) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: details %+v, want %s: %q", tc.body, e.Details, tc.field, tc.message)
		}
	}
	var n int
	if err := env.Pool.QueryRow(t.Context(), `SELECT count(*) FROM webhook_subscriptions`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d subscriptions written by invalid requests", n)
	}
	// The same rules hold for changes.
	c := subscribe(env, owner.AccessToken, orgID, "https://hooks.example.com/ok", "alert.created")
	env.Call(http.MethodPatch, hooksPath(orgID, c.ID.String())).Token(owner.AccessToken).JSON(`{"url":"http://hooks.example.com/x"}`).Do().ExpectError(http.StatusBadRequest, "must use https")
	env.Call(http.MethodPatch, hooksPath(orgID, c.ID.String())).Token(owner.AccessToken).JSON(`{"events":["*","tray.delivered"]}`).Do().ExpectError(http.StatusBadRequest, "only entry")
}

func TestSubscriptionsPerOrganizationAreCapped(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	for i := range webhooks.MaxSubscriptions {
		subscribe(env, owner.AccessToken, orgID, "https://hooks.example.com/"+string(rune('a'+i)), "*")
	}
	env.Call(http.MethodPost, hooksPath(orgID)).Token(owner.AccessToken).
		JSON(`{"url":"https://hooks.example.com/one-more","events":["*"]}`).Do().ExpectError(http.StatusConflict, "at most 20")
}

// The spec's event enum, its x-webhooks entries and the publisher's catalogue are one list.
func TestCatalogueMatchesTheSpec(t *testing.T) {
	t.Parallel()
	doc := loadSpec(t)
	enum := doc.Components.Schemas["WebhookEventName"].Value.Enum
	var names []string
	for _, v := range enum {
		names = append(names, v.(string))
	}
	want := append([]string{events.All}, events.Catalogue...)
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("spec enum %v, catalogue %v", names, want)
	}
	hooks, _ := doc.Extensions["x-webhooks"].(map[string]any)
	for _, name := range append(append([]string{}, events.Catalogue...), events.WebhookTest) {
		if hooks[name] == nil {
			t.Errorf("x-webhooks has no entry for %s", name)
		}
	}
	if len(hooks) != len(events.Catalogue)+1 {
		t.Errorf("x-webhooks has %d entries", len(hooks))
	}
}

// The event feed's response names every event's body, so clients generated from the spec keep
// the payload types (x-webhooks alone is dropped by most generators), and its types filter is
// the catalogue.
func TestEventFeedSchemaCoversTheCatalogue(t *testing.T) {
	t.Parallel()
	doc := loadSpec(t)
	var types []string
	for _, v := range doc.Components.Schemas["EventType"].Value.Enum {
		types = append(types, v.(string))
	}
	if strings.Join(types, ",") != strings.Join(events.Catalogue, ",") {
		t.Errorf("EventType %v, catalogue %v", types, events.Catalogue)
	}
	op := doc.Paths.Find("/orgs/{orgId}/events").Get
	items := op.Responses.Status(200).Value.Content["application/json"].Schema.Value.Items
	if items.Ref != "#/components/schemas/Event" {
		t.Fatalf("feed items %q, want the Event schema", items.Ref)
	}
	event := items.Value
	if event.Discriminator == nil || event.Discriminator.PropertyName != "event" {
		t.Fatalf("Event has no discriminator on event")
	}
	var refs []string
	for _, s := range event.OneOf {
		refs = append(refs, s.Ref)
	}
	for _, name := range events.Catalogue {
		want := "#/components/schemas/" + strings.TrimSuffix(events.SchemaName(name), "Data") + "Event"
		if !slices.Contains(refs, want) || event.Discriminator.Mapping[name].Ref != want {
			t.Errorf("%s: Event.oneOf %v / mapping %q, want %s", name, refs, event.Discriminator.Mapping[name].Ref, want)
		}
		body := doc.Components.Schemas[strings.TrimPrefix(want, "#/components/schemas/")]
		if body == nil || len(body.Value.AllOf) != 2 || body.Value.AllOf[1].Value.Properties["data"].Ref != "#/components/schemas/"+events.SchemaName(name) {
			t.Errorf("%s: its body schema does not reference %s", name, events.SchemaName(name))
		}
	}
}
