package public_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

type scanResult struct {
	TagCode string  `json:"tagCode"`
	OrgID   string  `json:"orgId"`
	WebURL  string  `json:"webUrl"`
	Label   *string `json:"label"`
	Target  struct {
		Type   string     `json:"type"`
		ID     *uuid.UUID `json:"id"`
		Name   string     `json:"name"`
		SiteID *uuid.UUID `json:"siteId"`
	} `json:"target"`
	Context struct {
		Site *struct {
			ID        uuid.UUID `json:"id"`
			Name      string    `json:"name"`
			Timezone  string    `json:"timezone"`
			LocalDate string    `json:"localDate"`
			LocalTime string    `json:"localTime"`
		} `json:"site"`
	} `json:"context"`
	Actions []struct {
		Action string `json:"action"`
		Label  string `json:"label"`
		Method string `json:"method"`
		Path   string `json:"path"`
	} `json:"actions"`
}

func scanPath(orgID any, code string) string { return fmt.Sprintf("orgs/%s/scan/%s", orgID, code) }

func scan(env *apitest.Env, token string, orgID uuid.UUID, code string) scanResult {
	env.T.Helper()
	var r scanResult
	env.Call(http.MethodGet, scanPath(orgID, code)).Token(token).Do().Expect(http.StatusOK).Decode(&r)
	return r
}

func (r scanResult) actions() string {
	var out []string
	for _, a := range r.Actions {
		out = append(out, a.Action)
	}
	return strings.Join(out, ",")
}

// Signed out, a scan answers 401 with the scan reference, and the answer is the same bytes
// whether the tag exists, never existed, or was retired: a code reveals nothing without a session.
func TestUnauthenticatedScanCarriesTheReference(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	tg := createTag(env, owner.AccessToken, orgID, map[string]any{"targetType": "equipment", "label": "Walk-in cooler 2"})
	missing := "ZZZZ9999"
	if tg.Code == missing {
		t.Skip("drew the missing code")
	}

	want := func(org, code string) string {
		return fmt.Sprintf(`{"error":"Authentication required","statusCode":401,"code":"unauthenticated","scan":{"tagCode":"%s","orgId":"%s"}}`, code, org)
	}
	body := func(org, code, token string) *apitest.Response {
		req := env.Call(http.MethodGet, scanPath(org, code))
		if token != "" {
			req.Token(token)
		}
		return req.Do().Expect(http.StatusUnauthorized)
	}
	existing := body(orgID.String(), tg.Code, "")
	absent := body(orgID.String(), missing, "")
	if got := strings.TrimSpace(string(existing.Body)); got != want(orgID.String(), tg.Code) {
		t.Fatalf("existing tag: %s", got)
	}
	if got := strings.TrimSpace(string(absent.Body)); got != want(orgID.String(), missing) {
		t.Fatalf("missing tag: %s", got)
	}
	if existing.Header.Get("Content-Type") != absent.Header.Get("Content-Type") || len(existing.Body) != len(absent.Body) {
		t.Fatal("the responses differ beyond the code")
	}
	// A code of the same length that was never issued answers byte for byte what an issued one does.
	if strings.Replace(string(absent.Body), missing, tg.Code, 1) != string(existing.Body) {
		t.Fatalf("bodies differ:\n%s\n%s", existing.Body, absent.Body)
	}
	// So does a retired tag, an organization that does not exist, and an invalid or expired token.
	env.Call(http.MethodDelete, tagsPath(orgID)+"/"+tg.ID.String()).Token(owner.AccessToken).Do().Expect(http.StatusNoContent)
	if got := string(body(orgID.String(), tg.Code, "").Body); got != string(existing.Body) {
		t.Fatalf("retired tag: %s", got)
	}
	// A code of another form than the printed ones is still only a reference.
	for _, code := range []string{"does-not-exist", "abc"} {
		if got := strings.TrimSpace(string(body(orgID.String(), code, "").Body)); got != want(orgID.String(), code) {
			t.Fatalf("free-form code %q: %s", code, got)
		}
	}
	nowhere := uuid.NewString()
	if got := strings.TrimSpace(string(body(nowhere, tg.Code, "").Body)); got != want(nowhere, tg.Code) {
		t.Fatalf("unknown organization: %s", got)
	}
	if got := body(orgID.String(), tg.Code, "not-a-token"); !strings.Contains(string(got.Body), `"scan":{"tagCode":"`+tg.Code+`","orgId":"`+orgID.String()+`"}`) {
		t.Fatalf("invalid token: %s", got.Body)
	}
	stale := owner.AccessToken
	env.Clock.Advance(16 * time.Minute)
	if got := body(orgID.String(), tg.Code, stale); !strings.Contains(string(got.Body), `"scan":{"tagCode":"`+tg.Code+`"`) {
		t.Fatalf("expired token: %s", got.Body)
	}
	// Other operations' 401s carry no scan reference.
	if res := env.Call(http.MethodGet, tagsPath(orgID)).Do().Expect(http.StatusUnauthorized); strings.Contains(string(res.Body), "scan") {
		t.Fatalf("tag list 401: %s", res.Body)
	}
}

func TestScanResolvesForMembersWithRoleAwareActions(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	siteID := env.Site(owner.AccessToken, orgID, "Main Kitchen") // America/Chicago
	st := createTag(env, owner.AccessToken, orgID, map[string]any{"targetType": "site", "targetId": siteID, "label": "Receiving dock"})
	eq := createTag(env, owner.AccessToken, orgID, map[string]any{"targetType": "equipment", "label": "Walk-in cooler 2", "siteId": siteID})
	loose := createTag(env, owner.AccessToken, orgID, map[string]any{"targetType": "storage_location", "label": "Dry store"})

	viewer, manager, admin := env.Member(orgID, "viewer"), env.Member(orgID, "manager"), env.Member(orgID, "admin")
	r := scan(env, viewer.AccessToken, orgID, st.Code)
	if r.TagCode != st.Code || r.OrgID != orgID.String() || r.WebURL != env.Config.WebURL+"/scan/"+st.Code || *r.Label != "Receiving dock" {
		t.Fatalf("scan %+v", r)
	}
	if r.Target.Type != "site" || *r.Target.ID != siteID || r.Target.Name != "Main Kitchen" || *r.Target.SiteID != siteID {
		t.Fatalf("target %+v", r.Target)
	}
	// The fake clock reads 09:00 UTC on 2 March 2026: 03:00 in Chicago.
	if s := r.Context.Site; s == nil || s.ID != siteID || s.Timezone != "America/Chicago" || s.LocalDate != "2026-03-02" || s.LocalTime != "03:00" {
		t.Fatalf("context %+v", r.Context.Site)
	}
	for token, want := range map[string]string{
		viewer.AccessToken:  "getSite",
		manager.AccessToken: "getSite,deleteTag",
		admin.AccessToken:   "getSite,updateSite,deleteTag",
		owner.AccessToken:   "getSite,updateSite,deleteTag",
	} {
		if got := scan(env, token, orgID, st.Code).actions(); got != want {
			t.Errorf("actions %q, want %q", got, want)
		}
	}

	r = scan(env, viewer.AccessToken, orgID, eq.Code)
	if r.Target.Type != "equipment" || r.Target.ID != nil || r.Target.Name != "Walk-in cooler 2" || *r.Target.SiteID != siteID || r.Context.Site == nil || r.actions() != "getSite" {
		t.Fatalf("equipment scan %+v", r)
	}
	r = scan(env, viewer.AccessToken, orgID, loose.Code)
	if r.Target.Type != "storage_location" || r.Target.SiteID != nil || r.Context.Site != nil || len(r.Actions) != 0 || r.Target.Name != "Dry store" {
		t.Fatalf("unplaced scan %+v", r)
	}

	// Typed by hand: lower case, and O, I, L for 0, 1, 1.
	typed := strings.ToLower(strings.NewReplacer("0", "O", "1", "I").Replace(st.Code))
	if got := scan(env, viewer.AccessToken, orgID, typed); got.TagCode != st.Code {
		t.Fatalf("typed code %q resolved %q", typed, got.TagCode)
	}

	// Every action is an operation of the spec that the role may call.
	for _, a := range scan(env, admin.AccessToken, orgID, eq.Code).Actions {
		switch a.Method {
		case http.MethodGet:
			env.Call(a.Method, strings.TrimPrefix(a.Path, "/")).Token(admin.AccessToken).Do().Expect(http.StatusOK)
		case http.MethodDelete:
			env.Call(a.Method, strings.TrimPrefix(a.Path, "/")).Token(admin.AccessToken).Do().Expect(http.StatusNoContent)
		default:
			t.Fatalf("unexpected action %+v", a)
		}
	}
	// The retired tag no longer resolves.
	env.Call(http.MethodGet, scanPath(orgID, eq.Code)).Token(admin.AccessToken).Do().ExpectError(http.StatusNotFound, "Tag not found")
}

func TestScanAcrossOrganizationsAndSites(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	mine := env.Site(owner.AccessToken, orgID, "Mine")
	theirs := env.Site(owner.AccessToken, orgID, "Theirs")
	a := createTag(env, owner.AccessToken, orgID, map[string]any{"targetType": "site", "targetId": mine})
	b := createTag(env, owner.AccessToken, orgID, map[string]any{"targetType": "site", "targetId": theirs})
	outsider, outsiderOrg := env.NewOwner("Elsewhere")
	theirTag := createTag(env, outsider.AccessToken, outsiderOrg, map[string]any{"targetType": "equipment", "label": "Fryer"})

	// A member of another organization learns nothing, tag or no tag.
	env.Call(http.MethodGet, scanPath(orgID, a.Code)).Token(outsider.AccessToken).Do().ExpectError(http.StatusNotFound, "Organization not found")
	env.Call(http.MethodGet, scanPath(orgID, "ZZZZ9999")).Token(outsider.AccessToken).Do().ExpectError(http.StatusNotFound, "Organization not found")
	// A tag resolves only under its own organization.
	env.Call(http.MethodGet, scanPath(outsiderOrg, a.Code)).Token(outsider.AccessToken).Do().ExpectError(http.StatusNotFound, "Tag not found")
	env.Call(http.MethodGet, scanPath(orgID, theirTag.Code)).Token(owner.AccessToken).Do().ExpectError(http.StatusNotFound, "Tag not found")
	env.Call(http.MethodGet, scanPath(orgID, "ZZZZ9999")).Token(owner.AccessToken).Do().ExpectCode(http.StatusNotFound, "tag_not_found")

	// A site-scoped member resolves tags of their sites only.
	scoped := env.Member(orgID, "viewer", mine)
	scan(env, scoped.AccessToken, orgID, a.Code)
	env.Call(http.MethodGet, scanPath(orgID, b.Code)).Token(scoped.AccessToken).Do().ExpectError(http.StatusNotFound, "Tag not found")

	// A code of any other form names no tag either: the same 404, not a validation error.
	for _, code := range []string{"no-such-code!", "does-not-exist", "abc", strings.Repeat("Z", 64)} {
		env.Call(http.MethodGet, scanPath(orgID, code)).Token(owner.AccessToken).Do().ExpectError(http.StatusNotFound, "Tag not found")
	}
}
