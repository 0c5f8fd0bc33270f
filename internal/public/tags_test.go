package public_test

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

type tag struct {
	ID         uuid.UUID  `json:"id"`
	Code       string     `json:"code"`
	TargetType string     `json:"targetType"`
	TargetID   *uuid.UUID `json:"targetId"`
	SiteID     *uuid.UUID `json:"siteId"`
	Label      *string    `json:"label"`
	WebURL     string     `json:"webUrl"`
}

func tagsPath(orgID uuid.UUID) string { return "orgs/" + orgID.String() + "/tags" }

func createTag(env *apitest.Env, token string, orgID uuid.UUID, body any) tag {
	env.T.Helper()
	var tg tag
	env.Call(http.MethodPost, tagsPath(orgID)).Token(token).JSON(body).Do().Expect(http.StatusCreated).Decode(&tg)
	return tg
}

func listTags(env *apitest.Env, token string, orgID uuid.UUID) []tag {
	env.T.Helper()
	var out []tag
	env.Call(http.MethodGet, tagsPath(orgID)).Token(token).Do().Expect(http.StatusOK).Decode(&out)
	return out
}

var codeShape = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{8}$`)

func TestTags(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	siteID := env.Site(owner.AccessToken, orgID, "Main Kitchen")
	manager := env.Member(orgID, "manager")

	st := createTag(env, manager.AccessToken, orgID, map[string]any{"targetType": "site", "targetId": siteID, "label": "Receiving dock"})
	if !codeShape.MatchString(st.Code) || st.TargetType != "site" || *st.TargetID != siteID || *st.SiteID != siteID || *st.Label != "Receiving dock" {
		t.Fatalf("site tag %+v", st)
	}
	if st.WebURL != env.Config.WebURL+"/scan/"+st.Code {
		t.Fatalf("webUrl %q", st.WebURL)
	}
	eq := createTag(env, manager.AccessToken, orgID, map[string]any{"targetType": "equipment", "label": "Walk-in cooler 2", "siteId": siteID})
	loose := createTag(env, owner.AccessToken, orgID, map[string]any{"targetType": "storage_location", "label": "Dry store"})
	if eq.TargetID != nil || *eq.SiteID != siteID || loose.SiteID != nil || loose.TargetID != nil {
		t.Fatalf("label tags %+v %+v", eq, loose)
	}
	if st.Code == eq.Code || eq.Code == loose.Code {
		t.Fatal("codes repeat")
	}
	if got := listTags(env, env.Member(orgID, "viewer").AccessToken, orgID); len(got) != 3 || got[0].ID != st.ID || got[2].ID != loose.ID {
		t.Fatalf("listed %+v", got)
	}

	// Inspectors cannot print tags; another organization's site is not a target.
	env.Call(http.MethodPost, tagsPath(orgID)).Token(env.Member(orgID, "inspector").AccessToken).
		JSON(map[string]any{"targetType": "equipment", "label": "x"}).Do().ExpectError(http.StatusForbidden, "manager")
	otherOwner, otherOrg := env.NewOwner("Elsewhere")
	otherSite := env.Site(otherOwner.AccessToken, otherOrg, "Their kitchen")
	env.Call(http.MethodPost, tagsPath(orgID)).Token(owner.AccessToken).
		JSON(map[string]any{"targetType": "site", "targetId": otherSite}).Do().ExpectError(http.StatusNotFound, "Site not found")
	env.Call(http.MethodPost, tagsPath(orgID)).Token(owner.AccessToken).
		JSON(map[string]any{"targetType": "equipment", "label": "Fryer", "siteId": otherSite}).Do().ExpectError(http.StatusNotFound, "Site not found")
	if got := listTags(env, otherOwner.AccessToken, otherOrg); len(got) != 0 {
		t.Fatalf("another organization sees %d tags", len(got))
	}

	// Retiring: the tag leaves the list; retiring again is harmless; unknown ids are 404.
	env.Call(http.MethodDelete, tagsPath(orgID)+"/"+eq.ID.String()).Token(manager.AccessToken).Do().Expect(http.StatusNoContent)
	env.Call(http.MethodDelete, tagsPath(orgID)+"/"+eq.ID.String()).Token(manager.AccessToken).Do().Expect(http.StatusNoContent)
	env.Call(http.MethodDelete, tagsPath(orgID)+"/"+uuid.NewString()).Token(manager.AccessToken).Do().ExpectError(http.StatusNotFound, "Tag not found")
	env.Call(http.MethodDelete, tagsPath(otherOrg)+"/"+st.ID.String()).Token(otherOwner.AccessToken).Do().ExpectError(http.StatusNotFound, "Tag not found")
	if got := listTags(env, owner.AccessToken, orgID); len(got) != 2 {
		t.Fatalf("%d tags after retiring one", len(got))
	}
}

func TestTagValidation(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	siteID := env.Site(owner.AccessToken, orgID, "Main Kitchen")
	for _, tc := range []struct {
		body  any
		field string
	}{
		{map[string]any{"targetType": "site"}, "targetId"},
		{map[string]any{"targetType": "site", "targetId": siteID, "siteId": uuid.New()}, "siteId"},
		{map[string]any{"targetType": "equipment"}, "label"},
		{map[string]any{"targetType": "equipment", "label": "  "}, "label"},
		{map[string]any{"targetType": "equipment", "targetId": "not-a-uuid"}, "targetId"},
		{map[string]any{"targetType": "lot", "label": "Lot 7"}, "targetType"},
		{map[string]any{"targetType": "site", "targetId": "not-a-uuid"}, "targetId"},
		{map[string]any{"targetType": "equipment", "label": "Oven", "code": "AAAAAAAA"}, "code"},
	} {
		e := env.Call(http.MethodPost, tagsPath(orgID)).Token(owner.AccessToken).JSON(tc.body).Do().ExpectError(http.StatusBadRequest, "")
		found := false
		for _, d := range e.Details {
			found = found || d.Field == tc.field
		}
		if !found {
			t.Errorf("%v: details %+v, want field %s", tc.body, e.Details, tc.field)
		}
	}
	if got := listTags(env, owner.AccessToken, orgID); len(got) != 0 {
		t.Fatalf("%d tags written by invalid requests", len(got))
	}
}

func TestSiteScopedMembersAndTags(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	mine := env.Site(owner.AccessToken, orgID, "Mine")
	theirs := env.Site(owner.AccessToken, orgID, "Theirs")
	scoped := env.Member(orgID, "manager", mine)

	a := createTag(env, owner.AccessToken, orgID, map[string]any{"targetType": "site", "targetId": mine})
	b := createTag(env, owner.AccessToken, orgID, map[string]any{"targetType": "site", "targetId": theirs})
	c := createTag(env, owner.AccessToken, orgID, map[string]any{"targetType": "equipment", "label": "Shared ice machine"})

	got := listTags(env, scoped.AccessToken, orgID)
	if len(got) != 2 || got[0].ID != a.ID || got[1].ID != c.ID {
		t.Fatalf("scoped member lists %+v", got)
	}
	createTag(env, scoped.AccessToken, orgID, map[string]any{"targetType": "equipment", "label": "Fryer", "siteId": mine})
	env.Call(http.MethodPost, tagsPath(orgID)).Token(scoped.AccessToken).
		JSON(map[string]any{"targetType": "equipment", "label": "Fryer", "siteId": theirs}).Do().ExpectError(http.StatusNotFound, "Site not found")
	env.Call(http.MethodPost, tagsPath(orgID)).Token(scoped.AccessToken).
		JSON(map[string]any{"targetType": "equipment", "label": "Anywhere"}).Do().ExpectError(http.StatusForbidden, "")
	env.Call(http.MethodDelete, tagsPath(orgID)+"/"+b.ID.String()).Token(scoped.AccessToken).Do().ExpectError(http.StatusNotFound, "Tag not found")
	env.Call(http.MethodDelete, tagsPath(orgID)+"/"+c.ID.String()).Token(scoped.AccessToken).Do().ExpectError(http.StatusForbidden, "")
}
