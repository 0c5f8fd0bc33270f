package records_test

import (
	"net/http"
	"testing"

	"github.com/sous-app/sous/internal/devices"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// Eight work order photos at once, each the largest image taken (5 MiB), cost the heap at most
// the documented multiple of what was sent (docs/reference/http-conventions.md), as task photos
// do. Not parallel: it measures the process's heap.
func TestWorkOrderPhotoMemoryIsBounded(t *testing.T) {
	k := newKitchen(t)
	reqs := make([]*apitest.Request, 8)
	for i := range reqs {
		var w workOrder
		k.call(http.MethodPost, "work-orders", k.owner.AccessToken).JSON(map[string]any{"equipmentId": k.equipment(), "title": "Door gasket torn"}).
			Do().Expect(http.StatusCreated).Decode(&w)
		ct, body := apitest.LargestImage(devices.MaxMediaSize)
		reqs[i] = k.call(http.MethodPost, "work-orders/"+w.ID.String()+"/photos", k.owner.AccessToken).Raw(ct, body)
	}
	apitest.BodiesMemory(t, apitest.MaxBodyMemory, http.StatusCreated, reqs...)
}
