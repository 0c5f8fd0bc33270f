package tasks_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"
)

// Images are their site's: a member limited to some sites attaches to a guide only images of
// their sites, and an image of another site (or the organization's, which such a member does not
// see either) is answered as an image that does not exist, with nothing written. Images already
// on the guide stay when such a member changes it.
func TestGuideImagesAreWithinTheMembersSites(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	north := k.env.Site(k.owner.AccessToken, k.org, "North")
	manager := k.env.Member(k.org, "manager", north)
	mainImage := k.env.Image(k.owner.AccessToken, k.org, k.site)
	northImage := k.env.Image(k.owner.AccessToken, k.org, north)
	orgImage := k.env.Image(k.owner.AccessToken, k.org, uuid.Nil)
	guides := func() int {
		var n int
		if err := k.env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM guides WHERE org_id = $1`, k.org).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	guide := func(media ...uuid.UUID) map[string]any {
		return map[string]any{"title": "Cooler log", "body": "Probe the centre shelf.", "siteIds": []uuid.UUID{north}, "mediaIds": media}
	}

	// Another site's image, the organization's, and one that does not exist: the same answer.
	for _, media := range []uuid.UUID{mainImage, orgImage, uuid.New()} {
		before := guides()
		e := k.call(http.MethodPost, "guides", manager.AccessToken).JSON(guide(northImage, media)).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
		if len(e.Details) != 1 || e.Details[0].Field != "mediaIds" || e.Details[0].Message != "name images of the organization (POST /media)" {
			t.Fatalf("details %+v, want mediaIds", e.Details)
		}
		if guides() != before {
			t.Fatalf("a guide was written with image %s", media)
		}
	}
	var g struct {
		ID       uuid.UUID   `json:"id"`
		MediaIDs []uuid.UUID `json:"mediaIds"`
	}
	k.call(http.MethodPost, "guides", manager.AccessToken).JSON(guide(northImage)).Do().Expect(http.StatusCreated).Decode(&g)
	// Changing it: another site's image is refused and the guide stays as it was.
	k.call(http.MethodPut, "guides/"+g.ID.String(), manager.AccessToken).JSON(guide(northImage, mainImage)).Do().
		ExpectCode(http.StatusBadRequest, "validation_failed")
	k.call(http.MethodGet, "guides/"+g.ID.String(), manager.AccessToken).Do().Expect(http.StatusOK).Decode(&g)
	if len(g.MediaIDs) != 1 || g.MediaIDs[0] != northImage {
		t.Fatalf("guide images %v after a refused change", g.MediaIDs)
	}

	// Members with every site attach any image of the organization; what they attached stays
	// when a member limited to the guide's site changes the guide.
	k.call(http.MethodPut, "guides/"+g.ID.String(), k.owner.AccessToken).JSON(guide(northImage, mainImage, orgImage)).Do().Expect(http.StatusOK)
	k.call(http.MethodPut, "guides/"+g.ID.String(), manager.AccessToken).JSON(guide(mainImage, orgImage)).Do().Expect(http.StatusOK).Decode(&g)
	if len(g.MediaIDs) != 2 {
		t.Fatalf("guide images %v, want the two kept", g.MediaIDs)
	}
	// …but once removed, they are not the member's to attach again.
	k.call(http.MethodPut, "guides/"+g.ID.String(), manager.AccessToken).JSON(guide(orgImage)).Do().Expect(http.StatusOK)
	k.call(http.MethodPut, "guides/"+g.ID.String(), manager.AccessToken).JSON(guide(orgImage, mainImage)).Do().
		ExpectCode(http.StatusBadRequest, "validation_failed")
}
