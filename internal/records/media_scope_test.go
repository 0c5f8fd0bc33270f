package records_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// Images are their site's: a member limited to some sites attaches to an inspection's or a
// walkthrough run's answers only images of their sites. Another site's image, or the
// organization's (which such a member does not see either), is answered as an image that does
// not exist, with nothing written; images already on the record stay when the member answers
// again.
func TestAnswerImagesAreWithinTheMembersSites(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	north := k.env.Site(k.owner.AccessToken, k.org, "North")
	staff := k.env.Member(k.org, "inspector", north)
	mainImage := k.env.Image(k.owner.AccessToken, k.org, k.site)
	northImage := k.env.Image(k.owner.AccessToken, k.org, north)
	orgImage := k.env.Image(k.owner.AccessToken, k.org, uuid.Nil)
	stored := func(table string, id uuid.UUID) string {
		var raw string
		if err := k.env.Pool.QueryRow(t.Context(), "SELECT coalesce(responses::text, '') FROM "+table+" WHERE id = $1", id).Scan(&raw); err != nil {
			t.Fatal(err)
		}
		return raw
	}

	var tmpl, in struct {
		ID uuid.UUID `json:"id"`
	}
	k.create("inspection-templates", templateBody(), &tmpl)
	k.create("inspections", map[string]any{"templateId": tmpl.ID, "siteId": north, "scheduledFor": "2026-03-02T14:00:00Z"}, &in)
	answer := func(token string, media ...uuid.UUID) int {
		return k.call(http.MethodPut, "inspections/"+in.ID.String()+"/responses", token).
			JSON(map[string]any{"answers": []map[string]any{{"key": "labels", "passed": true, "photoMediaIds": media}}}).Do().Status
	}

	var wt, run struct {
		ID uuid.UUID `json:"id"`
	}
	k.create("walkthroughs", map[string]any{"name": "Opening", "kind": "opening", "siteIds": []uuid.UUID{north}, "steps": []map[string]any{
		{"key": "line", "prompt": "Photo of the line", "answerKind": "photo"}}}, &wt)
	k.call(http.MethodPost, "walkthroughs/"+wt.ID.String()+"/runs", staff.AccessToken).JSON(map[string]any{"siteId": north}).Do().Expect(http.StatusCreated).Decode(&run)
	step := func(token string, media uuid.UUID) int {
		return k.call(http.MethodPut, "walkthrough-runs/"+run.ID.String()+"/responses", token).
			JSON(map[string]any{"answers": []map[string]any{{"stepKey": "line", "mediaId": media}}}).Do().Status
	}

	// Another site's image, the organization's, and one that does not exist: the same 400.
	for _, media := range []uuid.UUID{mainImage, orgImage, uuid.New()} {
		if got := answer(staff.AccessToken, northImage, media); got != http.StatusBadRequest {
			t.Errorf("inspection answer with image %s: %d, want 400", media, got)
		}
		if got := step(staff.AccessToken, media); got != http.StatusBadRequest {
			t.Errorf("walkthrough answer with image %s: %d, want 400", media, got)
		}
		if raw := stored("inspections", in.ID) + stored("walkthrough_runs", run.ID); strings.Contains(raw, media.String()) {
			t.Fatalf("image %s written: %s", media, raw)
		}
	}
	if answer(staff.AccessToken, northImage) != http.StatusOK || step(staff.AccessToken, northImage) != http.StatusOK {
		t.Fatal("the member's own site's image was refused")
	}

	// A member with every site attaches any image; it stays when the limited member answers again.
	if answer(k.owner.AccessToken, mainImage, orgImage) != http.StatusOK || step(k.owner.AccessToken, mainImage) != http.StatusOK {
		t.Fatal("a member with every site could not attach the organization's images")
	}
	if answer(staff.AccessToken, mainImage, orgImage, northImage) != http.StatusOK || step(staff.AccessToken, mainImage) != http.StatusOK {
		t.Fatal("images already on the record were refused")
	}
}
