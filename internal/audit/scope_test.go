package audit_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// TestAuditLogIsScopedToTheMembersSites: an admin limited to one site reads that site's entries
// only; entries of other sites and organization-wide entries (no site) are for admins with every
// site.
func TestAuditLogIsScopedToTheMembersSites(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	north := env.Site(owner.AccessToken, orgID, "North")
	south := env.Site(owner.AccessToken, orgID, "South")
	device := func(site uuid.UUID) uuid.UUID {
		var d struct {
			ID uuid.UUID `json:"id"`
		}
		env.Call(http.MethodPost, "orgs/"+orgID.String()+"/devices").Token(owner.AccessToken).
			JSON(map[string]any{"name": "Hot line", "kind": "wallboard_boh", "siteId": site}).Do().Expect(http.StatusCreated).Decode(&d)
		return d.ID
	}
	northDevice, southDevice := device(north), device(south)
	env.Call(http.MethodPut, "orgs/"+orgID.String()).Token(owner.AccessToken).
		JSON(map[string]any{"name": "Harborview Kitchens"}).Do().Expect(http.StatusOK)

	read := func(token string) map[uuid.UUID]entry {
		var log []struct {
			entry
			SiteID *uuid.UUID `json:"siteId"`
		}
		env.Call(http.MethodGet, "orgs/"+orgID.String()+"/audit-log").Token(token).Do().Expect(http.StatusOK).Decode(&log)
		out := map[uuid.UUID]entry{}
		for _, e := range log {
			target := uuid.Nil
			if e.TargetID != nil {
				target = *e.TargetID
			}
			if e.Action == "createDevice" && (e.SiteID == nil || (*e.SiteID != north && *e.SiteID != south)) {
				t.Errorf("createDevice entry without its site: %+v", e)
			}
			out[target] = e.entry
		}
		return out
	}
	everySite := read(env.Member(orgID, "admin").AccessToken)
	for _, id := range []uuid.UUID{orgID, north, south, northDevice, southDevice} {
		if _, ok := everySite[id]; !ok {
			t.Errorf("an admin with every site misses the entry of %s", id)
		}
	}
	northOnly := read(env.Member(orgID, "admin", north).AccessToken)
	if len(northOnly) != 2 {
		t.Errorf("a north admin reads %d entries, want the north site's two: %+v", len(northOnly), northOnly)
	}
	for id, want := range map[uuid.UUID]bool{north: true, northDevice: true, south: false, southDevice: false, orgID: false} {
		if _, ok := northOnly[id]; ok != want {
			t.Errorf("a north admin reads the entry of %s: %v, want %v", id, ok, want)
		}
	}
}
