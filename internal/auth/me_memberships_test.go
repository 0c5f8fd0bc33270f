package auth_test

import (
	"net/http"
	"testing"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

type meView struct {
	Memberships []struct {
		OrgID   string   `json:"orgId"`
		OrgName string   `json:"orgName"`
		Role    string   `json:"role"`
		SiteIDs []string `json:"siteIds"`
	} `json:"memberships"`
}

// GET /auth/me keeps a user's memberships in memory between calls; every change made through
// another replica (or straight in the database) must show on the very next call of this one.
func TestMeShowsMembershipChangesFromAnotherReplicaAtOnce(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	other := env.Replica()
	owner, orgID := env.NewOwner("Harborview Kitchens")
	member := env.Member(orgID, "viewer")
	site := env.Site(owner.AccessToken, orgID, "Main Kitchen")
	me := func() meView {
		t.Helper()
		var v meView
		env.Call(http.MethodGet, "auth/me").Token(member.AccessToken).Do().Expect(http.StatusOK).Decode(&v)
		return v
	}
	memberURL := "orgs/" + orgID.String() + "/members/" + member.User.ID.String()

	for _, step := range []struct {
		name   string
		change func()
		check  func(meView) bool
	}{
		{"nothing changed", func() {},
			func(v meView) bool { return len(v.Memberships) == 1 && v.Memberships[0].Role == "viewer" }},
		{"role changed on the other replica", func() {
			other.Call(http.MethodPut, memberURL).Token(owner.AccessToken).
				JSON(map[string]any{"role": "manager"}).Do().Expect(http.StatusOK)
		}, func(v meView) bool { return len(v.Memberships) == 1 && v.Memberships[0].Role == "manager" }},
		{"sites changed on the other replica", func() {
			other.Call(http.MethodPut, memberURL).Token(owner.AccessToken).
				JSON(map[string]any{"siteIds": []string{site.String()}}).Do().Expect(http.StatusOK)
		}, func(v meView) bool {
			return len(v.Memberships) == 1 && len(v.Memberships[0].SiteIDs) == 1 && v.Memberships[0].SiteIDs[0] == site.String()
		}},
		{"organization renamed on the other replica", func() {
			other.Call(http.MethodPut, "orgs/"+orgID.String()).Token(owner.AccessToken).
				JSON(map[string]any{"name": "Harborview Kitchens West"}).Do().Expect(http.StatusOK)
		}, func(v meView) bool {
			return len(v.Memberships) == 1 && v.Memberships[0].OrgName == "Harborview Kitchens West"
		}},
		{"membership added in the database", func() {
			_, org2 := env.NewOwner("Second Org")
			if _, err := env.Pool.Exec(t.Context(), `INSERT INTO memberships (org_id, user_id, role, created_at, updated_at)
				VALUES ($1, $2, 'admin', now(), now())`, org2, member.User.ID); err != nil {
				t.Fatal(err)
			}
		}, func(v meView) bool { return len(v.Memberships) == 2 }},
		{"removed on the other replica", func() {
			other.Call(http.MethodDelete, memberURL).Token(owner.AccessToken).Do().Expect(http.StatusNoContent)
		}, func(v meView) bool { return len(v.Memberships) == 1 && v.Memberships[0].OrgName == "Second Org" }},
		{"organization deleted in the database", func() {
			if _, err := env.Pool.Exec(t.Context(), `DELETE FROM orgs WHERE name = 'Second Org'`); err != nil {
				t.Fatal(err)
			}
		}, func(v meView) bool { return len(v.Memberships) == 0 }},
	} {
		me() // the memberships as they were, now in this replica's memory
		step.change()
		if v := me(); !step.check(v) {
			t.Fatalf("%s: /auth/me answered %+v", step.name, v)
		}
	}
}
