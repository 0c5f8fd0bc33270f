package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// The authorization keeps memberships in memory at their organization's members_version; every
// change made through another replica, or straight in the database, must apply on this replica's
// very next request: a role raised or lowered, sites limited, a member removed or added back, the
// plan lapsing.
func TestAuthorizationSeesChangesFromAnotherReplicaAtOnce(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	other := env.Replica()
	owner, orgID := env.NewOwner("Harborview Kitchens")
	member := env.Member(orgID, "viewer")
	site := env.Site(owner.AccessToken, orgID, "Main Kitchen")
	org := "orgs/" + orgID.String()
	memberURL := org + "/members/" + member.User.ID.String()
	createSite := func() int {
		return env.Call(http.MethodPost, org+"/sites").Token(member.AccessToken).
			JSON(map[string]any{"name": "Annex", "timezone": "America/Chicago"}).Do().Status
	}
	listSites := func() int { return env.Call(http.MethodGet, org+"/sites").Token(member.AccessToken).Do().Status }
	listWebhooks := func() int { return env.Call(http.MethodGet, org+"/webhooks").Token(member.AccessToken).Do().Status }
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := env.Pool.Exec(t.Context(), sql, args...); err != nil {
			t.Fatal(err)
		}
	}

	for _, step := range []struct {
		name   string
		call   func() int
		before int // the answer with this replica's memory filled, before the change
		change func()
		after  int
	}{
		{"role raised on the other replica", createSite, http.StatusForbidden, func() {
			other.Call(http.MethodPut, memberURL).Token(owner.AccessToken).JSON(map[string]any{"role": "admin"}).Do().Expect(http.StatusOK)
		}, http.StatusCreated},
		{"limited to one site on the other replica", createSite, http.StatusCreated, func() {
			other.Call(http.MethodPut, memberURL).Token(owner.AccessToken).
				JSON(map[string]any{"siteIds": []string{site.String()}}).Do().Expect(http.StatusOK)
		}, http.StatusForbidden},
		{"role lowered in the database", listWebhooks, http.StatusForbidden, func() {
			exec(`UPDATE memberships SET role = 'owner', site_ids = '{}' WHERE org_id = $1 AND user_id = $2`, orgID, member.User.ID)
		}, http.StatusOK},
		{"plan lapsed in the database", listWebhooks, http.StatusOK, func() {
			exec(`UPDATE orgs SET plan_tier = 'free', trial_ends_at = NULL WHERE id = $1`, orgID)
		}, http.StatusPaymentRequired},
		{"removed on the other replica", listSites, http.StatusOK, func() {
			other.Call(http.MethodDelete, memberURL).Token(owner.AccessToken).Do().Expect(http.StatusNoContent)
		}, http.StatusNotFound},
		{"added back in the database", listSites, http.StatusNotFound, func() {
			exec(`INSERT INTO memberships (org_id, user_id, role, created_at, updated_at) VALUES ($1, $2, 'viewer', now(), now())`, orgID, member.User.ID)
		}, http.StatusOK},
		{"organization deleted in the database", listSites, http.StatusOK, func() {
			exec(`DELETE FROM orgs WHERE id = $1`, orgID)
		}, http.StatusNotFound},
	} {
		if got := step.call(); got != step.before {
			t.Fatalf("%s: %d before the change, want %d", step.name, got, step.before)
		}
		step.change()
		if got := step.call(); got != step.after {
			t.Fatalf("%s: %d after the change, want %d", step.name, got, step.after)
		}
	}
}

// Membership changes made at once in one organization all apply (each bumps the organization's
// members_version under its row lock, one after the other), and each member's next request is
// authorized with the new role.
func TestConcurrentMembershipChangesAllApply(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	org := "orgs/" + orgID.String()
	const n = 8
	members := make([]apitest.Session, n)
	for i := range members {
		members[i] = env.Member(orgID, "viewer")
		env.Call(http.MethodGet, org+"/sites").Token(members[i].AccessToken).Do().Expect(http.StatusOK) // kept in memory as viewer
	}
	version := func() (v int64) {
		t.Helper()
		if err := env.Pool.QueryRow(t.Context(), `SELECT members_version FROM orgs WHERE id = $1`, orgID).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	before := version()
	codes := make(chan int, n)
	for _, m := range members {
		go func() {
			codes <- env.Call(http.MethodPut, org+"/members/"+m.User.ID.String()).Token(owner.AccessToken).
				JSON(map[string]any{"role": "admin"}).Do().Status
		}()
	}
	for range n {
		if c := <-codes; c != http.StatusOK {
			t.Fatalf("a concurrent role change answered %d", c)
		}
	}
	if got := version() - before; got != n {
		t.Fatalf("members_version moved by %d for %d changes", got, n)
	}
	for i, m := range members {
		env.Call(http.MethodPost, org+"/sites").Token(m.AccessToken).
			JSON(map[string]any{"name": "Annex " + string(rune('A'+i)), "timezone": "America/Chicago"}).Do().Expect(http.StatusCreated)
	}
}
