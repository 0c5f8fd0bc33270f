package tasks_test

import (
	"net/http"
	"testing"

	"github.com/sous-app/sous/internal/devices"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// Eight task photos at once, each the largest image taken (5 MiB), cost the heap at most the
// documented multiple of what was sent (docs/reference/http-conventions.md; issue 40, N1). Not
// parallel: it measures the process's heap.
func TestTaskPhotoMemoryIsBounded(t *testing.T) {
	k := newKitchen(t)
	reqs := make([]*apitest.Request, 8)
	for i := range reqs {
		tk := k.newTask(map[string]any{"requiresPhoto": true})
		ct, body := apitest.LargestImage(devices.MaxMediaSize)
		reqs[i] = k.call(http.MethodPost, "tasks/"+tk.ID.String()+"/photos", k.owner.AccessToken).Raw(ct, body)
	}
	apitest.BodiesMemory(t, apitest.MaxBodyMemory, http.StatusCreated, reqs...)
}
