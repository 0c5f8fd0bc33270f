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

// org is the spec's Org as the tests read it.
type org struct {
	ID    uuid.UUID `json:"id"`
	Name  string    `json:"name"`
	Brand struct {
		Primary string `json:"primary"`
		Accent  string `json:"accent"`
	} `json:"brand"`
	Plan struct {
		Tier        string     `json:"tier"`
		Trialing    bool       `json:"trialing"`
		TrialEndsAt *time.Time `json:"trialEndsAt"`
		Features    []string   `json:"features"`
		Limits      struct {
			Devices *int `json:"devices"`
		} `json:"limits"`
	} `json:"plan"`
	CreatedAt time.Time `json:"createdAt"`
}

var allFeatures = []string{"api_keys", "webhooks", "clinical", "order_lists"}

// orgPath is the path of orgID's resource under /v1, e.g. orgPath(id, "sites", siteID.String()).
func orgPath(orgID uuid.UUID, parts ...string) string {
	return strings.Join(append([]string{"orgs", orgID.String()}, parts...), "/")
}

func getOrg(env *apitest.Env, token string, orgID uuid.UUID) org {
	env.T.Helper()
	var o org
	env.Call(http.MethodGet, orgPath(orgID)).Token(token).Do().Expect(http.StatusOK).Decode(&o)
	return o
}

// login signs s's user in again, for when the clock has moved past the access token's life.
func login(env *apitest.Env, s apitest.Session) apitest.Session {
	env.T.Helper()
	var out apitest.Session
	env.Call(http.MethodPost, "auth/login").FromIP(env.NewIP()).
		JSON(map[string]string{"email": s.User.Email, "password": apitest.Password}).
		Do().Expect(http.StatusOK).Decode(&out)
	return out
}

// count runs a count(*) query.
func count(env *apitest.Env, query string, args ...any) int {
	env.T.Helper()
	var n int
	if err := env.Pool.QueryRow(env.T.Context(), query, args...).Scan(&n); err != nil {
		env.T.Fatal(err)
	}
	return n
}

func auditCount(env *apitest.Env, action string) int {
	env.T.Helper()
	return count(env, `SELECT count(*) FROM audit_log WHERE action = $1`, action)
}

// hasField reports whether an error body names field in its details.
func hasField(e apitest.ErrorBody, field string) bool {
	for _, d := range e.Details {
		if d.Field == field {
			return true
		}
	}
	return false
}

func TestCreateOrgMakesCallerOwnerOnProTrial(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	u := env.NewUser()

	var o org
	env.Call(http.MethodPost, "orgs").Token(u.AccessToken).
		JSON(map[string]string{"name": "  Harborview Kitchens  "}).
		Do().Expect(http.StatusCreated).Decode(&o)
	if o.ID == uuid.Nil || o.Name != "Harborview Kitchens" || !o.CreatedAt.Equal(apitest.Epoch) {
		t.Fatalf("org %+v", o)
	}
	if o.Brand.Primary == "" || o.Brand.Accent == "" {
		t.Errorf("brand %+v", o.Brand)
	}
	p := o.Plan
	if p.Tier != "pro" || !p.Trialing || p.TrialEndsAt == nil || !p.TrialEndsAt.Equal(apitest.Epoch.Add(30*24*time.Hour)) {
		t.Errorf("plan %+v", p)
	}
	if !slices.Equal(sorted(p.Features), sorted(allFeatures)) {
		t.Errorf("features %v", p.Features)
	}
	if p.Limits.Devices == nil || *p.Limits.Devices != 25 {
		t.Errorf("device limit %v", p.Limits.Devices)
	}

	// The caller is the owner, and the organization answers as created.
	var me apitest.Session
	env.Call(http.MethodGet, "auth/me").Token(u.AccessToken).Do().Expect(http.StatusOK).Decode(&me.User)
	if len(me.User.Memberships) != 1 || me.User.Memberships[0].OrgID != o.ID || me.User.Memberships[0].Role != "owner" ||
		me.User.Memberships[0].OrgName != "Harborview Kitchens" || len(me.User.Memberships[0].SiteIDs) != 0 {
		t.Fatalf("memberships %+v", me.User.Memberships)
	}
	if got := getOrg(env, u.AccessToken, o.ID); got.Name != o.Name || got.Plan.Tier != "pro" {
		t.Fatalf("read back %+v", got)
	}
	if n := auditCount(env, "createOrg"); n != 1 {
		t.Errorf("%d createOrg audit rows", n)
	}
}

func TestCreateOrgValidation(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	u := env.NewUser()
	cases := []struct {
		name, body, field string
	}{
		{"blank name", `{"name":"   "}`, "name"},
		{"empty name", `{"name":""}`, "name"},
		{"missing name", `{}`, "name"},
		{"name too long", `{"name":"` + strings.Repeat("k", 201) + `"}`, "name"},
		{"unknown field", `{"name":"A","plan":"enterprise"}`, "plan"},
	}
	for _, tc := range cases {
		res := env.Call(http.MethodPost, "orgs").Token(u.AccessToken).JSON(tc.body).Do()
		if res.Status != http.StatusBadRequest {
			t.Errorf("%s: status %d: %s", tc.name, res.Status, res.Body)
			continue
		}
		if e := res.Err(); !hasField(e, tc.field) {
			t.Errorf("%s: details %+v do not name %s", tc.name, e.Details, tc.field)
		}
	}
	if n := count(env, `SELECT count(*) FROM orgs`); n != 0 {
		t.Fatalf("%d organizations written by invalid requests", n)
	}
	env.Call(http.MethodPost, "orgs").JSON(`{"name":"A"}`).Do().ExpectError(http.StatusUnauthorized, "")
}

func TestGetOrgForEveryRole(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	tokens := map[string]string{"owner": owner.AccessToken}
	for _, role := range []string{"admin", "manager", "inspector", "viewer"} {
		tokens[role] = env.Member(orgID, role).AccessToken
	}
	for role, tok := range tokens {
		if o := getOrg(env, tok, orgID); o.ID != orgID || o.Name != "Harborview Kitchens" || o.Plan.Tier != "pro" {
			t.Errorf("%s reads %+v", role, o)
		}
	}
}

func TestGetOrgHidesOtherOrganizations(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	_, orgID := env.NewOwner("Harborview Kitchens")
	stranger, _ := env.NewOwner("Other Kitchens")

	a := env.Call(http.MethodGet, orgPath(orgID)).Token(stranger.AccessToken).Do().ExpectError(http.StatusNotFound, "Organization not found")
	b := env.Call(http.MethodGet, orgPath(uuid.Must(uuid.NewV7()))).Token(stranger.AccessToken).Do().ExpectError(http.StatusNotFound, "Organization not found")
	if a.Error != b.Error {
		t.Fatalf("a foreign organization (%q) and an unknown one (%q) answer differently", a.Error, b.Error)
	}
	env.Call(http.MethodGet, "orgs/not-a-uuid").Token(stranger.AccessToken).Do().Expect(http.StatusBadRequest)
	env.Call(http.MethodGet, orgPath(orgID)).Do().ExpectError(http.StatusUnauthorized, "")
}

func TestUpdateOrg(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	before := getOrg(env, owner.AccessToken, orgID)

	// Name only: trimmed; the brand stays.
	var o org
	env.Call(http.MethodPut, orgPath(orgID)).Token(owner.AccessToken).
		JSON(map[string]any{"name": "  Harborview Kitchens & Catering "}).
		Do().Expect(http.StatusOK).Decode(&o)
	if o.Name != "Harborview Kitchens & Catering" || o.Brand != before.Brand || o.Plan.Tier != "pro" {
		t.Fatalf("after name change %+v", o)
	}

	// One colour only: the other colour and the name stay; hex is stored in one spelling.
	env.Call(http.MethodPut, orgPath(orgID)).Token(owner.AccessToken).
		JSON(map[string]any{"brand": map[string]string{"primary": "#0f766e"}}).
		Do().Expect(http.StatusOK).Decode(&o)
	if o.Name != "Harborview Kitchens & Catering" || o.Brand.Primary != "#0F766E" || o.Brand.Accent != before.Brand.Accent {
		t.Fatalf("after primary change %+v", o)
	}
	env.Call(http.MethodPut, orgPath(orgID)).Token(owner.AccessToken).
		JSON(map[string]any{"brand": map[string]string{"accent": "#F97316"}}).
		Do().Expect(http.StatusOK).Decode(&o)
	if o.Brand.Primary != "#0F766E" || o.Brand.Accent != "#F97316" {
		t.Fatalf("after accent change %+v", o.Brand)
	}
	if got := getOrg(env, owner.AccessToken, orgID); got.Name != o.Name || got.Brand != o.Brand {
		t.Fatalf("read back %+v, want %+v", got, o)
	}
	if n := auditCount(env, "updateOrg"); n != 3 {
		t.Errorf("%d updateOrg audit rows, want 3", n)
	}
}

func TestUpdateOrgValidation(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	before := getOrg(env, owner.AccessToken, orgID)
	cases := []struct {
		name, body, field string
	}{
		{"blank name", `{"name":"   "}`, "name"},
		{"empty name", `{"name":""}`, "name"},
		{"empty body", `{}`, "body"},
		{"colour without hash", `{"brand":{"primary":"0F766E"}}`, "brand.primary"},
		{"short colour", `{"brand":{"accent":"#FFF"}}`, "brand.accent"},
		{"colour name", `{"brand":{"primary":"teal"}}`, "brand.primary"},
		{"not hex", `{"brand":{"accent":"#GGGGGG"}}`, "brand.accent"},
		{"unknown brand field", `{"brand":{"logo":"x"}}`, "brand.logo"},
		{"plan is not editable", `{"plan":{"tier":"enterprise"}}`, "plan"},
	}
	for _, tc := range cases {
		res := env.Call(http.MethodPut, orgPath(orgID)).Token(owner.AccessToken).JSON(tc.body).Do()
		if res.Status != http.StatusBadRequest {
			t.Errorf("%s: status %d: %s", tc.name, res.Status, res.Body)
			continue
		}
		if e := res.Err(); !hasField(e, tc.field) {
			t.Errorf("%s: details %+v do not name %s", tc.name, e.Details, tc.field)
		}
	}
	if after := getOrg(env, owner.AccessToken, orgID); after.Name != before.Name || after.Brand != before.Brand {
		t.Fatalf("invalid updates changed the organization: %+v", after)
	}
	if n := auditCount(env, "updateOrg"); n != 0 {
		t.Fatalf("%d audit rows for refused updates", n)
	}
}

func TestUpdateOrgIsForOwners(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	_, orgID := env.NewOwner("Harborview Kitchens")
	stranger, _ := env.NewOwner("Other Kitchens")
	body := map[string]any{"name": "Taken Over"}
	for _, role := range []string{"admin", "manager", "inspector", "viewer"} {
		m := env.Member(orgID, role)
		env.Call(http.MethodPut, orgPath(orgID)).Token(m.AccessToken).JSON(body).Do().ExpectError(http.StatusForbidden, "owner")
	}
	env.Call(http.MethodPut, orgPath(orgID)).Token(stranger.AccessToken).JSON(body).Do().ExpectError(http.StatusNotFound, "Organization not found")
	second := env.Member(orgID, "owner")
	var o org
	env.Call(http.MethodPut, orgPath(orgID)).Token(second.AccessToken).JSON(body).Do().Expect(http.StatusOK).Decode(&o)
	if o.Name != "Taken Over" {
		t.Fatalf("second owner's update: %+v", o)
	}
}

func TestTrialEndsIntoFree(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	trialEnds := apitest.Epoch.Add(30 * 24 * time.Hour)

	env.Clock.Advance(30*24*time.Hour - time.Minute)
	owner = login(env, owner)
	if o := getOrg(env, owner.AccessToken, orgID); o.Plan.Tier != "pro" || !o.Plan.Trialing {
		t.Fatalf("a minute before the trial ends: %+v", o.Plan)
	}

	env.Clock.Advance(time.Minute)
	o := getOrg(env, owner.AccessToken, orgID)
	p := o.Plan
	if p.Tier != "free" || p.Trialing || len(p.Features) != 0 || p.Features == nil || p.Limits.Devices == nil || *p.Limits.Devices != 2 {
		t.Fatalf("after the trial: %+v (devices %v)", p, p.Limits.Devices)
	}
	// The ended trial's date stays visible ("your trial ended on …"); trialing says it is over.
	if p.TrialEndsAt == nil || !p.TrialEndsAt.Equal(trialEnds) {
		t.Errorf("trialEndsAt %v, want %v", p.TrialEndsAt, trialEnds)
	}

	// An operator's upgrade ends the fall to free.
	env.SetPlan(orgID, "pro", nil)
	if p := getOrg(env, owner.AccessToken, orgID).Plan; p.Tier != "pro" || p.Trialing || p.TrialEndsAt != nil || len(p.Features) != len(allFeatures) {
		t.Fatalf("after upgrade: %+v", p)
	}
}

func TestPlansShownByTier(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	two, twentyFive := 2, 25
	cases := []struct {
		tier     string
		features []string
		devices  *int
	}{
		{"enterprise", allFeatures, nil},
		{"pro", allFeatures, &twentyFive},
		{"free", []string{}, &two},
	}
	for _, tc := range cases {
		env.SetPlan(orgID, tc.tier, nil)
		p := getOrg(env, owner.AccessToken, orgID).Plan
		if p.Tier != tc.tier || p.Trialing || p.TrialEndsAt != nil || !slices.Equal(sorted(p.Features), sorted(tc.features)) {
			t.Errorf("%s: plan %+v", tc.tier, p)
		}
		if (p.Limits.Devices == nil) != (tc.devices == nil) || (p.Limits.Devices != nil && *p.Limits.Devices != *tc.devices) {
			t.Errorf("%s: devices %v, want %v", tc.tier, p.Limits.Devices, tc.devices)
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
