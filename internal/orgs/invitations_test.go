package orgs_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

const invitationTTL = 7 * 24 * time.Hour

type invitation struct {
	ID          uuid.UUID   `json:"id"`
	Email       string      `json:"email"`
	Role        string      `json:"role"`
	SiteIDs     []uuid.UUID `json:"siteIds"`
	Credentials []string    `json:"credentials"`
	InvitedBy   uuid.UUID   `json:"invitedBy"`
	CreatedAt   time.Time   `json:"createdAt"`
	ExpiresAt   time.Time   `json:"expiresAt"`
	Token       string      `json:"token"`
}

func invite(env *apitest.Env, token string, orgID uuid.UUID, body any) *apitest.Response {
	env.T.Helper()
	return env.Call(http.MethodPost, orgPath(orgID, "invitations")).Token(token).JSON(body).Do()
}

// mustInvite invites email with role and returns the created invitation.
func mustInvite(env *apitest.Env, token string, orgID uuid.UUID, email, role string) invitation {
	env.T.Helper()
	var inv invitation
	invite(env, token, orgID, map[string]any{"email": email, "role": role}).Expect(http.StatusCreated).Decode(&inv)
	return inv
}

func accept(env *apitest.Env, sessionToken, invitationToken string) *apitest.Response {
	env.T.Helper()
	return env.Call(http.MethodPost, "invitations/accept").Token(sessionToken).JSON(map[string]string{"token": invitationToken}).Do()
}

func listInvitations(env *apitest.Env, token string, orgID uuid.UUID) []invitation {
	env.T.Helper()
	var raw []map[string]any
	res := env.Call(http.MethodGet, orgPath(orgID, "invitations")).Token(token).Do().Expect(http.StatusOK).Decode(&raw)
	for _, r := range raw {
		if _, ok := r["token"]; ok {
			env.T.Fatalf("a listed invitation shows its token: %s", res.Body)
		}
	}
	var out []invitation
	res.Decode(&out)
	return out
}

func membershipIn(s apitest.Session, orgID uuid.UUID) (role string, sites []uuid.UUID, creds []string, ok bool) {
	for _, m := range s.User.Memberships {
		if m.OrgID == orgID {
			return m.Role, m.SiteIDs, m.Credentials, true
		}
	}
	return "", nil, nil, false
}

func TestInvitationFlow(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	siteA := env.Site(owner.AccessToken, orgID, "A Kitchen")
	siteB := env.Site(owner.AccessToken, orgID, "B Kitchen")
	admin := env.Member(orgID, "admin")
	email := apitest.NewEmail()

	var inv invitation
	res := invite(env, admin.AccessToken, orgID, map[string]any{
		"email": email, "role": "manager", "siteIds": []uuid.UUID{siteB, siteA}, "credentials": []string{"rd", "chef"},
	}).Expect(http.StatusCreated).Decode(&inv)
	if inv.ID == uuid.Nil || inv.Email != email || inv.Role != "manager" || inv.InvitedBy != admin.User.ID ||
		!slices.Equal(inv.SiteIDs, sortedIDs(siteA, siteB)) || !slices.Equal(inv.Credentials, []string{"chef", "rd"}) {
		t.Fatalf("invitation %s", res.Body)
	}
	if !inv.CreatedAt.Equal(apitest.Epoch) || !inv.ExpiresAt.Equal(apitest.Epoch.Add(invitationTTL)) {
		t.Fatalf("created %s, expires %s", inv.CreatedAt, inv.ExpiresAt)
	}
	if !strings.HasPrefix(inv.Token, "inv_") || len(inv.Token) < 20 {
		t.Fatalf("token %q", inv.Token)
	}
	// The server keeps a hash, never the token itself.
	if n := count(env, `SELECT count(*) FROM invitations WHERE position($1::bytea in token_hash) > 0`, []byte(inv.Token)); n != 0 {
		t.Fatal("the token is stored in the clear")
	}

	// Listed while pending, without the token.
	list := listInvitations(env, admin.AccessToken, orgID)
	if len(list) != 1 || list[0].ID != inv.ID || list[0].Email != email || list[0].Role != "manager" || list[0].Token != "" ||
		!list[0].ExpiresAt.Equal(inv.ExpiresAt) || !slices.Equal(list[0].SiteIDs, inv.SiteIDs) {
		t.Fatalf("pending %+v", list)
	}

	// The invitee signs up with the invited address and accepts.
	env.Clock.Advance(time.Minute)
	invitee := env.Register("Sam Cook", email)
	var user apitest.Session
	accept(env, invitee.AccessToken, inv.Token).Expect(http.StatusOK).Decode(&user.User)
	if user.User.ID != invitee.User.ID || len(user.User.Memberships) != 1 {
		t.Fatalf("accepted user %+v", user.User)
	}
	role, sites, creds, ok := membershipIn(user, orgID)
	if !ok || role != "manager" || !slices.Equal(sites, sortedIDs(siteA, siteB)) || !slices.Equal(creds, []string{"chef", "rd"}) ||
		user.User.Memberships[0].OrgName != "Harborview Kitchens" {
		t.Fatalf("membership %+v", user.User.Memberships)
	}

	// They are a member now, with exactly the invited access.
	if o := getOrg(env, invitee.AccessToken, orgID); o.ID != orgID {
		t.Fatalf("org %+v", o)
	}
	m, ok := listMembers(env, owner.AccessToken, orgID)[invitee.User.ID]
	if !ok || m.Role != "manager" || !slices.Equal(m.Credentials, []string{"chef", "rd"}) || !m.JoinedAt.Equal(apitest.Epoch.Add(time.Minute)) {
		t.Fatalf("member %+v", m)
	}
	if got := listInvitations(env, admin.AccessToken, orgID); len(got) != 0 {
		t.Fatalf("an accepted invitation is still pending: %+v", got)
	}

	// The token is spent.
	accept(env, invitee.AccessToken, inv.Token).ExpectError(http.StatusNotFound, "Invitation not found")

	for _, action := range []string{"createInvitation", "acceptInvitation"} {
		if n := auditCount(env, action); n != 1 {
			t.Errorf("%d %s audit rows", n, action)
		}
	}
	var actor uuid.UUID
	var orgOfRow uuid.UUID
	if err := env.Pool.QueryRow(t.Context(), `SELECT actor_id, org_id FROM audit_log WHERE action = 'acceptInvitation'`).Scan(&actor, &orgOfRow); err != nil {
		t.Fatal(err)
	}
	if actor != invitee.User.ID || orgOfRow != orgID {
		t.Errorf("acceptInvitation audit row: actor %s org %s", actor, orgOfRow)
	}
}

func TestInvitationEmailMatchesCaseInsensitively(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	email := apitest.NewEmail()
	inv := mustInvite(env, owner.AccessToken, orgID, strings.ToUpper(email), "viewer")
	invitee := env.Register("Sam Cook", email)
	accept(env, invitee.AccessToken, inv.Token).Expect(http.StatusOK)
	getOrg(env, invitee.AccessToken, orgID)

	// Once a member, inviting the address again in any spelling is a conflict.
	invite(env, owner.AccessToken, orgID, map[string]any{"email": strings.ToUpper(email), "role": "admin"}).
		ExpectError(http.StatusConflict, "already")
}

func TestInvitationDefaults(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	email := apitest.NewEmail()
	var inv invitation
	invite(env, owner.AccessToken, orgID, map[string]any{"email": email, "role": "staff"}).Expect(http.StatusCreated).Decode(&inv)
	if inv.Role != "inspector" || inv.SiteIDs == nil || len(inv.SiteIDs) != 0 || inv.Credentials == nil || len(inv.Credentials) != 0 {
		t.Fatalf("invitation %+v", inv)
	}
	invitee := env.Register("Sam Cook", email)
	var user apitest.Session
	accept(env, invitee.AccessToken, inv.Token).Expect(http.StatusOK).Decode(&user.User)
	if role, sites, creds, ok := membershipIn(user, orgID); !ok || role != "inspector" || len(sites) != 0 || len(creds) != 0 {
		t.Fatalf("membership %+v", user.User.Memberships)
	}
}

func TestInvitingNeedsAdmin(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	stranger, _ := env.NewOwner("Other Kitchens")
	body := map[string]any{"email": apitest.NewEmail(), "role": "viewer"}
	for _, role := range []string{"manager", "inspector", "viewer"} {
		m := env.Member(orgID, role)
		invite(env, m.AccessToken, orgID, body).ExpectError(http.StatusForbidden, "admin")
		env.Call(http.MethodGet, orgPath(orgID, "invitations")).Token(m.AccessToken).Do().ExpectError(http.StatusForbidden, "admin")
	}
	invite(env, stranger.AccessToken, orgID, body).ExpectError(http.StatusNotFound, "Organization not found")
	env.Call(http.MethodGet, orgPath(orgID, "invitations")).Token(stranger.AccessToken).Do().ExpectError(http.StatusNotFound, "Organization not found")
	invite(env, "", orgID, body).ExpectError(http.StatusUnauthorized, "")
	if n := count(env, `SELECT count(*) FROM invitations`); n != 0 {
		t.Fatalf("%d invitations written", n)
	}
	mustInvite(env, owner.AccessToken, orgID, apitest.NewEmail(), "viewer")
}

func TestInvitationRolesAndSites(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	siteA := env.Site(owner.AccessToken, orgID, "A Kitchen")
	siteB := env.Site(owner.AccessToken, orgID, "B Kitchen")
	other, otherOrg := env.NewOwner("Other Kitchens")
	foreign := env.Site(other.AccessToken, otherOrg, "Their Kitchen")
	admin := env.Member(orgID, "admin")
	scoped := env.Member(orgID, "admin", siteA)
	member := env.Member(orgID, "viewer")

	cases := []struct {
		name   string
		token  string
		body   map[string]any
		status int
		msg    string
	}{
		{"admin invites an owner", admin.AccessToken, map[string]any{"role": "owner"}, http.StatusForbidden, "owner role"},
		{"site of another organization", admin.AccessToken, map[string]any{"role": "viewer", "siteIds": []uuid.UUID{foreign}}, http.StatusBadRequest, "siteIds"},
		{"unknown site", owner.AccessToken, map[string]any{"role": "viewer", "siteIds": []uuid.UUID{uuid.Must(uuid.NewV7())}}, http.StatusBadRequest, "siteIds"},
		{"scoped admin grants all sites", scoped.AccessToken, map[string]any{"role": "viewer"}, http.StatusForbidden, "your own sites"},
		{"scoped admin grants another site", scoped.AccessToken, map[string]any{"role": "viewer", "siteIds": []uuid.UUID{siteA, siteB}}, http.StatusNotFound, "Site not found"},
		{"unknown role", admin.AccessToken, map[string]any{"role": "chef"}, http.StatusBadRequest, "role"},
		{"unknown credential", admin.AccessToken, map[string]any{"role": "viewer", "credentials": []string{"phd"}}, http.StatusBadRequest, "credentials"},
		{"existing member", admin.AccessToken, map[string]any{"role": "viewer", "email": member.User.Email}, http.StatusConflict, "already"},
		{"existing owner", admin.AccessToken, map[string]any{"role": "admin", "email": owner.User.Email}, http.StatusConflict, "already"},
		{"bad email", admin.AccessToken, map[string]any{"role": "viewer", "email": "not-an-email"}, http.StatusBadRequest, "email"},
	}
	for _, tc := range cases {
		body := tc.body
		if _, ok := body["email"]; !ok {
			body["email"] = apitest.NewEmail()
		}
		res := invite(env, tc.token, orgID, body)
		if res.Status != tc.status {
			t.Errorf("%s: status %d, want %d: %s", tc.name, res.Status, tc.status, res.Body)
			continue
		}
		if e := res.Err(); !strings.Contains(e.Error, tc.msg) {
			t.Errorf("%s: error %q does not contain %q", tc.name, e.Error, tc.msg)
		}
	}
	if n := count(env, `SELECT count(*) FROM invitations`); n != 0 {
		t.Fatalf("%d invitations written by refused requests", n)
	}
	if n := auditCount(env, "createInvitation"); n != 0 {
		t.Fatalf("%d audit rows for refused requests", n)
	}

	// What each may grant: an admin up to admin, an owner owners, a scoped admin within their site.
	mustInvite(env, admin.AccessToken, orgID, apitest.NewEmail(), "admin")
	mustInvite(env, owner.AccessToken, orgID, apitest.NewEmail(), "owner")
	var inv invitation
	invite(env, scoped.AccessToken, orgID, map[string]any{"email": apitest.NewEmail(), "role": "manager", "siteIds": []uuid.UUID{siteA}}).
		Expect(http.StatusCreated).Decode(&inv)
	if !slices.Equal(inv.SiteIDs, []uuid.UUID{siteA}) {
		t.Fatalf("scoped invitation %+v", inv)
	}
}

func TestReinvitingReplacesThePendingInvitation(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	email := apitest.NewEmail()
	first := mustInvite(env, owner.AccessToken, orgID, email, "viewer")
	env.Clock.Advance(time.Minute)
	second := mustInvite(env, owner.AccessToken, orgID, strings.ToUpper(email), "manager")
	if second.ID == first.ID || second.Token == first.Token || !second.ExpiresAt.Equal(apitest.Epoch.Add(time.Minute+invitationTTL)) {
		t.Fatalf("second invitation %+v", second)
	}
	other := mustInvite(env, owner.AccessToken, orgID, apitest.NewEmail(), "viewer")

	list := listInvitations(env, owner.AccessToken, orgID)
	if len(list) != 2 || list[0].ID != other.ID || list[1].ID != second.ID {
		t.Fatalf("pending (newest first) %+v", list)
	}

	invitee := env.Register("Sam Cook", email)
	accept(env, invitee.AccessToken, first.Token).ExpectError(http.StatusNotFound, "Invitation not found")
	var user apitest.Session
	accept(env, invitee.AccessToken, second.Token).Expect(http.StatusOK).Decode(&user.User)
	if role, _, _, ok := membershipIn(user, orgID); !ok || role != "manager" {
		t.Fatalf("membership %+v", user.User.Memberships)
	}
}

func TestAcceptingNeedsTheInvitedUser(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	email := apitest.NewEmail()
	inv := mustInvite(env, owner.AccessToken, orgID, email, "admin")

	someoneElse := env.NewUser()
	accept(env, someoneElse.AccessToken, inv.Token).ExpectError(http.StatusForbidden, "another email")
	env.Call(http.MethodGet, orgPath(orgID)).Token(someoneElse.AccessToken).Do().ExpectError(http.StatusNotFound, "Organization not found")
	accept(env, "", inv.Token).ExpectError(http.StatusUnauthorized, "")

	// The refused attempts did not spend the invitation.
	invitee := env.Register("Sam Cook", email)
	accept(env, invitee.AccessToken, inv.Token).Expect(http.StatusOK)
	if n := auditCount(env, "acceptInvitation"); n != 1 {
		t.Errorf("%d acceptInvitation audit rows", n)
	}
}

func TestAcceptingTwice(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	email := apitest.NewEmail()
	inv := mustInvite(env, owner.AccessToken, orgID, email, "manager")
	invitee := env.Register("Sam Cook", email)
	accept(env, invitee.AccessToken, inv.Token).Expect(http.StatusOK)

	// A used token is as good as unknown, and the membership is not touched.
	accept(env, invitee.AccessToken, inv.Token).ExpectError(http.StatusNotFound, "Invitation not found")
	if n := count(env, `SELECT count(*) FROM memberships WHERE org_id = $1 AND user_id = $2`, orgID, invitee.User.ID); n != 1 {
		t.Fatalf("%d memberships", n)
	}
	if n := auditCount(env, "acceptInvitation"); n != 1 {
		t.Errorf("%d acceptInvitation audit rows", n)
	}
}

func TestAcceptingAsAnExistingMemberConflicts(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	email := apitest.NewEmail()
	inv := mustInvite(env, owner.AccessToken, orgID, email, "admin")
	invitee := env.Register("Sam Cook", email)
	// Meanwhile the user joined some other way, as a viewer.
	if _, err := env.Pool.Exec(t.Context(), `INSERT INTO memberships (org_id, user_id, role, created_at, updated_at) VALUES ($1, $2, 'viewer', $3, $3)`,
		orgID, invitee.User.ID, env.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	accept(env, invitee.AccessToken, inv.Token).ExpectError(http.StatusConflict, "already a member")
	if got := roleOf(env, orgID, invitee.User.ID); got != "viewer" {
		t.Fatalf("role %s", got)
	}
}

func TestExpiredInvitation(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	email, lastMinute := apitest.NewEmail(), apitest.NewEmail()
	inv := mustInvite(env, owner.AccessToken, orgID, email, "viewer")
	early := mustInvite(env, owner.AccessToken, orgID, lastMinute, "viewer")

	env.Clock.Advance(invitationTTL - time.Minute)
	owner = login(env, owner)
	if got := listInvitations(env, owner.AccessToken, orgID); len(got) != 2 {
		t.Fatalf("pending a minute before expiry: %+v", got)
	}
	accept(env, env.Register("Early Bird", lastMinute).AccessToken, early.Token).Expect(http.StatusOK)

	env.Clock.Advance(time.Minute)
	invitee := env.Register("Sam Cook", email)
	if e := accept(env, invitee.AccessToken, inv.Token).ExpectError(http.StatusNotFound, "Invitation not found"); e.Code != "invitation_expired" {
		t.Fatalf("code %q", e.Code)
	}
	env.Call(http.MethodGet, orgPath(orgID)).Token(invitee.AccessToken).Do().ExpectError(http.StatusNotFound, "Organization not found")
	if got := listInvitations(env, owner.AccessToken, orgID); len(got) != 0 {
		t.Fatalf("expired invitations listed: %+v", got)
	}
	// A fresh invitation works again.
	again := mustInvite(env, owner.AccessToken, orgID, email, "viewer")
	accept(env, invitee.AccessToken, again.Token).Expect(http.StatusOK)
}

func TestRevokedInvitation(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	admin := env.Member(orgID, "admin")
	email := apitest.NewEmail()
	inv := mustInvite(env, owner.AccessToken, orgID, email, "viewer")

	env.Call(http.MethodDelete, orgPath(orgID, "invitations", inv.ID.String())).Token(admin.AccessToken).Do().Expect(http.StatusNoContent)
	if got := listInvitations(env, owner.AccessToken, orgID); len(got) != 0 {
		t.Fatalf("revoked invitation listed: %+v", got)
	}
	invitee := env.Register("Sam Cook", email)
	accept(env, invitee.AccessToken, inv.Token).ExpectError(http.StatusNotFound, "Invitation not found")
	// Revoking again is harmless; an unknown id or another organization's is not found.
	env.Call(http.MethodDelete, orgPath(orgID, "invitations", inv.ID.String())).Token(admin.AccessToken).Do().Expect(http.StatusNoContent)
	if n := auditCount(env, "revokeInvitation"); n != 1 {
		t.Errorf("%d revokeInvitation audit rows", n)
	}
	env.Call(http.MethodDelete, orgPath(orgID, "invitations", uuid.Must(uuid.NewV7()).String())).Token(admin.AccessToken).Do().
		ExpectError(http.StatusNotFound, "Invitation not found")

	other, otherOrg := env.NewOwner("Other Kitchens")
	foreign := mustInvite(env, other.AccessToken, otherOrg, apitest.NewEmail(), "viewer")
	env.Call(http.MethodDelete, orgPath(orgID, "invitations", foreign.ID.String())).Token(owner.AccessToken).Do().
		ExpectError(http.StatusNotFound, "Invitation not found")
	if got := listInvitations(env, other.AccessToken, otherOrg); len(got) != 1 {
		t.Fatalf("the other organization's invitation was revoked: %+v", got)
	}
	manager := env.Member(orgID, "manager")
	fresh := mustInvite(env, owner.AccessToken, orgID, apitest.NewEmail(), "viewer")
	env.Call(http.MethodDelete, orgPath(orgID, "invitations", fresh.ID.String())).Token(manager.AccessToken).Do().ExpectError(http.StatusForbidden, "admin")
}

func TestAcceptValidation(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	u := env.NewUser()
	accept(env, u.AccessToken, "inv_not-a-real-token").ExpectError(http.StatusNotFound, "Invitation not found")
	accept(env, u.AccessToken, "").ExpectError(http.StatusBadRequest, "token")
	res := env.Call(http.MethodPost, "invitations/accept").Token(u.AccessToken).JSON(`{}`).Do()
	if e := res.ExpectError(http.StatusBadRequest, ""); !hasField(e, "token") {
		t.Fatalf("details %+v", e.Details)
	}
}

func TestInvitationsOfTwoOrganizationsAreIndependent(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	ownerA, orgA := env.NewOwner("Harborview Kitchens")
	ownerB, orgB := env.NewOwner("Other Kitchens")
	email := apitest.NewEmail()
	invA := mustInvite(env, ownerA.AccessToken, orgA, email, "manager")
	invB := mustInvite(env, ownerB.AccessToken, orgB, email, "viewer")

	// Inviting in B did not replace A's invitation; each organization lists only its own.
	if got := listInvitations(env, ownerA.AccessToken, orgA); len(got) != 1 || got[0].ID != invA.ID {
		t.Fatalf("A's invitations %+v", got)
	}
	invitee := env.Register("Sam Cook", email)
	accept(env, invitee.AccessToken, invA.Token).Expect(http.StatusOK)
	var user apitest.Session
	accept(env, invitee.AccessToken, invB.Token).Expect(http.StatusOK).Decode(&user.User)
	roleA, _, _, okA := membershipIn(user, orgA)
	roleB, _, _, okB := membershipIn(user, orgB)
	if len(user.User.Memberships) != 2 || !okA || !okB || roleA != "manager" || roleB != "viewer" {
		t.Fatalf("memberships %+v", user.User.Memberships)
	}
	if n := count(env, `SELECT count(*) FROM audit_log WHERE action = 'acceptInvitation' AND org_id = $1`, orgB); n != 1 {
		t.Errorf("%d acceptInvitation audit rows in B", n)
	}
}

// Withdrawing an invitation follows the rules of changing the member it would make: a scoped
// admin sees and revokes only invitations within their sites, and nobody revokes one above them.
func TestRevokingFollowsTheMemberRules(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	siteA := env.Site(owner.AccessToken, orgID, "A Kitchen")
	siteB := env.Site(owner.AccessToken, orgID, "B Kitchen")
	admin := env.Member(orgID, "admin")
	scoped := env.Member(orgID, "admin", siteA)

	var toA, toB invitation
	invite(env, owner.AccessToken, orgID, map[string]any{"email": apitest.NewEmail(), "role": "viewer", "siteIds": []uuid.UUID{siteA}}).Expect(http.StatusCreated).Decode(&toA)
	invite(env, owner.AccessToken, orgID, map[string]any{"email": apitest.NewEmail(), "role": "viewer", "siteIds": []uuid.UUID{siteB}}).Expect(http.StatusCreated).Decode(&toB)
	everywhere := mustInvite(env, owner.AccessToken, orgID, apitest.NewEmail(), "manager")
	toOwner := mustInvite(env, owner.AccessToken, orgID, apitest.NewEmail(), "owner")

	if got := listInvitations(env, scoped.AccessToken, orgID); len(got) != 1 || got[0].ID != toA.ID {
		t.Fatalf("scoped admin lists %+v", got)
	}
	if got := listInvitations(env, admin.AccessToken, orgID); len(got) != 4 {
		t.Fatalf("admin lists %d invitations", len(got))
	}
	revoke := func(token string, id uuid.UUID) *apitest.Response {
		return env.Call(http.MethodDelete, orgPath(orgID, "invitations", id.String())).Token(token).Do()
	}
	revoke(scoped.AccessToken, toB.ID).ExpectError(http.StatusNotFound, "Invitation not found")
	revoke(scoped.AccessToken, everywhere.ID).ExpectError(http.StatusForbidden, "beyond your sites")
	revoke(admin.AccessToken, toOwner.ID).ExpectError(http.StatusForbidden, "above yours")
	if got := listInvitations(env, owner.AccessToken, orgID); len(got) != 4 {
		t.Fatalf("refused revocations revoked: %d left", len(got))
	}
	revoke(scoped.AccessToken, toA.ID).Expect(http.StatusNoContent)
	revoke(owner.AccessToken, toOwner.ID).Expect(http.StatusNoContent)
	if got := listInvitations(env, owner.AccessToken, orgID); len(got) != 2 {
		t.Fatalf("%d invitations left", len(got))
	}
}
