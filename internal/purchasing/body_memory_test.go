package purchasing_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/purchasing"
)

// largestGuide is a guide at the import's limits in its costliest accepted shape: the most rows
// taken (20,000), each a new vendor item of one of items, descriptions filling the 5 MiB.
func largestGuide(items int) []byte {
	const header = "sku,description,pack,pack_unit,price,item\r\n"
	row := func(i int, desc string) string {
		return fmt.Sprintf("G-%05d,\"%s\",1,case,\"$1,2%02d.50\",Item %d\r\n", i, desc, i%100, i%items+1)
	}
	perRow := (purchasing.MaxGuideBytes - len(header)) / purchasing.MaxGuideRows
	var b strings.Builder
	b.Grow(purchasing.MaxGuideBytes)
	b.WriteString(header)
	for i := range purchasing.MaxGuideRows - 1 { // the header is a row
		b.WriteString(row(i, strings.Repeat("x", perRow-len(row(i, "")))))
	}
	return []byte(b.String())
}

// guideMemory is the documented bound of a guide import's memory, over the 6× of other bodies
// (docs/reference/http-conventions.md): each row becomes a parsed row, a vendor item written and a
// result answered.
const guideMemory = 13

// Eight guide imports at once, each at the import's limits, as CSV and as multipart, cost the
// heap at most the documented multiple of what was sent (docs/reference/http-conventions.md;
// issue 40, N1). Not parallel: it measures the process's heap.
func TestImportGuideMemoryIsBounded(t *testing.T) {
	// Eight 20,000-row imports at once can outrun the 15 s request deadline on a loaded machine
	// (the whole suite beside it): a memory measurement, not a speed one, so it gets minutes.
	b := newBuyer(t, func(c *config.Config) { c.RequestTimeout = 3 * time.Minute })
	const items = 20
	for i := range items {
		b.item(fmt.Sprintf("Item %d", i+1), fmt.Sprintf("IT-%d", i+1))
	}
	guide := largestGuide(items)
	if len(guide) > purchasing.MaxGuideBytes || len(guide) < purchasing.MaxGuideBytes-purchasing.MaxGuideRows {
		t.Fatalf("guide of %d bytes", len(guide))
	}
	for _, form := range []string{"text/csv", "multipart"} {
		t.Run(form, func(t *testing.T) {
			reqs := make([]*apitest.Request, 8)
			for i := range reqs {
				v := b.vendor(fmt.Sprintf("Guide vendor %s %d", form, i))
				ct, body := "text/csv", guide
				if form == "multipart" {
					ct, body = multipartCSV(t, guide)
				}
				reqs[i] = b.env.With(t).Call(http.MethodPost, "orgs/"+b.org.String()+"/vendors/"+v.ID.String()+"/import-guide").
					Token(b.owner.AccessToken).Raw(ct, body)
			}
			apitest.BodiesMemory(t, guideMemory, http.StatusOK, reqs...)
		})
	}
}
