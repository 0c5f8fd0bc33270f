package records_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

type finding struct {
	ID         uuid.UUID  `json:"id"`
	ItemKey    string     `json:"itemKey"`
	Critical   bool       `json:"critical"`
	TaskID     *uuid.UUID `json:"taskId"`
	TaskStatus *string    `json:"taskStatus"`
}

type inspection struct {
	ID       uuid.UUID `json:"id"`
	Status   string    `json:"status"`
	Score    *string   `json:"score"`
	MaxScore *string   `json:"maxScore"`
	Percent  *string   `json:"percent"`
	Result   *string   `json:"result"`
	Frozen   bool      `json:"frozen"`
	Findings []finding `json:"findings"`
}

func templateBody() map[string]any {
	return map[string]any{"name": "Monthly food safety", "passPercent": 60, "sections": []map[string]any{
		{"title": "Cold holding", "items": []map[string]any{
			{"key": "walkin_temp", "prompt": "Walk-in at or below 41°F", "kind": "temperature", "weight": 3, "critical": true, "minF": "33", "maxF": "41"},
			{"key": "labels", "prompt": "Containers labelled", "kind": "pass_fail", "weight": 2, "dueDays": 3},
		}},
		{"title": "Sanitation", "items": []map[string]any{
			{"key": "sani", "prompt": "Sanitizer concentration", "kind": "score", "maxScore": 5},
			{"key": "comments", "prompt": "Other observations", "kind": "text"},
		}},
	}}
}

func (k *kitchen) inspection(engagement *uuid.UUID) inspection {
	k.t.Helper()
	var tmpl struct {
		ID uuid.UUID `json:"id"`
	}
	k.create("inspection-templates", templateBody(), &tmpl)
	body := map[string]any{"templateId": tmpl.ID, "siteId": k.site, "scheduledFor": "2026-03-02T14:00:00Z"}
	if engagement != nil {
		body["engagementId"] = *engagement
	}
	var in inspection
	k.create("inspections", body, &in)
	return in
}

func TestInspectionScoresAndTurnsFindingsIntoTasks(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	staff := k.env.Member(k.org, "inspector", k.site)
	in := k.inspection(nil)
	base := "inspections/" + in.ID.String()
	// Answers must fit their items.
	k.call(http.MethodPut, base+"/responses", staff.AccessToken).JSON(map[string]any{"answers": []map[string]any{{"key": "labels", "score": 3}}}).
		Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	k.call(http.MethodPut, base+"/responses", staff.AccessToken).JSON(map[string]any{"answers": []map[string]any{{"key": "nope", "passed": true}}}).
		Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	k.call(http.MethodPut, base+"/responses", staff.AccessToken).JSON(map[string]any{"answers": []map[string]any{{"key": "sani", "score": 6}}}).
		Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	// In range, a failed non-critical item, 4 of 5: 3 + 0 + 0.8 of 6 = 63.3% ≥ 60 → pass.
	k.call(http.MethodPut, base+"/responses", staff.AccessToken).JSON(map[string]any{"answers": []map[string]any{
		{"key": "walkin_temp", "temperatureF": "39"}, {"key": "labels", "passed": false, "note": "Undated rice"},
		{"key": "sani", "score": 4}, {"key": "comments", "text": "Drains clean."}}, "notes": "Good overall."}).
		Do().Expect(http.StatusOK).Decode(&in)
	if in.Status != "in_progress" || in.Result != nil {
		t.Fatalf("in progress %+v", in)
	}
	k.call(http.MethodPost, base+"/complete", staff.AccessToken).Do().Expect(http.StatusOK).Decode(&in)
	if in.Status != "completed" || *in.Score != "3.8" || *in.MaxScore != "6" || *in.Percent != "63.3" || *in.Result != "pass" {
		t.Fatalf("completed %+v", in)
	}
	if len(in.Findings) != 1 || in.Findings[0].ItemKey != "labels" || in.Findings[0].TaskID == nil || *in.Findings[0].TaskStatus != "open" {
		t.Fatalf("findings %+v", in.Findings)
	}
	var task struct {
		Source   string    `json:"source"`
		SourceID uuid.UUID `json:"sourceId"`
		SiteID   uuid.UUID `json:"siteId"`
		DueAt    string    `json:"dueAt"`
		Kind     string    `json:"kind"`
	}
	k.call(http.MethodGet, "tasks/"+in.Findings[0].TaskID.String(), k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&task)
	due, _ := time.Parse("2006-01-02 15:04:05-07:00", task.DueAt)
	if task.Source != "audit_finding" || task.SourceID != in.Findings[0].ID || task.SiteID != k.site || !due.Equal(k.env.Clock.Now().Add(3*24*time.Hour).Truncate(time.Second)) {
		t.Fatalf("task %+v (now %s)", task, k.env.Clock.Now())
	}
	// Completed: no more changes.
	k.call(http.MethodPost, base+"/complete", staff.AccessToken).Do().ExpectCode(http.StatusConflict, "conflict")
	k.call(http.MethodPut, base+"/responses", staff.AccessToken).JSON(map[string]any{"answers": []map[string]any{}}).Do().ExpectCode(http.StatusConflict, "conflict")
	// The corrective task done shows on the finding.
	k.call(http.MethodPost, "tasks/"+in.Findings[0].TaskID.String()+"/complete", staff.AccessToken).JSON(map[string]any{"note": "Relabelled."}).Do().Expect(http.StatusOK)
	k.call(http.MethodGet, base, staff.AccessToken).Do().Expect(http.StatusOK).Decode(&in)
	if *in.Findings[0].TaskStatus != "done" {
		t.Fatalf("finding after its task %+v", in.Findings[0])
	}
}

func TestAFailedCriticalItemCapsTheResult(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	in := k.inspection(nil)
	base := "inspections/" + in.ID.String()
	// Everything else perfect, the critical temperature out of range: 3 of 6 failed → fail
	// although... and unanswered items fail at completion.
	k.call(http.MethodPut, base+"/responses", k.owner.AccessToken).JSON(map[string]any{"answers": []map[string]any{
		{"key": "walkin_temp", "temperatureF": "47"}, {"key": "labels", "passed": true}}}).Do().Expect(http.StatusOK)
	k.call(http.MethodPost, base+"/complete", k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&in)
	if *in.Result != "fail" || *in.Score != "2" || len(in.Findings) != 2 {
		t.Fatalf("completed %+v", in)
	}
	crit := 0
	for _, f := range in.Findings {
		if f.Critical {
			crit++
		}
	}
	if crit != 1 {
		t.Fatalf("findings %+v", in.Findings)
	}

	// A high score does not save a failed critical item.
	in = k.inspection(nil)
	base = "inspections/" + in.ID.String()
	tmplHigh := map[string]any{"answers": []map[string]any{{"key": "walkin_temp", "temperatureF": "30"}, {"key": "labels", "passed": true}, {"key": "sani", "score": 5}}}
	k.call(http.MethodPut, base+"/responses", k.owner.AccessToken).JSON(tmplHigh).Do().Expect(http.StatusOK)
	k.call(http.MethodPost, base+"/complete", k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&in)
	if *in.Percent != "50" || *in.Result != "fail" {
		t.Fatalf("critical cap %+v", in)
	}
}

var uuidPattern = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// walkStrings calls fn on every string (keys included) of a decoded JSON value.
func walkStrings(v any, fn func(string)) {
	switch x := v.(type) {
	case string:
		fn(x)
	case map[string]any:
		for k, e := range x {
			fn(k)
			walkStrings(e, fn)
		}
	case []any:
		for _, e := range x {
			walkStrings(e, fn)
		}
	}
}

func TestSharedInspectionIsSanitizedAndRotates(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	staff := k.env.Member(k.org, "inspector", k.site)
	in := k.inspection(nil)
	base := "inspections/" + in.ID.String()
	k.call(http.MethodPut, base+"/responses", staff.AccessToken).JSON(map[string]any{"answers": []map[string]any{
		{"key": "walkin_temp", "temperatureF": "39"}, {"key": "labels", "passed": false, "note": "Ask " + staff.User.Email + " about the rice"},
		{"key": "sani", "score": 4}}}).Do().Expect(http.StatusOK)
	k.call(http.MethodPost, base+"/complete", staff.AccessToken).Do().Expect(http.StatusOK)
	// Staff cannot share.
	k.call(http.MethodPost, base+"/share", staff.AccessToken).Do().ExpectError(http.StatusForbidden, "")
	var link struct {
		URL   string `json:"url"`
		Token string `json:"token"`
	}
	k.call(http.MethodPost, base+"/share", k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&link)
	if !strings.HasSuffix(link.URL, "/share/insp/"+link.Token) {
		t.Fatalf("link %+v", link)
	}
	res := k.env.Call(http.MethodGet, "share/insp/"+link.Token).Do().Expect(http.StatusOK)
	var body any
	if err := json.Unmarshal(res.Body, &body); err != nil {
		t.Fatal(err)
	}
	emails := []string{k.owner.User.Email, staff.User.Email}
	walkStrings(body, func(s string) {
		if uuidPattern.MatchString(s) {
			t.Errorf("the shared report shows an id: %q", s)
		}
		for _, e := range emails {
			if strings.Contains(strings.ToLower(s), strings.ToLower(e)) {
				t.Errorf("the shared report shows a member email: %q", s)
			}
		}
	})
	var shared struct {
		Brand struct {
			Name, Primary, Accent string
		} `json:"brand"`
		SiteName string `json:"siteName"`
		Date     string `json:"date"`
		Percent  string `json:"percent"`
		Findings []struct {
			CorrectiveAction string `json:"correctiveAction"`
		} `json:"findings"`
	}
	res.Decode(&shared)
	// The establishment, as the shared quote and invoice carry it: the organization and the site.
	if shared.Brand.Name != "Harborview Kitchens" || shared.Brand.Primary == "" || shared.SiteName != "Main Kitchen" || shared.Percent != "63.3" || len(shared.Findings) != 1 || shared.Findings[0].CorrectiveAction != "open" {
		t.Fatalf("shared %s", res.Body)
	}
	// Reissue rotates: the old token is the same 404 as an unknown one.
	var again struct {
		Token string `json:"token"`
	}
	k.call(http.MethodPost, base+"/share", k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&again)
	old := k.env.Call(http.MethodGet, "share/insp/"+link.Token).Do().ExpectCode(http.StatusNotFound, "link_not_found")
	unknown := k.env.Call(http.MethodGet, "share/insp/"+strings.Repeat("A", 43)).Do().ExpectCode(http.StatusNotFound, "link_not_found")
	if old.Error != unknown.Error {
		t.Fatalf("rotated %q, unknown %q", old.Error, unknown.Error)
	}
	k.env.Call(http.MethodGet, "share/insp/"+again.Token).Do().Expect(http.StatusOK)
}

func TestEngagementFinalizesOnceAndFreezes(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	rcv := k.receiver("engagement.finalized")
	var e struct {
		ID            uuid.UUID   `json:"id"`
		Status        string      `json:"status"`
		InspectionIDs []uuid.UUID `json:"inspectionIds"`
		Report        *struct {
			InspectionCount int     `json:"inspectionCount"`
			Passed          int     `json:"passed"`
			OpenFindings    int     `json:"openFindings"`
			AveragePercent  *string `json:"averagePercent"`
		} `json:"report"`
	}
	k.create("engagements", map[string]any{"name": "Q1 audit", "siteIds": []uuid.UUID{k.site}, "auditor": "Coastal Food Safety",
		"period": map[string]any{"from": "2026-01-01", "to": "2026-03-31"}}, &e)
	in := k.inspection(&e.ID)
	base := "engagements/" + e.ID.String()
	// Not every inspection completed.
	k.call(http.MethodPost, base+"/finalize", k.owner.AccessToken).Do().ExpectCode(http.StatusConflict, "conflict")
	// An inspection outside the engagement's period does not join it.
	var tmplOut struct {
		ID uuid.UUID `json:"id"`
	}
	k.create("inspection-templates", templateBody(), &tmplOut)
	k.call(http.MethodPost, "inspections", k.owner.AccessToken).JSON(map[string]any{"templateId": tmplOut.ID, "siteId": k.site,
		"scheduledFor": "2026-04-01T14:00:00Z", "engagementId": e.ID}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	k.call(http.MethodPut, "inspections/"+in.ID.String()+"/responses", k.owner.AccessToken).JSON(map[string]any{"answers": []map[string]any{
		{"key": "walkin_temp", "temperatureF": "39"}, {"key": "labels", "passed": false}, {"key": "sani", "score": 4}}}).Do().Expect(http.StatusOK)
	k.call(http.MethodPost, "inspections/"+in.ID.String()+"/complete", k.owner.AccessToken).Do().Expect(http.StatusOK)
	k.call(http.MethodPost, base+"/finalize", k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&e)
	if e.Status != "finalized" || e.Report == nil || e.Report.InspectionCount != 1 || e.Report.Passed != 1 || e.Report.OpenFindings != 1 ||
		*e.Report.AveragePercent != "63.3" || len(e.InspectionIDs) != 1 {
		t.Fatalf("finalized %+v", e)
	}
	// Immutable: no second finalize, no new inspection, the inspection frozen.
	k.call(http.MethodPost, base+"/finalize", k.owner.AccessToken).Do().ExpectCode(http.StatusConflict, "conflict")
	var tmpl struct {
		ID uuid.UUID `json:"id"`
	}
	k.create("inspection-templates", templateBody(), &tmpl)
	k.call(http.MethodPost, "inspections", k.owner.AccessToken).JSON(map[string]any{"templateId": tmpl.ID, "siteId": k.site,
		"scheduledFor": "2026-03-02T14:00:00Z", "engagementId": e.ID}).Do().ExpectCode(http.StatusConflict, "conflict")
	var frozen inspection
	k.call(http.MethodGet, "inspections/"+in.ID.String(), k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&frozen)
	if !frozen.Frozen {
		t.Fatalf("not frozen %+v", frozen)
	}
	got := rcv.deliveries("engagement.finalized")
	if len(got) != 1 || got[0]["engagementId"] != e.ID.String() || len(got[0]) != 1 {
		t.Fatalf("engagement.finalized %+v", got)
	}
}

// Parallel completions: one wins, the others are 409, and each finding has one task.
func TestParallelInspectionCompletion(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	in := k.inspection(nil)
	base := "inspections/" + in.ID.String()
	k.call(http.MethodPut, base+"/responses", k.owner.AccessToken).JSON(map[string]any{"answers": []map[string]any{
		{"key": "walkin_temp", "temperatureF": "39"}, {"key": "labels", "passed": false}}}).Do().Expect(http.StatusOK)
	const n = 8
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = k.call(http.MethodPost, base+"/complete", k.owner.AccessToken).Do().Status
		}()
	}
	wg.Wait()
	wins := 0
	for _, s := range statuses {
		if s == http.StatusOK {
			wins++
		} else if s != http.StatusConflict {
			t.Fatalf("status %d", s)
		}
	}
	if wins != 1 {
		t.Fatalf("%d completions won: %v", wins, statuses)
	}
	var tasks []struct {
		SourceID uuid.UUID `json:"sourceId"`
	}
	k.call(http.MethodGet, "tasks?source=audit_finding", k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&tasks)
	k.call(http.MethodGet, base, k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&in)
	// labels failed, sani unanswered: two findings, two tasks.
	if len(in.Findings) != 2 || len(tasks) != 2 {
		t.Fatalf("findings %+v, tasks %+v", in.Findings, tasks)
	}
}
