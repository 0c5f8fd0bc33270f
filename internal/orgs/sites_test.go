package orgs_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

type dayPart struct {
	Name  string `json:"name"`
	Start string `json:"start"`
	End   string `json:"end"`
}

type site struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	Timezone  string    `json:"timezone"`
	DayParts  []dayPart `json:"dayParts"`
	CreatedAt time.Time `json:"createdAt"`
}

var defaultDayParts = []dayPart{
	{"breakfast", "06:00", "10:30"},
	{"lunch", "11:00", "14:30"},
	{"dinner", "16:30", "20:00"},
}

func getSite(env *apitest.Env, token string, orgID, siteID uuid.UUID) site {
	env.T.Helper()
	var s site
	env.Call(http.MethodGet, orgPath(orgID, "sites", siteID.String())).Token(token).Do().Expect(http.StatusOK).Decode(&s)
	return s
}

func listSites(env *apitest.Env, token string, orgID uuid.UUID) []site {
	env.T.Helper()
	var out []site
	env.Call(http.MethodGet, orgPath(orgID, "sites")).Token(token).Do().Expect(http.StatusOK).Decode(&out)
	return out
}

func siteNames(sites []site) []string {
	out := make([]string, 0, len(sites))
	for _, s := range sites {
		out = append(out, s.Name)
	}
	return out
}

func TestCreateSiteWithDefaultDayParts(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")

	var s site
	env.Call(http.MethodPost, orgPath(orgID, "sites")).Token(owner.AccessToken).
		JSON(map[string]any{"name": "  Main Kitchen ", "timezone": "America/Chicago"}).
		Do().Expect(http.StatusCreated).Decode(&s)
	if s.ID == uuid.Nil || s.Name != "Main Kitchen" || s.Timezone != "America/Chicago" || !s.CreatedAt.Equal(apitest.Epoch) {
		t.Fatalf("site %+v", s)
	}
	if !slices.Equal(s.DayParts, defaultDayParts) {
		t.Fatalf("day parts %+v", s.DayParts)
	}
	if got := getSite(env, owner.AccessToken, orgID, s.ID); got.Name != s.Name || got.Timezone != s.Timezone || !slices.Equal(got.DayParts, s.DayParts) {
		t.Fatalf("read back %+v", got)
	}
	if n := auditCount(env, "createSite"); n != 1 {
		t.Errorf("%d createSite audit rows", n)
	}
}

func TestCreateSiteWithCustomDayPartsSortsThemByStart(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	admin := env.Member(orgID, "admin")

	var s site
	env.Call(http.MethodPost, orgPath(orgID, "sites")).Token(admin.AccessToken).
		JSON(map[string]any{"name": "Night Market", "timezone": "Europe/Lisbon", "dayParts": []dayPart{
			{"night", "22:00", "02:00"},
			{" lunch ", "11:30", "14:00"},
			{"brunch", "09:00", "11:30"},
		}}).
		Do().Expect(http.StatusCreated).Decode(&s)
	want := []dayPart{{"brunch", "09:00", "11:30"}, {"lunch", "11:30", "14:00"}, {"night", "22:00", "02:00"}}
	if !slices.Equal(s.DayParts, want) {
		t.Fatalf("day parts %+v, want %+v", s.DayParts, want)
	}
	if got := getSite(env, owner.AccessToken, orgID, s.ID); !slices.Equal(got.DayParts, want) {
		t.Fatalf("read back %+v", got.DayParts)
	}
}

func TestCreateSiteValidation(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	part := func(name, start, end string) map[string]string {
		return map[string]string{"name": name, "start": start, "end": end}
	}
	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"unknown time zone", map[string]any{"name": "K", "timezone": "Mars/Olympus"}, "timezone"},
		{"server-local zone", map[string]any{"name": "K", "timezone": "Local"}, "timezone"},
		{"empty time zone", map[string]any{"name": "K", "timezone": ""}, "timezone"},
		{"path-like time zone", map[string]any{"name": "K", "timezone": "../etc/passwd"}, "timezone"},
		{"relative zone path", map[string]any{"name": "K", "timezone": "./UTC"}, "timezone"},
		{"doubled slash", map[string]any{"name": "K", "timezone": "America//Chicago"}, "timezone"},
		{"trailing slash", map[string]any{"name": "K", "timezone": "America/Chicago/"}, "timezone"},
		{"zone directory", map[string]any{"name": "K", "timezone": "America"}, "timezone"},
		{"zone database file", map[string]any{"name": "K", "timezone": "zone.tab"}, "timezone"},
		{"server zone file", map[string]any{"name": "K", "timezone": "localtime"}, "timezone"},
		{"padded zone", map[string]any{"name": "K", "timezone": " America/Chicago"}, "timezone"},
		{"missing time zone", map[string]any{"name": "K"}, "timezone"},
		{"blank name", map[string]any{"name": "  ", "timezone": "UTC"}, "name"},
		{"missing name", map[string]any{"timezone": "UTC"}, "name"},
		{"duplicate day part", map[string]any{"name": "K", "timezone": "UTC", "dayParts": []any{
			part("lunch", "11:00", "14:00"), part("Lunch", "17:00", "20:00"),
		}}, "dayParts.1.name"},
		{"start equals end", map[string]any{"name": "K", "timezone": "UTC", "dayParts": []any{
			part("lunch", "11:00", "11:00"),
		}}, "dayParts.0.end"},
		{"blank day-part name", map[string]any{"name": "K", "timezone": "UTC", "dayParts": []any{
			part("breakfast", "06:00", "10:00"), part("  ", "11:00", "14:00"),
		}}, "dayParts.1.name"},
		{"hour out of range", map[string]any{"name": "K", "timezone": "UTC", "dayParts": []any{
			part("late", "24:00", "02:00"),
		}}, "dayParts.0.start"},
		{"single-digit hour", map[string]any{"name": "K", "timezone": "UTC", "dayParts": []any{
			part("breakfast", "6:00", "10:00"),
		}}, "dayParts.0.start"},
		{"minutes out of range", map[string]any{"name": "K", "timezone": "UTC", "dayParts": []any{
			part("lunch", "11:00", "14:60"),
		}}, "dayParts.0.end"},
		{"seconds", map[string]any{"name": "K", "timezone": "UTC", "dayParts": []any{
			part("lunch", "11:00:00", "14:00"),
		}}, "dayParts.0.start"},
		{"missing end", map[string]any{"name": "K", "timezone": "UTC", "dayParts": []any{
			map[string]string{"name": "lunch", "start": "11:00"},
		}}, "dayParts.0.end"},
	}
	for _, tc := range cases {
		res := env.Call(http.MethodPost, orgPath(orgID, "sites")).Token(owner.AccessToken).JSON(tc.body).Do()
		if res.Status != http.StatusBadRequest {
			t.Errorf("%s: status %d: %s", tc.name, res.Status, res.Body)
			continue
		}
		if e := res.Err(); !hasField(e, tc.field) {
			t.Errorf("%s: details %+v do not name %s", tc.name, e.Details, tc.field)
		}
	}
	// Nothing was written by any refused request.
	if n := count(env, `SELECT count(*) FROM sites WHERE org_id = $1`, orgID); n != 0 {
		t.Fatalf("%d sites written by invalid requests", n)
	}
	if n := auditCount(env, "createSite"); n != 0 {
		t.Fatalf("%d audit rows written by invalid requests", n)
	}
}

func TestCreateSiteAcceptsIANAZones(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	for _, tz := range []string{"UTC", "Etc/GMT+5", "America/Port-au-Prince", "America/Argentina/Buenos_Aires", "Asia/Kolkata", "US/Central", "EST5EDT"} {
		var s site
		env.Call(http.MethodPost, orgPath(orgID, "sites")).Token(owner.AccessToken).
			JSON(map[string]any{"name": tz, "timezone": tz}).Do().Expect(http.StatusCreated).Decode(&s)
		if s.Timezone != tz {
			t.Errorf("zone %q stored as %q", tz, s.Timezone)
		}
	}
}

func TestCreateSiteNeedsAdminWithAllSites(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	siteA := env.Site(owner.AccessToken, orgID, "Main Kitchen")
	body := map[string]any{"name": "Annex", "timezone": "America/Chicago"}

	for _, role := range []string{"manager", "inspector", "viewer"} {
		m := env.Member(orgID, role)
		env.Call(http.MethodPost, orgPath(orgID, "sites")).Token(m.AccessToken).JSON(body).Do().ExpectError(http.StatusForbidden, "admin")
	}
	scoped := env.Member(orgID, "admin", siteA)
	env.Call(http.MethodPost, orgPath(orgID, "sites")).Token(scoped.AccessToken).JSON(body).Do().ExpectError(http.StatusForbidden, "every site")
	stranger, _ := env.NewOwner("Other Kitchens")
	env.Call(http.MethodPost, orgPath(orgID, "sites")).Token(stranger.AccessToken).JSON(body).Do().ExpectError(http.StatusNotFound, "Organization not found")

	if n := count(env, `SELECT count(*) FROM sites WHERE org_id = $1`, orgID); n != 1 {
		t.Fatalf("%d sites, want only the owner's", n)
	}
	env.Site(env.Member(orgID, "admin").AccessToken, orgID, "Annex")
}

func TestListSitesByName(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	for _, name := range []string{"South Campus", "Central Kitchen", "North Tower"} {
		env.Site(owner.AccessToken, orgID, name)
	}
	other, otherOrg := env.NewOwner("Other Kitchens")
	env.Site(other.AccessToken, otherOrg, "Other Place")

	viewer := env.Member(orgID, "viewer")
	for _, tok := range []string{owner.AccessToken, viewer.AccessToken} {
		if got := siteNames(listSites(env, tok, orgID)); !slices.Equal(got, []string{"Central Kitchen", "North Tower", "South Campus"}) {
			t.Fatalf("sites %v", got)
		}
	}
	empty, emptyOrg := env.NewOwner("Empty Kitchens")
	if got := listSites(env, empty.AccessToken, emptyOrg); got == nil || len(got) != 0 {
		t.Fatalf("an organization without sites lists %v", got)
	}
	if got := listSites(env, other.AccessToken, otherOrg); len(got) != 1 {
		t.Fatalf("other organization's sites %v", siteNames(got))
	}
}

func TestUpdateSite(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	siteID := env.Site(owner.AccessToken, orgID, "Main Kitchen")
	admin := env.Member(orgID, "admin")

	// Name only: the zone and day parts stay.
	var s site
	env.Call(http.MethodPut, orgPath(orgID, "sites", siteID.String())).Token(admin.AccessToken).
		JSON(map[string]any{"name": " Main Kitchen East "}).Do().Expect(http.StatusOK).Decode(&s)
	if s.ID != siteID || s.Name != "Main Kitchen East" || s.Timezone != "America/Chicago" || !slices.Equal(s.DayParts, defaultDayParts) {
		t.Fatalf("after rename %+v", s)
	}

	// Time zone only.
	env.Call(http.MethodPut, orgPath(orgID, "sites", siteID.String())).Token(admin.AccessToken).
		JSON(map[string]any{"timezone": "Pacific/Auckland"}).Do().Expect(http.StatusOK).Decode(&s)
	if s.Name != "Main Kitchen East" || s.Timezone != "Pacific/Auckland" || !slices.Equal(s.DayParts, defaultDayParts) {
		t.Fatalf("after zone change %+v", s)
	}

	// Day parts replace the whole list, sorted by start.
	env.Call(http.MethodPut, orgPath(orgID, "sites", siteID.String())).Token(admin.AccessToken).
		JSON(map[string]any{"dayParts": []dayPart{{"night", "22:00", "02:00"}, {"breakfast", "06:30", "10:00"}}}).
		Do().Expect(http.StatusOK).Decode(&s)
	want := []dayPart{{"breakfast", "06:30", "10:00"}, {"night", "22:00", "02:00"}}
	if s.Name != "Main Kitchen East" || s.Timezone != "Pacific/Auckland" || !slices.Equal(s.DayParts, want) {
		t.Fatalf("after day parts %+v", s)
	}
	if got := getSite(env, owner.AccessToken, orgID, siteID); got.Name != s.Name || got.Timezone != s.Timezone || !slices.Equal(got.DayParts, want) {
		t.Fatalf("read back %+v", got)
	}
	if n := auditCount(env, "updateSite"); n != 3 {
		t.Errorf("%d updateSite audit rows, want 3", n)
	}
}

func TestUpdateSiteValidationWritesNothing(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	siteID := env.Site(owner.AccessToken, orgID, "Main Kitchen")
	before := getSite(env, owner.AccessToken, orgID, siteID)
	cases := []struct {
		name, body, field string
	}{
		{"unknown time zone", `{"timezone":"Mars/Olympus"}`, "timezone"},
		{"server-local zone", `{"timezone":"Local"}`, "timezone"},
		{"blank name", `{"name":" "}`, "name"},
		{"empty body", `{}`, "body"},
		{"duplicate day part", `{"dayParts":[{"name":"lunch","start":"11:00","end":"14:00"},{"name":"lunch","start":"17:00","end":"20:00"}]}`, "dayParts.1.name"},
		{"start equals end", `{"dayParts":[{"name":"lunch","start":"11:00","end":"11:00"}]}`, "dayParts.0.end"},
		{"bad time", `{"dayParts":[{"name":"lunch","start":"11h00","end":"14:00"}]}`, "dayParts.0.start"},
		{"valid name, bad zone", `{"name":"Renamed","timezone":"Nowhere/Land"}`, "timezone"},
	}
	for _, tc := range cases {
		res := env.Call(http.MethodPut, orgPath(orgID, "sites", siteID.String())).Token(owner.AccessToken).JSON(tc.body).Do()
		if res.Status != http.StatusBadRequest {
			t.Errorf("%s: status %d: %s", tc.name, res.Status, res.Body)
			continue
		}
		if e := res.Err(); !hasField(e, tc.field) {
			t.Errorf("%s: details %+v do not name %s", tc.name, e.Details, tc.field)
		}
	}
	after := getSite(env, owner.AccessToken, orgID, siteID)
	if after.Name != before.Name || after.Timezone != before.Timezone || !slices.Equal(after.DayParts, before.DayParts) {
		t.Fatalf("refused updates changed the site: %+v", after)
	}
	if n := auditCount(env, "updateSite"); n != 0 {
		t.Fatalf("%d audit rows for refused updates", n)
	}
}

func TestUpdateSiteNeedsAdmin(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	siteID := env.Site(owner.AccessToken, orgID, "Main Kitchen")
	for _, role := range []string{"manager", "inspector", "viewer"} {
		m := env.Member(orgID, role)
		env.Call(http.MethodPut, orgPath(orgID, "sites", siteID.String())).Token(m.AccessToken).
			JSON(map[string]any{"name": "Mine"}).Do().ExpectError(http.StatusForbidden, "admin")
		// Reading is for every member.
		getSite(env, m.AccessToken, orgID, siteID)
	}
}

func TestSitesOfAnotherOrganizationAreNotFound(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	other, otherOrg := env.NewOwner("Other Kitchens")
	foreign := env.Site(other.AccessToken, otherOrg, "Their Kitchen")

	path := orgPath(orgID, "sites", foreign.String())
	env.Call(http.MethodGet, path).Token(owner.AccessToken).Do().ExpectError(http.StatusNotFound, "Site not found")
	env.Call(http.MethodPut, path).Token(owner.AccessToken).JSON(map[string]any{"name": "Mine now"}).Do().ExpectError(http.StatusNotFound, "Site not found")
	unknown := orgPath(orgID, "sites", uuid.Must(uuid.NewV7()).String())
	env.Call(http.MethodGet, unknown).Token(owner.AccessToken).Do().ExpectError(http.StatusNotFound, "Site not found")
	env.Call(http.MethodPut, unknown).Token(owner.AccessToken).JSON(map[string]any{"name": "Ghost"}).Do().ExpectError(http.StatusNotFound, "Site not found")

	if s := getSite(env, other.AccessToken, otherOrg, foreign); s.Name != "Their Kitchen" {
		t.Fatalf("the foreign site changed: %+v", s)
	}
}

func TestSiteScopedMemberSeesOnlyTheirSites(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	siteA := env.Site(owner.AccessToken, orgID, "A Kitchen")
	siteB := env.Site(owner.AccessToken, orgID, "B Kitchen")
	siteC := env.Site(owner.AccessToken, orgID, "C Kitchen")

	admin := env.Member(orgID, "admin", siteA)
	viewer := env.Member(orgID, "viewer", siteA, siteC)

	if got := siteNames(listSites(env, admin.AccessToken, orgID)); !slices.Equal(got, []string{"A Kitchen"}) {
		t.Fatalf("scoped admin lists %v", got)
	}
	if got := siteNames(listSites(env, viewer.AccessToken, orgID)); !slices.Equal(got, []string{"A Kitchen", "C Kitchen"}) {
		t.Fatalf("scoped viewer lists %v", got)
	}
	getSite(env, admin.AccessToken, orgID, siteA)
	env.Call(http.MethodGet, orgPath(orgID, "sites", siteB.String())).Token(admin.AccessToken).Do().ExpectError(http.StatusNotFound, "Site not found")
	env.Call(http.MethodGet, orgPath(orgID, "sites", siteB.String())).Token(viewer.AccessToken).Do().ExpectError(http.StatusNotFound, "Site not found")
	env.Call(http.MethodPut, orgPath(orgID, "sites", siteB.String())).Token(admin.AccessToken).
		JSON(map[string]any{"name": "Mine"}).Do().ExpectError(http.StatusNotFound, "Site not found")
	env.Call(http.MethodPost, orgPath(orgID, "sites")).Token(admin.AccessToken).
		JSON(map[string]any{"name": "Annex", "timezone": "UTC"}).Do().ExpectError(http.StatusForbidden, "")

	// Within their site the scoped admin manages it.
	var s site
	env.Call(http.MethodPut, orgPath(orgID, "sites", siteA.String())).Token(admin.AccessToken).
		JSON(map[string]any{"name": "A Kitchen Renamed"}).Do().Expect(http.StatusOK).Decode(&s)
	if s.Name != "A Kitchen Renamed" {
		t.Fatalf("site %+v", s)
	}
	if got := getSite(env, owner.AccessToken, orgID, siteB); got.Name != "B Kitchen" {
		t.Fatalf("site B changed: %+v", got)
	}
	if n := count(env, `SELECT count(*) FROM sites WHERE org_id = $1`, orgID); n != 3 {
		t.Fatalf("%d sites", n)
	}
}
