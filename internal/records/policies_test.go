package records_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/google/uuid"
)

type policy struct {
	ID                  uuid.UUID   `json:"id"`
	Title               string      `json:"title"`
	SiteIDs             []uuid.UUID `json:"siteIds"`
	CurrentVersion      *int        `json:"currentVersion"`
	AcknowledgedCurrent *bool       `json:"acknowledgedCurrent"`
	Versions            []struct {
		Version int    `json:"version"`
		Status  string `json:"status"`
		Body    string `json:"body"`
	} `json:"versions"`
}

type roster struct {
	Version *int `json:"version"`
	Sites   []struct {
		SiteID       uuid.UUID `json:"siteId"`
		Acknowledged []struct {
			UserID uuid.UUID `json:"userId"`
		} `json:"acknowledged"`
		Pending []struct {
			UserID uuid.UUID `json:"userId"`
		} `json:"pending"`
	} `json:"sites"`
}

func TestPolicyVersionsPublishAndAcknowledge(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	rcv := k.receiver("policy.published")
	pastry := k.env.Site(k.owner.AccessToken, k.org, "Pastry")
	staff := k.env.Member(k.org, "inspector", k.site)
	other := k.env.Member(k.org, "inspector", pastry)
	var p policy
	k.create("policies", map[string]any{"title": "Handwashing", "siteIds": []uuid.UUID{k.site}}, &p)
	if p.CurrentVersion != nil || len(p.Versions) != 0 {
		t.Fatalf("new policy %+v", p)
	}
	base := "policies/" + p.ID.String()
	// Nothing to acknowledge yet.
	k.call(http.MethodPost, base+"/acknowledge", staff.AccessToken).Do().ExpectCode(http.StatusConflict, "conflict")
	// A member of another site does not see it.
	k.call(http.MethodGet, base, other.AccessToken).Do().ExpectError(http.StatusNotFound, "Policy not found")
	// Staff cannot write versions.
	k.call(http.MethodPost, base+"/versions", staff.AccessToken).JSON(map[string]any{"body": "x"}).Do().ExpectError(http.StatusForbidden, "")

	for i := 1; i <= 2; i++ {
		var v struct {
			Version int    `json:"version"`
			Status  string `json:"status"`
		}
		k.call(http.MethodPost, base+"/versions", k.owner.AccessToken).JSON(map[string]any{"body": "# Wash " + strconv.Itoa(i), "summary": "v"}).
			Do().Expect(http.StatusCreated).Decode(&v)
		if v.Version != i || v.Status != "draft" {
			t.Fatalf("version %+v", v)
		}
	}
	k.call(http.MethodPost, base+"/versions/9/publish", k.owner.AccessToken).Do().ExpectError(http.StatusNotFound, "Policy version not found")
	k.call(http.MethodPost, base+"/versions/2/publish", k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&p)
	if p.CurrentVersion == nil || *p.CurrentVersion != 2 || p.Versions[1].Status != "published" || p.Versions[0].Status != "draft" {
		t.Fatalf("published %+v", p)
	}
	// Published is immutable; an older draft cannot overtake it.
	k.call(http.MethodPost, base+"/versions/2/publish", k.owner.AccessToken).Do().ExpectCode(http.StatusConflict, "conflict")
	k.call(http.MethodPost, base+"/versions/1/publish", k.owner.AccessToken).Do().ExpectCode(http.StatusConflict, "conflict")

	var ack struct {
		Version int       `json:"version"`
		UserID  uuid.UUID `json:"userId"`
	}
	k.call(http.MethodPost, base+"/acknowledge", staff.AccessToken).Do().Expect(http.StatusOK).Decode(&ack)
	if ack.Version != 2 || ack.UserID != staff.User.ID {
		t.Fatalf("ack %+v", ack)
	}
	k.call(http.MethodPost, base+"/acknowledge", staff.AccessToken).Do().Expect(http.StatusOK)
	k.call(http.MethodGet, base, staff.AccessToken).Do().Expect(http.StatusOK).Decode(&p)
	if p.AcknowledgedCurrent == nil || !*p.AcknowledgedCurrent {
		t.Fatalf("acknowledgedCurrent %+v", p)
	}
	var r roster
	k.call(http.MethodGet, base+"/acknowledgements", k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&r)
	if len(r.Sites) != 1 || r.Sites[0].SiteID != k.site || len(r.Sites[0].Acknowledged) != 1 || r.Sites[0].Acknowledged[0].UserID != staff.User.ID ||
		len(r.Sites[0].Pending) != 1 || r.Sites[0].Pending[0].UserID != k.owner.User.ID {
		t.Fatalf("roster %+v", r)
	}
	// A new version in force: everyone is pending again.
	k.call(http.MethodPost, base+"/versions", k.owner.AccessToken).JSON(map[string]any{"body": "# Wash 3"}).Do().Expect(http.StatusCreated)
	k.call(http.MethodPost, base+"/versions/3/publish", k.owner.AccessToken).Do().Expect(http.StatusOK)
	k.call(http.MethodGet, base+"/acknowledgements", k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&r)
	if *r.Version != 3 || len(r.Sites[0].Acknowledged) != 0 || len(r.Sites[0].Pending) != 2 {
		t.Fatalf("roster after v3 %+v", r)
	}
	got := rcv.deliveries("policy.published") // in any order
	if len(got) == 2 && got[0]["version"] == float64(3) {
		got[0], got[1] = got[1], got[0]
	}
	if len(got) != 2 || got[0]["policyId"] != p.ID.String() || got[0]["version"] != float64(2) || got[1]["version"] != float64(3) {
		t.Fatalf("policy.published deliveries %+v", got)
	}
}

func TestPolicyForEverySiteNeedsEverySite(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	mgr := k.env.Member(k.org, "manager", k.site)
	k.call(http.MethodPost, "policies", mgr.AccessToken).JSON(map[string]any{"title": "Allergens"}).Do().ExpectCode(http.StatusForbidden, "site_scope_exceeded")
	k.call(http.MethodPost, "policies", mgr.AccessToken).JSON(map[string]any{"title": "Allergens", "siteIds": []uuid.UUID{uuid.New()}}).
		Do().ExpectError(http.StatusNotFound, "Site not found")
	k.call(http.MethodPost, "policies", k.owner.AccessToken).JSON(map[string]any{"title": " "}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	var all []policy
	k.call(http.MethodGet, "policies", mgr.AccessToken).Do().Expect(http.StatusOK).Decode(&all)
	if len(all) != 0 {
		t.Fatalf("policies %+v", all)
	}
}
