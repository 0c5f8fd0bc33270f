package orgs_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// GET /orgs/{orgId}/sites keeps each organization's list in memory between calls; every change
// made through another replica (or straight in the database) must show on the very next call of
// this one, for members who see every site and for members limited to some.
func TestSitesListShowsChangesFromAnotherReplicaAtOnce(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	other := env.Replica()
	owner, orgID := env.NewOwner("Harborview Kitchens")
	main := env.Site(owner.AccessToken, orgID, "Main Kitchen")
	scoped := env.Member(orgID, "viewer", main)
	list := func(token string) []site {
		t.Helper()
		var v []site
		env.Call(http.MethodGet, orgPath(orgID, "sites")).Token(token).Do().Expect(http.StatusOK).Decode(&v)
		return v
	}
	names := func(v []site) []string {
		out := []string{}
		for _, s := range v {
			out = append(out, s.Name)
		}
		return out
	}
	var commissary uuid.UUID
	for _, step := range []struct {
		name        string
		change      func()
		all, scoped []string
	}{
		{"nothing changed", func() {}, []string{"Main Kitchen"}, []string{"Main Kitchen"}},
		{"site created on the other replica", func() {
			commissary = other.Site(owner.AccessToken, orgID, "Commissary")
		}, []string{"Commissary", "Main Kitchen"}, []string{"Main Kitchen"}},
		{"site renamed on the other replica", func() {
			other.Call(http.MethodPut, orgPath(orgID, "sites", main.String())).Token(owner.AccessToken).
				JSON(map[string]any{"name": "Central Kitchen", "timezone": "America/New_York"}).Do().Expect(http.StatusOK)
		}, []string{"Central Kitchen", "Commissary"}, []string{"Central Kitchen"}},
		{"site renamed in the database", func() {
			if _, err := env.Pool.Exec(t.Context(), `UPDATE sites SET name = 'Annex' WHERE id = $1`, commissary); err != nil {
				t.Fatal(err)
			}
		}, []string{"Annex", "Central Kitchen"}, []string{"Central Kitchen"}},
		{"site deleted in the database", func() {
			if _, err := env.Pool.Exec(t.Context(), `DELETE FROM sites WHERE id = $1`, commissary); err != nil {
				t.Fatal(err)
			}
		}, []string{"Central Kitchen"}, []string{"Central Kitchen"}},
	} {
		// The list as it was, now in this replica's memory, for both members.
		list(owner.AccessToken)
		list(scoped.AccessToken)
		step.change()
		if got := names(list(owner.AccessToken)); !slices.Equal(got, step.all) {
			t.Fatalf("%s: the owner is listed %q, want %q", step.name, got, step.all)
		}
		if got := names(list(scoped.AccessToken)); !slices.Equal(got, step.scoped) {
			t.Fatalf("%s: the member limited to one site is listed %q, want %q", step.name, got, step.scoped)
		}
	}

	// Day parts changed on the other replica: the list shows the site as GET /sites/{id} does.
	other.Call(http.MethodPut, orgPath(orgID, "sites", main.String())).Token(owner.AccessToken).
		JSON(map[string]any{"name": "Central Kitchen", "timezone": "America/Chicago",
			"dayParts": []map[string]string{{"name": "brunch", "start": "09:00", "end": "13:00"}}}).Do().Expect(http.StatusOK)
	got := list(owner.AccessToken)
	want := getSite(env, owner.AccessToken, orgID, main)
	a, _ := json.Marshal(got)
	b, _ := json.Marshal([]site{want})
	if string(a) != string(b) {
		t.Fatalf("list %s, want the site as read alone %s", a, b)
	}
}

// Another organization's list is never served from this one's: the cache is keyed by
// organization, and each organization's version counts from 0.
func TestSitesListIsPerOrganization(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	a, orgA := env.NewOwner("Harborview Kitchens")
	b, orgB := env.NewOwner("Bayside Catering")
	env.Site(a.AccessToken, orgA, "Harbor Main")
	env.Site(b.AccessToken, orgB, "Bayside Main")
	for _, c := range []struct {
		token string
		org   uuid.UUID
		want  string
	}{{a.AccessToken, orgA, "Harbor Main"}, {b.AccessToken, orgB, "Bayside Main"}, {a.AccessToken, orgA, "Harbor Main"}} {
		var v []site
		env.Call(http.MethodGet, orgPath(c.org, "sites")).Token(c.token).Do().Expect(http.StatusOK).Decode(&v)
		if len(v) != 1 || v[0].Name != c.want {
			t.Fatalf("org %s listed %+v, want only %q", c.org, v, c.want)
		}
	}
	env.Call(http.MethodGet, orgPath(orgB, "sites")).Token(a.AccessToken).Do().Expect(http.StatusNotFound)
}
