package orgs_test

import (
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

type member struct {
	UserID      uuid.UUID   `json:"userId"`
	Name        string      `json:"name"`
	Email       string      `json:"email"`
	Role        string      `json:"role"`
	SiteIDs     []uuid.UUID `json:"siteIds"`
	Credentials []string    `json:"credentials"`
	JoinedAt    time.Time   `json:"joinedAt"`
}

func listMembers(env *apitest.Env, token string, orgID uuid.UUID) map[uuid.UUID]member {
	env.T.Helper()
	var list []member
	env.Call(http.MethodGet, orgPath(orgID, "members")).Token(token).Do().Expect(http.StatusOK).Decode(&list)
	out := make(map[uuid.UUID]member, len(list))
	for _, m := range list {
		out[m.UserID] = m
	}
	if len(out) != len(list) {
		env.T.Fatalf("a member is listed twice: %+v", list)
	}
	return out
}

func memberPath(orgID, userID uuid.UUID) string {
	return orgPath(orgID, "members", userID.String())
}

func updateMember(env *apitest.Env, token string, orgID, userID uuid.UUID, body any) *apitest.Response {
	env.T.Helper()
	return env.Call(http.MethodPut, memberPath(orgID, userID)).Token(token).JSON(body).Do()
}

func removeMember(env *apitest.Env, token string, orgID, userID uuid.UUID) *apitest.Response {
	env.T.Helper()
	return env.Call(http.MethodDelete, memberPath(orgID, userID)).Token(token).Do()
}

func roleOf(env *apitest.Env, orgID, userID uuid.UUID) string {
	env.T.Helper()
	var role string
	err := env.Pool.QueryRow(env.T.Context(), `SELECT role FROM memberships WHERE org_id = $1 AND user_id = $2`, orgID, userID).Scan(&role)
	if err != nil {
		return "none"
	}
	return role
}

func sortedIDs(ids ...uuid.UUID) []uuid.UUID {
	ids = slices.Clone(ids)
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	return ids
}

func TestListMembers(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	siteA := env.Site(owner.AccessToken, orgID, "Main Kitchen")
	manager := env.Member(orgID, "manager", siteA)
	viewer := env.Member(orgID, "viewer")
	other, otherOrg := env.NewOwner("Other Kitchens")
	_ = env.Member(otherOrg, "admin")

	for _, tok := range []string{owner.AccessToken, viewer.AccessToken, manager.AccessToken} {
		ms := listMembers(env, tok, orgID)
		if len(ms) != 3 {
			t.Fatalf("%d members listed: %+v", len(ms), ms)
		}
		o := ms[owner.User.ID]
		if o.Role != "owner" || o.Email != owner.User.Email || o.Name != owner.User.Name || len(o.SiteIDs) != 0 || o.SiteIDs == nil ||
			o.Credentials == nil || len(o.Credentials) != 0 || !o.JoinedAt.Equal(apitest.Epoch) {
			t.Errorf("owner %+v", o)
		}
		if m := ms[manager.User.ID]; m.Role != "manager" || !slices.Equal(m.SiteIDs, []uuid.UUID{siteA}) {
			t.Errorf("manager %+v", m)
		}
		if v := ms[viewer.User.ID]; v.Role != "viewer" || len(v.SiteIDs) != 0 {
			t.Errorf("viewer %+v", v)
		}
	}
	env.Call(http.MethodGet, orgPath(orgID, "members")).Token(other.AccessToken).Do().ExpectError(http.StatusNotFound, "Organization not found")
}

func TestUpdateMemberRoleSitesAndCredentials(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	siteA := env.Site(owner.AccessToken, orgID, "A Kitchen")
	siteB := env.Site(owner.AccessToken, orgID, "B Kitchen")
	admin := env.Member(orgID, "admin")
	cook := env.Member(orgID, "viewer")

	var m member
	updateMember(env, admin.AccessToken, orgID, cook.User.ID, map[string]any{
		"role": "manager", "siteIds": []uuid.UUID{siteB, siteA}, "credentials": []string{"rd", "haccp"},
	}).Expect(http.StatusOK).Decode(&m)
	if m.UserID != cook.User.ID || m.Role != "manager" || !slices.Equal(m.SiteIDs, sortedIDs(siteA, siteB)) ||
		!slices.Equal(sorted(m.Credentials), []string{"haccp", "rd"}) {
		t.Fatalf("member %+v", m)
	}

	// Fields absent keep their value.
	updateMember(env, admin.AccessToken, orgID, cook.User.ID, map[string]any{"credentials": []string{"cdm"}}).Expect(http.StatusOK).Decode(&m)
	if m.Role != "manager" || len(m.SiteIDs) != 2 || !slices.Equal(m.Credentials, []string{"cdm"}) {
		t.Fatalf("after credentials %+v", m)
	}
	updateMember(env, admin.AccessToken, orgID, cook.User.ID, map[string]any{"siteIds": []uuid.UUID{}}).Expect(http.StatusOK).Decode(&m)
	if m.Role != "manager" || len(m.SiteIDs) != 0 || m.SiteIDs == nil || !slices.Equal(m.Credentials, []string{"cdm"}) {
		t.Fatalf("after clearing sites %+v", m)
	}
	updateMember(env, admin.AccessToken, orgID, cook.User.ID, map[string]any{"role": "admin"}).Expect(http.StatusOK).Decode(&m)
	if m.Role != "admin" {
		t.Fatalf("after promotion %+v", m)
	}

	// The change shows in the list, in the member's own session and takes effect at once.
	if got := listMembers(env, owner.AccessToken, orgID)[cook.User.ID]; got.Role != "admin" || !slices.Equal(got.Credentials, []string{"cdm"}) {
		t.Fatalf("listed %+v", got)
	}
	var me apitest.Session
	env.Call(http.MethodGet, "auth/me").Token(cook.AccessToken).Do().Expect(http.StatusOK).Decode(&me.User)
	if len(me.User.Memberships) != 1 || me.User.Memberships[0].Role != "admin" || !slices.Equal(me.User.Memberships[0].Credentials, []string{"cdm"}) {
		t.Fatalf("me %+v", me.User.Memberships)
	}
	env.Site(cook.AccessToken, orgID, "C Kitchen")
	if n := auditCount(env, "updateMember"); n != 4 {
		t.Errorf("%d updateMember audit rows, want 4", n)
	}
}

func TestStaffIsStoredAsInspector(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	cook := env.Member(orgID, "viewer")
	var m member
	updateMember(env, owner.AccessToken, orgID, cook.User.ID, map[string]any{"role": "staff"}).Expect(http.StatusOK).Decode(&m)
	if m.Role != "inspector" || roleOf(env, orgID, cook.User.ID) != "inspector" {
		t.Fatalf("member %+v, stored %s", m, roleOf(env, orgID, cook.User.ID))
	}
	if got := listMembers(env, owner.AccessToken, orgID)[cook.User.ID]; got.Role != "inspector" {
		t.Fatalf("listed %+v", got)
	}
}

func TestUpdateMemberValidation(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	siteA := env.Site(owner.AccessToken, orgID, "A Kitchen")
	other, otherOrg := env.NewOwner("Other Kitchens")
	foreign := env.Site(other.AccessToken, otherOrg, "Their Kitchen")
	cook := env.Member(orgID, "manager", siteA)

	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"site of another organization", map[string]any{"siteIds": []uuid.UUID{siteA, foreign}}, "siteIds"},
		{"unknown site", map[string]any{"siteIds": []uuid.UUID{uuid.Must(uuid.NewV7())}}, "siteIds"},
		{"unknown role", map[string]any{"role": "chef"}, "role"},
		{"unknown credential", map[string]any{"credentials": []string{"phd"}}, "credentials.0"},
		{"duplicate sites", map[string]any{"siteIds": []uuid.UUID{siteA, siteA}}, "siteIds"},
		{"not a uuid", map[string]any{"siteIds": []string{"kitchen"}}, "siteIds.0"},
		{"empty body", map[string]any{}, "body"},
	}
	for _, tc := range cases {
		res := updateMember(env, owner.AccessToken, orgID, cook.User.ID, tc.body)
		if res.Status != http.StatusBadRequest {
			t.Errorf("%s: status %d: %s", tc.name, res.Status, res.Body)
			continue
		}
		if e := res.Err(); !hasField(e, tc.field) {
			t.Errorf("%s: details %+v do not name %s", tc.name, e.Details, tc.field)
		}
	}
	if m := listMembers(env, owner.AccessToken, orgID)[cook.User.ID]; m.Role != "manager" || !slices.Equal(m.SiteIDs, []uuid.UUID{siteA}) {
		t.Fatalf("refused updates changed the member: %+v", m)
	}
	if n := auditCount(env, "updateMember"); n != 0 {
		t.Fatalf("%d audit rows for refused updates", n)
	}
}

func TestMembersCannotRiseAboveTheActor(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	admin := env.Member(orgID, "admin")
	cook := env.Member(orgID, "manager")

	cases := []struct {
		name   string
		token  string
		target uuid.UUID
		body   map[string]any
		msg    string
	}{
		{"admin grants owner", admin.AccessToken, cook.User.ID, map[string]any{"role": "owner"}, "owner role"},
		{"admin makes themself owner", admin.AccessToken, admin.User.ID, map[string]any{"role": "owner"}, "owner role"},
		{"admin demotes the owner", admin.AccessToken, owner.User.ID, map[string]any{"role": "viewer"}, "above yours"},
		{"admin changes the owner's credentials", admin.AccessToken, owner.User.ID, map[string]any{"credentials": []string{"rd"}}, "above yours"},
		{"manager changes anyone", cook.AccessToken, admin.User.ID, map[string]any{"role": "viewer"}, "admin"},
	}
	for _, tc := range cases {
		res := updateMember(env, tc.token, orgID, tc.target, tc.body)
		if res.Status != http.StatusForbidden {
			t.Errorf("%s: status %d: %s", tc.name, res.Status, res.Body)
			continue
		}
		if e := res.Err(); !containsFold(e.Error, tc.msg) {
			t.Errorf("%s: error %q", tc.name, e.Error)
		}
	}
	removeMember(env, admin.AccessToken, orgID, owner.User.ID).ExpectError(http.StatusForbidden, "above yours")
	removeMember(env, cook.AccessToken, orgID, admin.User.ID).ExpectError(http.StatusForbidden, "")

	want := map[uuid.UUID]string{owner.User.ID: "owner", admin.User.ID: "admin", cook.User.ID: "manager"}
	for id, role := range want {
		if got := roleOf(env, orgID, id); got != role {
			t.Errorf("%s is now %s", role, got)
		}
	}

	// An admin may make another admin (their own rank), and an owner may make owners.
	var m member
	updateMember(env, admin.AccessToken, orgID, cook.User.ID, map[string]any{"role": "admin"}).Expect(http.StatusOK).Decode(&m)
	if m.Role != "admin" {
		t.Fatalf("member %+v", m)
	}
	updateMember(env, owner.AccessToken, orgID, cook.User.ID, map[string]any{"role": "owner"}).Expect(http.StatusOK).Decode(&m)
	if m.Role != "owner" {
		t.Fatalf("member %+v", m)
	}
	// The new owner is now above the admin.
	updateMember(env, admin.AccessToken, orgID, cook.User.ID, map[string]any{"role": "viewer"}).ExpectError(http.StatusForbidden, "above yours")
}

func TestTheLastOwnerStays(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")

	updateMember(env, owner.AccessToken, orgID, owner.User.ID, map[string]any{"role": "admin"}).ExpectCode(http.StatusConflict, "last_owner")
	removeMember(env, owner.AccessToken, orgID, owner.User.ID).ExpectError(http.StatusConflict, "at least one owner")
	// A change that keeps the role is not a demotion.
	var m member
	updateMember(env, owner.AccessToken, orgID, owner.User.ID, map[string]any{"role": "owner", "credentials": []string{"chef"}}).Expect(http.StatusOK).Decode(&m)
	if m.Role != "owner" || !slices.Equal(m.Credentials, []string{"chef"}) {
		t.Fatalf("owner %+v", m)
	}
	if got := roleOf(env, orgID, owner.User.ID); got != "owner" {
		t.Fatalf("the last owner is now %s", got)
	}

	// With a second owner, the first may step down, and then the second may remove the first.
	second := env.Member(orgID, "owner")
	updateMember(env, owner.AccessToken, orgID, owner.User.ID, map[string]any{"role": "admin"}).Expect(http.StatusOK).Decode(&m)
	if m.Role != "admin" {
		t.Fatalf("former owner %+v", m)
	}
	// Now the second is the last owner.
	updateMember(env, second.AccessToken, orgID, second.User.ID, map[string]any{"role": "staff"}).ExpectError(http.StatusConflict, "at least one owner")
	removeMember(env, second.AccessToken, orgID, second.User.ID).ExpectError(http.StatusConflict, "at least one owner")

	third := env.Member(orgID, "owner")
	removeMember(env, third.AccessToken, orgID, second.User.ID).Expect(http.StatusNoContent)
	if got := roleOf(env, orgID, second.User.ID); got != "none" {
		t.Fatalf("removed owner still %s", got)
	}
	if n := count(env, `SELECT count(*) FROM memberships WHERE org_id = $1 AND role = 'owner'`, orgID); n != 1 {
		t.Fatalf("%d owners", n)
	}
}

func TestRemoveMember(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	admin := env.Member(orgID, "admin")
	cook := env.Member(orgID, "manager")
	getOrg(env, cook.AccessToken, orgID)

	removeMember(env, admin.AccessToken, orgID, cook.User.ID).Expect(http.StatusNoContent)
	if _, ok := listMembers(env, owner.AccessToken, orgID)[cook.User.ID]; ok {
		t.Fatal("removed member still listed")
	}
	env.Call(http.MethodGet, orgPath(orgID)).Token(cook.AccessToken).Do().ExpectError(http.StatusNotFound, "Organization not found")
	var me apitest.Session
	env.Call(http.MethodGet, "auth/me").Token(cook.AccessToken).Do().Expect(http.StatusOK).Decode(&me.User)
	if len(me.User.Memberships) != 0 {
		t.Fatalf("memberships after removal %+v", me.User.Memberships)
	}
	// Gone means gone: a second removal and an update answer 404.
	removeMember(env, admin.AccessToken, orgID, cook.User.ID).ExpectError(http.StatusNotFound, "Member not found")
	updateMember(env, admin.AccessToken, orgID, cook.User.ID, map[string]any{"role": "viewer"}).ExpectError(http.StatusNotFound, "Member not found")
	if n := auditCount(env, "removeMember"); n != 1 {
		t.Errorf("%d removeMember audit rows", n)
	}

	// An admin may leave on their own.
	removeMember(env, admin.AccessToken, orgID, admin.User.ID).Expect(http.StatusNoContent)
	env.Call(http.MethodGet, orgPath(orgID)).Token(admin.AccessToken).Do().ExpectError(http.StatusNotFound, "Organization not found")
}

func TestUnknownAndForeignMembersAreNotFound(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	other, otherOrg := env.NewOwner("Other Kitchens")
	outsider := env.Member(otherOrg, "viewer")
	loner := env.NewUser()

	for _, id := range []uuid.UUID{uuid.Must(uuid.NewV7()), other.User.ID, outsider.User.ID, loner.User.ID} {
		updateMember(env, owner.AccessToken, orgID, id, map[string]any{"role": "viewer"}).ExpectError(http.StatusNotFound, "Member not found")
		removeMember(env, owner.AccessToken, orgID, id).ExpectError(http.StatusNotFound, "Member not found")
	}
	if got := roleOf(env, otherOrg, outsider.User.ID); got != "viewer" {
		t.Fatalf("the other organization's member is now %s", got)
	}
	// Someone else's organization answers 404 for its members too.
	updateMember(env, owner.AccessToken, otherOrg, outsider.User.ID, map[string]any{"role": "admin"}).ExpectError(http.StatusNotFound, "Organization not found")
	removeMember(env, owner.AccessToken, otherOrg, outsider.User.ID).ExpectError(http.StatusNotFound, "Organization not found")
}

func TestSiteScopedAdminGrantsOnlyWithinTheirSites(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	siteA := env.Site(owner.AccessToken, orgID, "A Kitchen")
	siteB := env.Site(owner.AccessToken, orgID, "B Kitchen")
	admin := env.Member(orgID, "admin", siteA)
	cookA := env.Member(orgID, "viewer", siteA)
	cookB := env.Member(orgID, "viewer", siteB)
	everywhere := env.Member(orgID, "viewer")

	// Another site is not found for them (x-site-scope site), whether a site id or a member of
	// other sites only; a member they see but who reaches beyond their sites is forbidden.
	cases := []struct {
		name   string
		target uuid.UUID
		body   map[string]any
		status int
	}{
		{"widen to another site", cookA.User.ID, map[string]any{"siteIds": []uuid.UUID{siteA, siteB}}, http.StatusNotFound},
		{"move to another site", cookA.User.ID, map[string]any{"siteIds": []uuid.UUID{siteB}}, http.StatusNotFound},
		{"widen to all sites", cookA.User.ID, map[string]any{"siteIds": []uuid.UUID{}}, http.StatusForbidden},
		{"change a member of another site", cookB.User.ID, map[string]any{"role": "manager"}, http.StatusNotFound},
		{"change a member of all sites", everywhere.User.ID, map[string]any{"role": "manager"}, http.StatusForbidden},
		{"widen themself", admin.User.ID, map[string]any{"siteIds": []uuid.UUID{}}, http.StatusForbidden},
	}
	for _, tc := range cases {
		if res := updateMember(env, admin.AccessToken, orgID, tc.target, tc.body); res.Status != tc.status {
			t.Errorf("%s: status %d, want %d: %s", tc.name, res.Status, tc.status, res.Body)
		}
	}
	removeMember(env, admin.AccessToken, orgID, cookB.User.ID).ExpectError(http.StatusNotFound, "Member not found")
	removeMember(env, admin.AccessToken, orgID, everywhere.User.ID).ExpectError(http.StatusForbidden, "")

	// They list the members who share their site or reach every site, not those of site B only.
	seen := listMembers(env, admin.AccessToken, orgID)
	for id, want := range map[uuid.UUID]bool{cookA.User.ID: true, everywhere.User.ID: true, owner.User.ID: true, cookB.User.ID: false} {
		if _, ok := seen[id]; ok != want {
			t.Errorf("scoped admin lists member %s: %v, want %v", id, ok, want)
		}
	}

	ms := listMembers(env, owner.AccessToken, orgID)
	if m := ms[cookA.User.ID]; m.Role != "viewer" || !slices.Equal(m.SiteIDs, []uuid.UUID{siteA}) {
		t.Fatalf("cook A %+v", m)
	}
	if m := ms[admin.User.ID]; !slices.Equal(m.SiteIDs, []uuid.UUID{siteA}) {
		t.Fatalf("scoped admin %+v", m)
	}

	// Within their site they manage freely.
	var m member
	updateMember(env, admin.AccessToken, orgID, cookA.User.ID, map[string]any{"role": "manager", "siteIds": []uuid.UUID{siteA}, "credentials": []string{"rd"}}).
		Expect(http.StatusOK).Decode(&m)
	if m.Role != "manager" || !slices.Equal(m.SiteIDs, []uuid.UUID{siteA}) || !slices.Equal(m.Credentials, []string{"rd"}) {
		t.Fatalf("cook A %+v", m)
	}
	removeMember(env, admin.AccessToken, orgID, cookA.User.ID).Expect(http.StatusNoContent)
}

func TestTwoOwnersDemotingEachOtherAtOnceLeaveOne(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	a, orgID := env.NewOwner("Harborview Kitchens")
	b := env.Member(orgID, "owner")
	for round := range 5 {
		// Each owner demotes the other at the same moment; the owners' rows are locked, so at
		// most one demotion wins and the organization keeps an owner.
		var wg sync.WaitGroup
		statuses := make([]int, 2)
		for i, pair := range [][2]apitest.Session{{a, b}, {b, a}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = env.Call(http.MethodPut, memberPath(orgID, pair[1].User.ID)).Token(pair[0].AccessToken).
					JSON(map[string]any{"role": "admin"}).Do().Status
			}()
		}
		wg.Wait()
		slices.Sort(statuses)
		if n := count(env, `SELECT count(*) FROM memberships WHERE org_id = $1 AND role = 'owner'`, orgID); n != 1 {
			t.Fatalf("round %d: %d owners after %v", round, n, statuses)
		}
		// The loser was demoted before its own request was served: 403 (no longer above) or 409.
		if statuses[0] != http.StatusOK || (statuses[1] != http.StatusConflict && statuses[1] != http.StatusForbidden) {
			t.Fatalf("round %d: statuses %v", round, statuses)
		}
		// Restore both owners for the next round.
		if _, err := env.Pool.Exec(t.Context(), `UPDATE memberships SET role = 'owner' WHERE org_id = $1`, orgID); err != nil {
			t.Fatal(err)
		}
	}
}

// Site-scoped members grant only their own sites, so an organization whose every owner is scoped
// could never again give anyone the other sites: the last all-sites owner stays all-sites.
func TestAnOwnerReachesEverySite(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	north := env.Site(owner.AccessToken, orgID, "North")

	scope := map[string]any{"siteIds": []uuid.UUID{north}}
	updateMember(env, owner.AccessToken, orgID, owner.User.ID, scope).ExpectError(http.StatusConflict, "access to every site")
	// A scoped co-owner does not change that, and the scoped owner may still leave.
	scoped := env.Member(orgID, "owner", north)
	updateMember(env, owner.AccessToken, orgID, owner.User.ID, scope).ExpectError(http.StatusConflict, "access to every site")
	updateMember(env, owner.AccessToken, orgID, owner.User.ID, map[string]any{"role": "admin"}).ExpectError(http.StatusConflict, "access to every site")
	removeMember(env, owner.AccessToken, orgID, scoped.User.ID).Expect(http.StatusNoContent)
	if n := count(env, `SELECT count(*) FROM memberships WHERE org_id = $1 AND site_ids <> '{}'`, orgID); n != 0 {
		t.Fatalf("%d scoped memberships after refusals", n)
	}

	// With a second all-sites owner, the first may limit themselves to a site.
	env.Member(orgID, "owner")
	var m member
	updateMember(env, owner.AccessToken, orgID, owner.User.ID, scope).Expect(http.StatusOK).Decode(&m)
	if m.Role != "owner" || len(m.SiteIDs) != 1 || m.SiteIDs[0] != north {
		t.Fatalf("scoped owner %+v", m)
	}
}
