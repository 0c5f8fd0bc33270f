package tasks_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// Routines page by name then id like every other list: equal names (all five are "Cooler
// temperatures") are ordered by id, so no routine is skipped or repeated across pages.
func TestRoutinesPage(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	made := map[uuid.UUID]bool{}
	for range 5 {
		made[k.routine(k.site, "FREQ=DAILY;BYHOUR=6;BYMINUTE=0").ID] = true
	}
	seen := map[uuid.UUID]bool{}
	path, pages := "routines?limit=2", 0
	for path != "" {
		var page []routine
		res := k.call(http.MethodGet, path, k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&page)
		pages++
		if want := min(2, 5-len(seen)); len(page) != want {
			t.Fatalf("page %d: %d routines, want %d", pages, len(page), want)
		}
		for _, r := range page {
			if seen[r.ID] || !made[r.ID] {
				t.Fatalf("page %d: %s repeated or unknown", pages, r.ID)
			}
			seen[r.ID] = true
		}
		path = ""
		if l := res.Header.Get("Link"); l != "" {
			if !strings.HasSuffix(l, `>; rel="next"`) {
				t.Fatalf("Link %q", l)
			}
			path = strings.TrimPrefix(l[strings.Index(l, "/v1/"):strings.Index(l, ">")], "/v1/orgs/"+k.org.String()+"/")
		}
	}
	if pages != 3 || len(seen) != 5 {
		t.Fatalf("%d pages, %d routines; want 3 and 5", pages, len(seen))
	}
	k.call(http.MethodGet, "routines?cursor=not-a-cursor", k.owner.AccessToken).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	k.call(http.MethodGet, "routines?limit=0", k.owner.AccessToken).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
}
