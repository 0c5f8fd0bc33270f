package audit_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

type entry struct {
	ID    uuid.UUID `json:"id"`
	At    time.Time `json:"at"`
	Actor struct {
		Kind string     `json:"kind"`
		ID   *uuid.UUID `json:"id"`
		Name *string    `json:"name"`
	} `json:"actor"`
	Action    string     `json:"action"`
	TargetID  *uuid.UUID `json:"targetId"`
	IP        *string    `json:"ip"`
	RequestID *string    `json:"requestId"`
}

func TestWritesLeaveAuditRows(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	env.Clock.Advance(time.Minute)
	var site struct {
		ID uuid.UUID `json:"id"`
	}
	env.Call(http.MethodPost, "orgs/"+orgID.String()+"/sites").Token(owner.AccessToken).FromIP("203.0.113.7").
		Header("X-Request-Id", "req-create-site").
		JSON(map[string]string{"name": "Main Kitchen", "timezone": "Europe/Dublin"}).Do().Expect(http.StatusCreated).Decode(&site)

	var log []entry
	env.Call(http.MethodGet, "orgs/"+orgID.String()+"/audit-log").Token(owner.AccessToken).Do().Expect(http.StatusOK).Decode(&log)
	if len(log) != 2 {
		t.Fatalf("%d entries: %+v", len(log), log)
	}
	latest, first := log[0], log[1]
	if latest.Action != "createSite" || latest.Actor.Kind != "user" || *latest.Actor.ID != owner.User.ID ||
		*latest.Actor.Name != "Test Owner" || *latest.TargetID != site.ID || *latest.IP != "203.0.113.7" ||
		*latest.RequestID != "req-create-site" || !latest.At.Equal(apitest.Epoch.Add(time.Minute)) {
		t.Fatalf("createSite entry %+v", latest)
	}
	if first.Action != "registerUser" || *first.TargetID != orgID || *first.Actor.ID != owner.User.ID {
		t.Fatalf("registration entry %+v", first)
	}

	// A failed write leaves nothing.
	env.Call(http.MethodPost, "orgs/"+orgID.String()+"/sites").Token(owner.AccessToken).
		JSON(map[string]string{"name": "Nowhere", "timezone": "Mars/Olympus"}).Do().Expect(http.StatusBadRequest)
	env.Call(http.MethodGet, "orgs/"+orgID.String()+"/audit-log").Token(owner.AccessToken).Do().Expect(http.StatusOK).Decode(&log)
	if len(log) != 2 {
		t.Fatalf("a refused write was audited: %+v", log[0])
	}
}

func TestAuditLogPagesAndFilters(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	admin := env.Member(orgID, "admin")
	for i := 0; i < 5; i++ {
		env.Clock.Advance(time.Minute)
		env.Site(owner.AccessToken, orgID, "Owner site "+string(rune('A'+i)))
	}
	env.Clock.Advance(time.Minute)
	env.Site(admin.AccessToken, orgID, "Admin site")
	path := "orgs/" + orgID.String() + "/audit-log"

	// Pages of two, following Link headers, newest first, 7 entries in all.
	var all []entry
	next := path + "?limit=2"
	for pages := 0; next != ""; pages++ {
		if pages > 5 {
			t.Fatal("pagination does not end")
		}
		var page []entry
		res := env.Call(http.MethodGet, next).Token(admin.AccessToken).Do().Expect(http.StatusOK).Decode(&page)
		all = append(all, page...)
		next = ""
		if link := res.Header.Get("Link"); link != "" {
			if !strings.HasSuffix(link, `>; rel="next"`) || !strings.HasPrefix(link, "<"+env.URL+"/v1/") {
				t.Fatalf("Link %q", link)
			}
			u, _ := url.Parse(strings.TrimSuffix(strings.TrimPrefix(link, "<"), `>; rel="next"`))
			next = strings.TrimPrefix(u.RequestURI(), "/v1/")
			if len(page) != 2 || u.Query().Get("limit") != "2" {
				t.Fatalf("page of %d, next %q", len(page), link)
			}
		}
	}
	if len(all) != 7 {
		t.Fatalf("%d entries across pages", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i].At.After(all[i-1].At) || all[i].ID == all[i-1].ID {
			t.Fatalf("entries out of order at %d", i)
		}
	}

	var byAdmin []entry
	env.Call(http.MethodGet, path+"?actorId="+admin.User.ID.String()).Token(admin.AccessToken).Do().Expect(http.StatusOK).Decode(&byAdmin)
	if len(byAdmin) != 1 || byAdmin[0].Action != "createSite" {
		t.Fatalf("by admin %+v", byAdmin)
	}
	var registered []entry
	env.Call(http.MethodGet, path+"?action=registerUser").Token(admin.AccessToken).Do().Expect(http.StatusOK).Decode(&registered)
	if len(registered) != 1 {
		t.Fatalf("registerUser entries %d", len(registered))
	}
	var window []entry
	from := apitest.Epoch.Add(2 * time.Minute).Format(time.RFC3339)
	to := apitest.Epoch.Add(4 * time.Minute).Format(time.RFC3339)
	env.Call(http.MethodGet, path+"?from="+url.QueryEscape(from)+"&to="+url.QueryEscape(to)).Token(admin.AccessToken).Do().Expect(http.StatusOK).Decode(&window)
	if len(window) != 2 {
		t.Fatalf("window holds %d entries", len(window))
	}

	env.Call(http.MethodGet, path+"?cursor=garbage").Token(admin.AccessToken).Do().ExpectError(http.StatusBadRequest, "cursor")
	env.Call(http.MethodGet, path+"?limit=501").Token(admin.AccessToken).Do().ExpectError(http.StatusBadRequest, "limit")
	manager := env.Member(orgID, "manager")
	env.Call(http.MethodGet, path).Token(manager.AccessToken).Do().ExpectError(http.StatusForbidden, "")
}
