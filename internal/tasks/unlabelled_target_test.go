package tasks_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
)

// A tag that names its storage location or equipment by id and prints no label of its own is
// a task's target all the same: the target's name is the location's or equipment's, and the
// task is created, read, listed, found by a scan of the tag and completed with it.
func TestTaskOnATagWithoutALabel(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		targetType, collection, name string
		body                         map[string]any
	}{
		{"storage_location", "storage-locations", "Walk-in cooler", map[string]any{"kind": "cooler"}},
		{"equipment", "equipment", "Fryer 2", map[string]any{"kind": "fryer"}},
	} {
		t.Run(c.targetType, func(t *testing.T) {
			t.Parallel()
			k := newKitchen(t)
			body := map[string]any{"siteId": k.site, "name": c.name}
			for key, v := range c.body {
				body[key] = v
			}
			target := k.create(c.collection, body)
			var tag struct {
				ID    uuid.UUID `json:"id"`
				Code  string    `json:"code"`
				Label *string   `json:"label"`
			}
			k.call(http.MethodPost, "tags", k.owner.AccessToken).JSON(map[string]any{"targetType": c.targetType, "targetId": target}).
				Do().Expect(http.StatusCreated).Decode(&tag)
			if c.targetType == "storage_location" && tag.Label != nil {
				t.Fatalf("the tag has the label %q; the case needs none", *tag.Label)
			}
			want := func(where string, got task) {
				t.Helper()
				if got.Target == nil || got.Target.Type != c.targetType || got.Target.ID != target || got.Target.Name != c.name {
					t.Fatalf("%s: target %+v, want %s %s %q", where, got.Target, c.targetType, target, c.name)
				}
			}
			created := k.newTask(map[string]any{"title": "Check " + c.name, "requiresScan": true, "targetTagId": tag.ID})
			want("created", created)
			want("read", k.get(created.ID))
			listed := k.list("?siteId=" + k.site.String())
			if len(listed) != 1 {
				t.Fatalf("listed %d tasks", len(listed))
			}
			want("listed", listed[0])

			var scan struct {
				Target struct {
					Name string `json:"name"`
				} `json:"target"`
				Context struct {
					Tasks []task `json:"tasks"`
				} `json:"context"`
			}
			k.call(http.MethodGet, "scan/"+tag.Code, k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&scan)
			if len(scan.Context.Tasks) != 1 || scan.Context.Tasks[0].ID != created.ID || scan.Target.Name != c.name {
				t.Fatalf("scan: target %q, tasks %+v", scan.Target.Name, scan.Context.Tasks)
			}
			want("scanned", scan.Context.Tasks[0])

			staff := k.env.Member(k.org, "inspector", k.site)
			var done task
			k.call(http.MethodPost, "tasks/"+created.ID.String()+"/complete", staff.AccessToken).JSON(map[string]any{"scanCode": tag.Code}).
				Do().Expect(http.StatusOK).Decode(&done)
			if done.Status != "done" || done.Evidence == nil || done.Evidence.Scan == nil || done.Evidence.Scan.TagID != tag.ID {
				t.Fatalf("done %+v", done)
			}
			want("done", done)
		})
	}
}
