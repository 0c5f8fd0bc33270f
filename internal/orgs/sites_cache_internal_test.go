package orgs

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/db"
)

func TestSitesCacheKeepsTheNewestVersionWithinItsBounds(t *testing.T) {
	t.Parallel()
	c := newSitesCache()
	org := uuid.New()
	row := func(name string) []db.Site {
		return []db.Site{{ID: uuid.New(), OrgID: org, Name: name, Timezone: "UTC", DayParts: []byte(`[]`)}}
	}
	if _, ok := c.get(org, 0); ok {
		t.Fatal("an empty cache answered")
	}
	if _, err := c.load(org, 2, row("v2")); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.get(org, 1); ok {
		t.Fatal("an entry at version 2 answered for version 1")
	}
	// A slower request that read version 1 does not replace the newer list.
	if e, _ := c.load(org, 1, row("v1")); e.sites[0].Name != "v1" {
		t.Fatalf("the slower request is answered %+v", e.sites)
	}
	if e, ok := c.get(org, 2); !ok || e.sites[0].Name != "v2" {
		t.Fatalf("version 2 after a slower load: %v %+v", ok, e)
	}
	if e, _ := c.get(org, 2); !strings.HasSuffix(string(e.body), "}]\n") {
		t.Fatalf("body %q is not the list as the generated response encodes it", e.body)
	}

	// Bounded by entries: full, it starts over.
	for range sitesCacheEntries {
		if _, err := c.load(uuid.New(), 0, row("x")); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(c.entries); n > sitesCacheEntries {
		t.Fatalf("%d entries, bound %d", n, sitesCacheEntries)
	}
	// An organization whose list is over the entry bound is answered but not kept.
	huge := make([]db.Site, 0, 3000)
	for range cap(huge) {
		huge = append(huge, row(strings.Repeat("n", 400))[0])
	}
	big := uuid.New()
	if e, err := c.load(big, 0, huge); err != nil || len(e.sites) != len(huge) {
		t.Fatalf("huge list: %v", err)
	}
	if _, ok := c.get(big, 0); ok {
		t.Fatal("a list over the entry bound was kept")
	}
	if c.bytes > sitesCacheBytes {
		t.Fatalf("%d bytes kept, bound %d", c.bytes, sitesCacheBytes)
	}
}
