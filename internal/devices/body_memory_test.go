package devices_test

import (
	"net/http"
	"testing"

	"github.com/sous-app/sous/internal/devices"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// Eight uploads at once of the largest image taken (5 MiB) cost the heap at most the documented
// multiple of what was sent (docs/reference/http-conventions.md; issue 40, N1). Not parallel: it
// measures the process's heap.
func TestUploadMediaMemoryIsBounded(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	reqs := make([]*apitest.Request, 8)
	for i := range reqs {
		ct, body := apitest.LargestImage(devices.MaxMediaSize)
		reqs[i] = env.Call(http.MethodPost, orgPath(k.orgID, "media")).Token(k.owner.AccessToken).Raw(ct, body)
	}
	apitest.BodiesMemory(t, apitest.MaxBodyMemory, http.StatusCreated, reqs...)
}
