package webhooks_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/events"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

func feedPath(orgID uuid.UUID, query string) string {
	p := "orgs/" + orgID.String() + "/events"
	if query != "" {
		p += "?" + query
	}
	return p
}

// exampleData is the data of event name as the spec's x-webhooks entry shows it: valid for the
// publisher's contract check, and a different shape for every event.
func exampleData(t *testing.T, name string) map[string]any {
	t.Helper()
	hooks, _ := loadSpec(t).Extensions["x-webhooks"].(map[string]any)
	entry, _ := hooks[name].(map[string]any)
	post, _ := entry["post"].(map[string]any)
	body, _ := post["requestBody"].(map[string]any)
	content, _ := body["content"].(map[string]any)
	media, _ := content["application/json"].(map[string]any)
	example, _ := media["example"].(map[string]any)
	data, ok := example["data"].(map[string]any)
	if !ok {
		t.Fatalf("x-webhooks %s has no example data", name)
	}
	return data
}

// readFeed follows the feed's Link headers from query to the end and returns every item's raw
// bytes.
func readFeed(t *testing.T, env *apitest.Env, token string, orgID uuid.UUID, query string) (items []json.RawMessage, pages int) {
	t.Helper()
	path := feedPath(orgID, query)
	for path != "" {
		res := env.Call(http.MethodGet, path).Token(token).Do().Expect(http.StatusOK)
		var page []json.RawMessage
		res.Decode(&page)
		items = append(items, page...)
		pages++
		path = ""
		if link := res.Header.Get("Link"); link != "" {
			path = link[strings.Index(link, "/v1/")+4 : strings.Index(link, ">")]
		}
		if pages > 100 {
			t.Fatal("the feed's Link headers do not end")
		}
	}
	return items, pages
}

func idOf(t *testing.T, raw json.RawMessage) uuid.UUID {
	t.Helper()
	var e struct {
		ID uuid.UUID `json:"id"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	return e.ID
}

// For every event of the catalogue, the feed's item is byte for byte the body its webhook
// delivery carried; webhook.test deliveries are not in the feed.
func TestEventFeedItemsAreTheDeliveredBodies(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, allowPrivate)
	owner, orgID := env.NewOwner("Harborview")
	rcv := newReceiver(t, http.StatusNoContent)
	sub := subscribe(env, owner.AccessToken, orgID, rcv.URL+"/hooks", "*")
	ids := map[string]uuid.UUID{}
	for _, name := range events.Catalogue {
		env.Clock.Advance(1500 * time.Millisecond)
		ids[name] = publish(t, env, orgID, name, exampleData(t, name))
	}
	env.DrainWebhooks()
	env.Call(http.MethodPost, hooksPath(orgID, sub.ID.String(), "test")).Token(owner.AccessToken).Do().Expect(http.StatusOK)

	delivered := map[string][]byte{}
	for _, h := range rcv.all() {
		delivered[h.Header.Get("x-service-event")] = h.Body
	}
	items, _ := readFeed(t, env, owner.AccessToken, orgID, "")
	if len(items) != len(events.Catalogue) {
		t.Fatalf("the feed has %d events, want %d (webhook.test excluded)", len(items), len(events.Catalogue))
	}
	for i, name := range events.Catalogue {
		body, ok := delivered[name]
		if !ok {
			t.Fatalf("%s was not delivered", name)
		}
		if string(items[i]) != string(body) {
			t.Errorf("%s:\nfeed      %s\ndelivered %s", name, items[i], body)
		}
		if idOf(t, items[i]) != ids[name] {
			t.Errorf("%s: id %s, want the event's %s", name, idOf(t, items[i]), ids[name])
		}
	}
}

// Oldest first by the event's time (not by when it was written), filtered by type, paged with
// Link headers and resumable after any event id; nothing older than 30 days.
func TestEventFeedOrderFilterAndPaging(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	_, otherOrg := env.NewOwner("Elsewhere")
	start := env.Clock.Now()
	at := func(minutes int, name string) uuid.UUID {
		env.Clock.Set(start.Add(time.Duration(minutes) * time.Minute))
		return publish(t, env, orgID, name, exampleData(t, name))
	}
	// Written in this order; their times order them otherwise.
	e10 := at(10, events.AlertCreated)
	e5 := at(5, events.SignoffDecided)
	e20 := at(20, events.AlertCreated)
	e15 := at(15, events.TrayDelivered)
	e25 := at(25, events.SignoffDecided)
	publish(t, env, otherOrg, events.AlertCreated, exampleData(t, events.AlertCreated)) // another organization's
	env.Clock.Set(start.Add(time.Hour))
	owner = env.SignIn(owner.User.Email)

	ids := func(items []json.RawMessage) []uuid.UUID {
		out := make([]uuid.UUID, len(items))
		for i, it := range items {
			out[i] = idOf(t, it)
		}
		return out
	}
	for _, tc := range []struct {
		name, query string
		want        []uuid.UUID
		pages       int
	}{
		{"all, oldest first", "", []uuid.UUID{e5, e10, e15, e20, e25}, 1},
		{"two per page", "limit=2", []uuid.UUID{e5, e10, e15, e20, e25}, 3},
		{"one per page", "limit=1", []uuid.UUID{e5, e10, e15, e20, e25}, 5},
		{"one type", "types=alert.created", []uuid.UUID{e10, e20}, 1},
		{"two types, paged", "types=alert.created,signoff.decided&limit=2", []uuid.UUID{e5, e10, e20, e25}, 2},
		{"after an event", "after=" + e15.String(), []uuid.UUID{e20, e25}, 1},
		{"after an event, filtered", "after=" + e5.String() + "&types=signoff.decided", []uuid.UUID{e25}, 1},
		{"after the last", "after=" + e25.String(), []uuid.UUID{}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items, pages := readFeed(t, env, owner.AccessToken, orgID, tc.query)
			got := ids(items)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || pages != tc.pages {
				t.Errorf("ids %v in %d pages, want %v in %d", got, pages, tc.want, tc.pages)
			}
		})
	}
	for _, q := range []string{"after=" + uuid.Must(uuid.NewV7()).String(), "after=not-a-uuid"} {
		e := env.Call(http.MethodGet, feedPath(orgID, q)).Token(owner.AccessToken).Do().ExpectError(http.StatusBadRequest, "")
		if len(e.Details) == 0 || e.Details[0].Field != "after" {
			t.Errorf("%s: details %+v, want after", q, e.Details)
		}
	}
	e := env.Call(http.MethodGet, feedPath(orgID, "types=alert.opened")).Token(owner.AccessToken).Do().ExpectError(http.StatusBadRequest, "")
	if len(e.Details) == 0 || !strings.HasPrefix(e.Details[0].Field, "types") {
		t.Errorf("unknown type: details %+v", e.Details)
	}

	// 30 days after e10, the events older than that have left the feed, even before maintenance
	// prunes them; resuming after one of them is refused rather than silently restarting.
	env.Clock.Set(start.Add(30*24*time.Hour + 12*time.Minute))
	owner = env.SignIn(owner.User.Email)
	env.SetPlan(orgID, "pro", nil)
	items, _ := readFeed(t, env, owner.AccessToken, orgID, "")
	if fmt.Sprint(ids(items)) != fmt.Sprint([]uuid.UUID{e15, e20, e25}) {
		t.Errorf("after 30 days: %v, want %v", ids(items), []uuid.UUID{e15, e20, e25})
	}
	env.Call(http.MethodGet, feedPath(orgID, "after="+e5.String())).Token(owner.AccessToken).Do().ExpectError(http.StatusBadRequest, "")
}

// The feed is for the owner and admins, on a plan with webhooks, of its own organization.
func TestEventFeedAccess(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	outsider, _ := env.NewOwner("Elsewhere")
	publish(t, env, orgID, events.AlertCreated, exampleData(t, events.AlertCreated))
	for _, role := range []string{"manager", "inspector", "viewer"} {
		m := env.Member(orgID, role)
		env.Call(http.MethodGet, feedPath(orgID, "")).Token(m.AccessToken).Do().ExpectError(http.StatusForbidden, "")
	}
	admin := env.Member(orgID, "admin")
	env.Call(http.MethodGet, feedPath(orgID, "")).Token(admin.AccessToken).Do().Expect(http.StatusOK)
	env.Call(http.MethodGet, feedPath(orgID, "")).Token(outsider.AccessToken).Do().ExpectError(http.StatusNotFound, "Organization not found")
	env.Call(http.MethodGet, feedPath(orgID, "")).Do().ExpectError(http.StatusUnauthorized, "")

	env.SetPlan(orgID, "free", nil)
	e := env.Call(http.MethodGet, feedPath(orgID, "")).Token(owner.AccessToken).Do().ExpectError(http.StatusPaymentRequired, "")
	if e.Feature != "webhooks" {
		t.Errorf("402 feature %q, want webhooks", e.Feature)
	}
	env.SetPlan(orgID, "pro", nil)
	if items, _ := readFeed(t, env, owner.AccessToken, orgID, ""); len(items) != 1 {
		t.Errorf("the owner reads %d events, want 1", len(items))
	}
}
