package tasks_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/config"
)

func TestCreateGetAndListTasks(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	guide := k.create("guides", map[string]any{"title": "Cooler log", "body": "Probe the centre shelf.", "siteIds": []uuid.UUID{k.site}})
	a := k.newTask(map[string]any{
		"title": "Log walk-in cooler temperature", "kind": "temperature_log", "priority": "high", "required": true,
		"requiresScan": true, "targetTagId": k.tagID, "requiresTemp": true, "tempRange": map[string]any{"minF": "33", "maxF": "41"},
		"assignee": map[string]any{"positionId": k.position}, "linkedDocIds": []uuid.UUID{guide, guide},
		"dueAt": "2026-03-02T20:00:00Z", // RFC 3339 accepted, written back in the spec's form
	})
	if a.DueAt != "2026-03-02 14:00:00-06:00" || a.Status != "open" || a.Source != "manual" || a.SourceID != nil ||
		a.Assignee == nil || a.Assignee.Name != "Opening cook" || a.Target == nil || a.Target.Name != "Walk-in cooler" ||
		a.Target.Type != "equipment" || len(a.LinkedDocIDs) != 1 || len(a.AttachmentMediaIDs) != 0 || !a.Required {
		t.Fatalf("task %+v", a)
	}
	got := k.get(a.ID)
	if len(got.Guides) != 1 || got.Guides[0].Title != "Cooler log" || got.Photos == nil {
		t.Fatalf("task detail %+v", got)
	}
	b := k.newTask(map[string]any{"title": "Mop", "kind": "cleaning", "dueAt": "2026-03-02 09:00:00-06:00"})
	c := k.newTask(map[string]any{"title": "Close", "kind": "closing", "dueAt": "2026-03-02 22:00:00-06:00"})

	// Sorted by dueAt, paged.
	all := k.list("?siteId=" + k.site.String())
	if len(all) != 3 || all[0].ID != b.ID || all[1].ID != a.ID || all[2].ID != c.ID {
		t.Fatalf("list %+v", all)
	}
	res := k.call(http.MethodGet, "tasks?siteId="+k.site.String()+"&limit=2", k.owner.AccessToken).Do().Expect(http.StatusOK)
	link := res.Header.Get("Link")
	if !strings.Contains(link, `rel="next"`) || !strings.Contains(link, "siteId=") {
		t.Fatalf("Link %q", link)
	}
	next := link[strings.Index(link, "/v1/")+4 : strings.Index(link, ">")]
	var page2 []task
	k.env.Call(http.MethodGet, next).Token(k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&page2)
	if len(page2) != 1 || page2[0].ID != c.ID {
		t.Fatalf("page 2 %+v", page2)
	}
	// Filters.
	for q, want := range map[string]int{
		"?kind=cleaning": 1, "?status=open": 3, "?status=done": 0, "?positionId=" + k.position.String(): 1,
		"?source=manual": 3, "?source=routine": 0, "?dueFrom=2026-03-02 10:00:00-06:00": 2,
		"?dueFrom=2026-03-02T15:00:00Z&dueTo=2026-03-02T21:00:00Z": 2, "?dueTo=2026-03-02 09:00:00-06:00": 1,
	} {
		q = strings.ReplaceAll(q, " ", "%20")
		q = strings.ReplaceAll(q, "+", "%2B")
		if got := k.list(q); len(got) != want {
			t.Errorf("%s: %d tasks, want %d", q, len(got), want)
		}
	}
	// A member holding the position sees the task as theirs.
	cook := k.env.Member(k.org, "inspector", k.site)
	k.call(http.MethodPut, "positions/"+k.position.String()+"/members", k.owner.AccessToken).JSON(map[string]any{"userIds": []uuid.UUID{cook.User.ID}}).Do().Expect(http.StatusOK)
	if mine := k.list("?assigneeId=" + cook.User.ID.String()); len(mine) != 1 || mine[0].ID != a.ID {
		t.Fatalf("my tasks %+v", mine)
	}
	// Viewers read; a site-limited member of another site does not see them.
	viewer := k.env.Member(k.org, "viewer")
	k.call(http.MethodGet, "tasks/"+a.ID.String(), viewer.AccessToken).Do().Expect(http.StatusOK)
	north := k.env.Site(k.owner.AccessToken, k.org, "North")
	elsewhere := k.env.Member(k.org, "manager", north)
	var seen []task
	k.call(http.MethodGet, "tasks", elsewhere.AccessToken).Do().Expect(http.StatusOK).Decode(&seen)
	if len(seen) != 0 {
		t.Fatalf("another site's member sees %+v", seen)
	}
	k.call(http.MethodGet, "tasks/"+a.ID.String(), elsewhere.AccessToken).Do().ExpectError(http.StatusNotFound, "Task not found")
	other, otherOrg := k.env.NewOwner("Elsewhere")
	k.env.Call(http.MethodGet, "orgs/"+otherOrg.String()+"/tasks/"+a.ID.String()).Token(other.AccessToken).Do().ExpectError(http.StatusNotFound, "Task not found")
}

func TestCreateTaskRefusals(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	north := k.env.Site(k.owner.AccessToken, k.org, "North")
	northPos := k.create("positions", map[string]any{"siteId": north, "name": "Dish"})
	northGuide := k.create("guides", map[string]any{"title": "North only", "body": "x", "siteIds": []uuid.UUID{north}})
	northOnly := k.env.Member(k.org, "inspector", north)
	base := map[string]any{"siteId": k.site, "title": "Wipe", "dueAt": "2026-03-02 14:00:00-06:00"}
	with := func(kv ...any) map[string]any {
		m := map[string]any{}
		for key, v := range base {
			m[key] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	for name, c := range map[string]struct {
		body  map[string]any
		field string
	}{
		"dueAt without offset":   {with("dueAt", "2026-03-02 14:00:00"), "dueAt"},
		"dueAt in year 0":        {with("dueAt", "0000-01-01 00:00:00Z"), "dueAt"},
		"dueAt before 1900":      {with("dueAt", "1899-12-31T23:59:59Z"), "dueAt"},
		"dueAt past 9998":        {with("dueAt", "9999-12-31 23:00:00-06:00"), "dueAt"},
		"scan without a tag":     {with("requiresScan", true), "targetTagId"},
		"unknown tag":            {with("requiresScan", true, "targetTagId", uuid.New()), "targetTagId"},
		"range without temp":     {with("tempRange", map[string]any{"minF": "33", "maxF": "41"}), "tempRange"},
		"range upside down":      {with("requiresTemp", true, "tempRange", map[string]any{"minF": "41", "maxF": "33"}), "tempRange"},
		"position of other site": {with("assignee", map[string]any{"positionId": northPos}), "assignee.positionId"},
		"member without access":  {with("assignee", map[string]any{"userId": northOnly.User.ID}), "assignee.userId"},
		"not a member":           {with("assignee", map[string]any{"userId": uuid.New()}), "assignee.userId"},
		"both assignees":         {with("assignee", map[string]any{"userId": k.owner.User.ID, "positionId": k.position}), "assignee"},
		"guide for other site":   {with("linkedDocIds", []uuid.UUID{northGuide}), "linkedDocIds"},
		"blank title":            {with("title", "   "), "title"},
		"bad kind":               {with("kind", "juggling"), ""},
	} {
		e := k.call(http.MethodPost, "tasks", k.owner.AccessToken).JSON(c.body).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
		if c.field != "" && (len(e.Details) == 0 || e.Details[0].Field != c.field) {
			t.Errorf("%s: details %+v, want field %s", name, e.Details, c.field)
		}
	}
	inspector := k.env.Member(k.org, "inspector")
	k.call(http.MethodPost, "tasks", inspector.AccessToken).JSON(base).Do().Expect(http.StatusForbidden)
	k.call(http.MethodPost, "tasks", northOnly.AccessToken).JSON(base).Do().Expect(http.StatusForbidden)
	manager := k.env.Member(k.org, "manager", north)
	k.call(http.MethodPost, "tasks", manager.AccessToken).JSON(base).Do().ExpectError(http.StatusNotFound, "Site not found")
	if n := k.count(`SELECT count(*) FROM tasks WHERE org_id = $1`, k.org); n != 0 {
		t.Fatalf("%d tasks written by refused requests", n)
	}
}

func TestCompleteWithEvidence(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	// A second tag on the same cooler (same label, same site) also satisfies the scan; a tag of
	// the dry store does not.
	var same, other struct {
		Code string `json:"code"`
	}
	k.call(http.MethodPost, "tags", k.owner.AccessToken).JSON(map[string]any{"targetType": "equipment", "label": "Walk-in cooler", "siteId": k.site}).Do().Expect(http.StatusCreated).Decode(&same)
	k.call(http.MethodPost, "tags", k.owner.AccessToken).JSON(map[string]any{"targetType": "storage_location", "label": "Dry store", "siteId": k.site}).Do().Expect(http.StatusCreated).Decode(&other)
	_, otherOrg := k.env.NewOwner("Elsewhere")
	_ = otherOrg

	tk := k.newTask(map[string]any{
		"title": "Cooler log", "kind": "temperature_log", "requiresScan": true, "targetTagId": k.tagID,
		"requiresPhoto": true, "requiresTemp": true, "tempRange": map[string]any{"minF": "33", "maxF": "41"},
	})
	staff := k.env.Member(k.org, "inspector", k.site)
	path := "tasks/" + tk.ID.String() + "/complete"

	// Everything missing: one 400 naming every problem, nothing written.
	e := k.call(http.MethodPost, path, staff.AccessToken).JSON(map[string]any{}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	fields := []string{}
	for _, d := range e.Details {
		fields = append(fields, d.Field)
	}
	if strings.Join(fields, ",") != "scanCode,photos,temperature" || !strings.Contains(e.Details[0].Message, "Walk-in cooler") {
		t.Fatalf("details %+v", e.Details)
	}
	// Wrong tags.
	for _, code := range []string{other.Code, "NOSUCHCODE"} {
		k.call(http.MethodPost, path, staff.AccessToken).JSON(map[string]any{"scanCode": code}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	}
	if got := k.get(tk.ID); got.Status != "open" || got.Evidence != nil {
		t.Fatalf("refused completion wrote %+v", got)
	}
	// Photo: the board media checks apply (an SVG is refused).
	ct, svg := multipartFile("x.svg", "image/svg+xml", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`))
	k.call(http.MethodPost, "tasks/"+tk.ID.String()+"/photos", staff.AccessToken).Raw(ct, svg).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	k.photo(tk.ID, k.env.Member(k.org, "viewer").AccessToken).Expect(http.StatusForbidden)
	var ph struct {
		MediaID uuid.UUID `json:"mediaId"`
		URL     string    `json:"url"`
	}
	k.photo(tk.ID, staff.AccessToken).Expect(http.StatusCreated).Decode(&ph)
	img := k.env.Call(http.MethodGet, strings.TrimPrefix(ph.URL, "/v1/")).Token(k.owner.AccessToken).Do().Expect(http.StatusOK)
	if img.Header.Get("Content-Type") != "image/png" || len(img.Body) != len(onePixelPNG) {
		t.Fatalf("photo served as %s, %d bytes", img.Header.Get("Content-Type"), len(img.Body))
	}
	// In range, in Celsius (4 °C = 39.2 °F), scanning the cooler's other tag.
	var done task
	k.call(http.MethodPost, path, staff.AccessToken).JSON(map[string]any{"scanCode": strings.ToLower(same.Code), "temperature": map[string]any{"value": "4", "unit": "C"}, "note": "Fine."}).
		Do().Expect(http.StatusOK).Decode(&done)
	if done.Status != "done" || done.Late || done.Evidence == nil || done.Evidence.OutOfRange || done.Evidence.Temperature.Fahrenheit != "39.2" ||
		done.Evidence.Scan == nil || *done.Evidence.Note != "Fine." || done.CompletedBy == nil || *done.CompletedBy != staff.User.ID ||
		len(done.AttachmentMediaIDs) != 1 {
		t.Fatalf("done %+v", done)
	}
	if len(k.alerts("")) != 0 {
		t.Fatal("an in-range reading opened an alert")
	}
	// Done is final: completing again, adding or removing a photo is refused.
	k.call(http.MethodPost, path, staff.AccessToken).JSON(map[string]any{}).Do().ExpectCode(http.StatusConflict, "conflict")
	k.photo(tk.ID, staff.AccessToken).ExpectCode(http.StatusConflict, "conflict")
	k.call(http.MethodDelete, "tasks/"+tk.ID.String()+"/photos/"+ph.MediaID.String(), staff.AccessToken).Do().ExpectCode(http.StatusConflict, "conflict")
}

func TestOutOfRangeOpensAnExcursionAndItsTask(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	tk := k.newTask(map[string]any{"title": "Cooler log", "kind": "temperature_log", "priority": "critical", "requiresTemp": true,
		"tempRange": map[string]any{"minF": "33", "maxF": "41"}})
	var done task
	k.call(http.MethodPost, "tasks/"+tk.ID.String()+"/complete", k.owner.AccessToken).JSON(map[string]any{"temperature": map[string]any{"value": "45.5", "unit": "F"}}).
		Do().Expect(http.StatusOK).Decode(&done)
	if done.Status != "done" || !done.Evidence.OutOfRange || done.Evidence.AlertID == nil {
		t.Fatalf("done %+v", done.Evidence)
	}
	open := k.alerts("")
	if len(open) != 1 || open[0].Kind != "temperature_excursion" || open[0].Severity != "critical" || open[0].Subject.ID != tk.ID ||
		open[0].ID != *done.Evidence.AlertID || !strings.Contains(open[0].Message, "45.5") {
		t.Fatalf("alerts %+v", open)
	}
	if ev := k.events(); len(ev) != 1 || ev[0]["kind"] != "temperature_excursion" {
		t.Fatalf("events %+v", ev)
	}
	// The excursion made its follow-up task, once.
	follow := k.list("?source=sensor_alert")
	if len(follow) != 1 || *follow[0].SourceID != open[0].ID || follow[0].Priority != "high" || follow[0].Kind != "maintenance" {
		t.Fatalf("follow-up %+v", follow)
	}
	// Completing the follow-up resolves nothing else.
	k.call(http.MethodPost, "tasks/"+follow[0].ID.String()+"/complete", k.owner.AccessToken).JSON(map[string]any{}).Do().Expect(http.StatusOK)
	if open := k.alerts(""); len(open) != 1 {
		t.Fatalf("alerts after the follow-up: %+v", open)
	}
}

func TestConcurrentCompletionsHaveOneWinner(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	tk := k.newTask(nil)
	const n = 8
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = k.env.With(t).Call(http.MethodPost, "orgs/"+k.org.String()+"/tasks/"+tk.ID.String()+"/complete").Token(k.owner.AccessToken).
				JSON(map[string]any{"note": "me"}).Do().Status
		}()
	}
	wg.Wait()
	won := 0
	for _, c := range codes {
		switch c {
		case http.StatusOK:
			won++
		case http.StatusConflict:
		default:
			t.Fatalf("status %d", c)
		}
	}
	if won != 1 {
		t.Fatalf("%d winners: %v", won, codes)
	}
	if n := k.count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'completeTask'`, k.org); n != 1 {
		t.Fatalf("%d audit rows", n)
	}
}

func TestMissedTasksOpenAnAlertOnceAndLateCompletionResolvesIt(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	_, wbToken := k.env.PairDevice(k.owner.AccessToken, k.org, k.site, "wallboard_boh")
	// Due 09:30 UTC with the default grace (30 minutes); the clock is at 09:00.
	req := k.newTask(map[string]any{"title": "Opening checklist", "kind": "opening", "required": true, "priority": "high", "dueAt": "2026-03-02T09:30:00Z"})
	opt := k.newTask(map[string]any{"title": "Polish the pass", "dueAt": "2026-03-02T09:30:00Z"})
	later := k.newTask(map[string]any{"title": "Later", "required": true, "dueAt": "2026-03-02T09:30:00Z", "graceMinutes": 120})

	k.advance(59 * time.Minute) // 09:59: within the grace
	k.sweep()
	if got := k.get(req.ID); got.Status != "open" {
		t.Fatalf("missed within its grace: %s", got.Status)
	}
	k.advance(2 * time.Minute) // 10:01: past it
	// Sweeps on several replicas at once: each task moves, and its alert opens, once.
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); k.sweep() }()
	}
	wg.Wait()
	k.sweep()
	if got := k.get(req.ID); got.Status != "missed" {
		t.Fatalf("status %s", got.Status)
	}
	if got := k.get(opt.ID); got.Status != "missed" {
		t.Fatalf("optional task status %s", got.Status)
	}
	if got := k.get(later.ID); got.Status != "open" {
		t.Fatalf("a task with a longer grace moved: %s", got.Status)
	}
	open := k.alerts("")
	if len(open) != 1 || open[0].Kind != "task_missed" || open[0].Severity != "warning" || open[0].Subject.ID != req.ID ||
		!strings.Contains(open[0].Message, "Opening checklist") || !strings.Contains(open[0].Message, "03:30") {
		t.Fatalf("alerts %+v", open)
	}
	if ev := k.events(); len(ev) != 1 || ev[0]["kind"] != "task_missed" {
		t.Fatalf("events %+v", ev)
	}
	var state struct {
		Alerts []struct{ Kind, Severity, Message string } `json:"alerts"`
	}
	k.env.Call(http.MethodGet, "device/state").DeviceToken(wbToken).Do().Expect(http.StatusOK).Decode(&state)
	if len(state.Alerts) != 1 || state.Alerts[0].Kind != "task_missed" {
		t.Fatalf("wallboard %+v", state.Alerts)
	}
	// Completing it late is allowed, marks it late and resolves its alert.
	var done task
	k.call(http.MethodPost, "tasks/"+req.ID.String()+"/complete", k.owner.AccessToken).JSON(map[string]any{}).Do().Expect(http.StatusOK).Decode(&done)
	if done.Status != "done" || !done.Late {
		t.Fatalf("late completion %+v", done)
	}
	if open := k.alerts(""); len(open) != 0 {
		t.Fatalf("still open %+v", open)
	}
	k.env.Call(http.MethodGet, "device/state").DeviceToken(wbToken).Do().Expect(http.StatusOK).Decode(&state)
	if len(state.Alerts) != 0 {
		t.Fatalf("wallboard still shows %+v", state.Alerts)
	}
	// The clock moving on (or back) changes nothing already decided.
	k.advance(3 * time.Hour)
	k.sweep()
	if n := len(k.events()); n != 2 { // the later task's, now
		t.Fatalf("%d events", n)
	}
	k.set(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	k.sweep()
	if got := k.get(later.ID); got.Status != "missed" {
		t.Fatalf("clock moved back: %s", got.Status)
	}
}

func TestReassignAndDocs(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	north := k.env.Site(k.owner.AccessToken, k.org, "North")
	tk := k.newTask(nil)
	path := "tasks/" + tk.ID.String() + "/reassign"
	cook := k.env.Member(k.org, "inspector", k.site)
	northCook := k.env.Member(k.org, "inspector", north)
	northPos := k.create("positions", map[string]any{"siteId": north, "name": "Dish"})
	var got task
	k.call(http.MethodPost, path, k.owner.AccessToken).JSON(map[string]any{"userId": cook.User.ID}).Do().Expect(http.StatusOK).Decode(&got)
	if got.Assignee == nil || *got.Assignee.UserID != cook.User.ID || got.Assignee.Name == "" {
		t.Fatalf("assignee %+v", got.Assignee)
	}
	k.call(http.MethodPost, path, k.owner.AccessToken).JSON(map[string]any{"userId": northCook.User.ID}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	k.call(http.MethodPost, path, k.owner.AccessToken).JSON(map[string]any{"positionId": northPos}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	k.call(http.MethodPost, path, k.owner.AccessToken).JSON(map[string]any{}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	k.call(http.MethodPost, path, cook.AccessToken).JSON(map[string]any{"positionId": k.position}).Do().Expect(http.StatusForbidden)
	got = task{}
	k.call(http.MethodPost, path, k.owner.AccessToken).JSON(map[string]any{"positionId": k.position}).Do().Expect(http.StatusOK).Decode(&got)
	if got.Assignee == nil || got.Assignee.PositionID == nil || got.Assignee.UserID != nil {
		t.Fatalf("assignee %+v", got.Assignee)
	}

	everywhere := k.create("guides", map[string]any{"title": "Knife safety", "body": "Cut away."})
	northGuide := k.create("guides", map[string]any{"title": "North", "body": "x", "siteIds": []uuid.UUID{north}})
	k.call(http.MethodPut, "tasks/"+tk.ID.String()+"/docs", k.owner.AccessToken).JSON(map[string]any{"docIds": []uuid.UUID{northGuide}}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	k.call(http.MethodPut, "tasks/"+tk.ID.String()+"/docs", k.owner.AccessToken).JSON(map[string]any{"docIds": []uuid.UUID{everywhere}}).Do().Expect(http.StatusOK).Decode(&got)
	if len(got.LinkedDocIDs) != 1 || got.LinkedDocIDs[0] != everywhere {
		t.Fatalf("docs %+v", got.LinkedDocIDs)
	}
}

func TestPositionsAndGuidesScope(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	north := k.env.Site(k.owner.AccessToken, k.org, "North")
	northCook := k.env.Member(k.org, "inspector", north)
	path := "positions/" + k.position.String()
	k.call(http.MethodPut, path+"/members", k.owner.AccessToken).JSON(map[string]any{"userIds": []uuid.UUID{northCook.User.ID}}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	k.call(http.MethodPut, path, k.owner.AccessToken).JSON(map[string]any{"siteId": north, "name": "x"}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	var p struct {
		Name string `json:"name"`
	}
	k.call(http.MethodPut, path, k.owner.AccessToken).JSON(map[string]any{"siteId": k.site, "name": "Opener"}).Do().Expect(http.StatusOK).Decode(&p)
	if p.Name != "Opener" {
		t.Fatalf("renamed %+v", p)
	}
	// Guides: a site-limited manager sees guides for every site and for theirs, writes only theirs.
	everywhere := k.create("guides", map[string]any{"title": "Everywhere", "body": "x"})
	mainOnly := k.create("guides", map[string]any{"title": "Main", "body": "x", "siteIds": []uuid.UUID{k.site}})
	nm := k.env.Member(k.org, "manager", north)
	var gs []struct {
		ID uuid.UUID `json:"id"`
	}
	k.call(http.MethodGet, "guides", nm.AccessToken).Do().Expect(http.StatusOK).Decode(&gs)
	if len(gs) != 1 || gs[0].ID != everywhere {
		t.Fatalf("north manager sees %+v", gs)
	}
	k.call(http.MethodGet, "guides/"+mainOnly.String(), nm.AccessToken).Do().ExpectError(http.StatusNotFound, "Guide not found")
	k.call(http.MethodPut, "guides/"+everywhere.String(), nm.AccessToken).JSON(map[string]any{"title": "x", "body": "y", "siteIds": []uuid.UUID{north}}).Do().ExpectCode(http.StatusForbidden, "site_scope_exceeded")
	k.call(http.MethodPost, "guides", nm.AccessToken).JSON(map[string]any{"title": "x", "body": "y"}).Do().ExpectCode(http.StatusForbidden, "site_scope_exceeded")
	k.call(http.MethodPost, "guides", nm.AccessToken).JSON(map[string]any{"title": "x", "body": "y", "siteIds": []uuid.UUID{k.site}}).Do().ExpectError(http.StatusNotFound, "Site not found")
	k.call(http.MethodPost, "guides", nm.AccessToken).JSON(map[string]any{"title": "x", "body": "y", "siteIds": []uuid.UUID{north}}).Do().Expect(http.StatusCreated)
	k.call(http.MethodPost, "guides", k.owner.AccessToken).JSON(map[string]any{"title": "x", "body": "y", "mediaIds": []uuid.UUID{uuid.New()}}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	// An image uploaded for boards can illustrate a guide.
	ct, body := multipartFile("plating.png", "image/png", onePixelPNG)
	var m struct {
		Key uuid.UUID `json:"key"`
	}
	k.call(http.MethodPost, "media", k.owner.AccessToken).Raw(ct, body).Do().Expect(http.StatusCreated).Decode(&m)
	var g struct {
		MediaIDs []uuid.UUID `json:"mediaIds"`
	}
	k.call(http.MethodPut, "guides/"+everywhere.String(), k.owner.AccessToken).JSON(map[string]any{"title": "Everywhere", "body": "# Steps", "mediaIds": []uuid.UUID{m.Key, m.Key}}).
		Do().Expect(http.StatusOK).Decode(&g)
	if len(g.MediaIDs) != 1 || g.MediaIDs[0] != m.Key {
		t.Fatalf("guide media %+v", g.MediaIDs)
	}
}

func TestHuddleActionsBecomeTasks(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	var h struct {
		ID      uuid.UUID   `json:"id"`
		TaskIDs []uuid.UUID `json:"taskIds"`
	}
	k.call(http.MethodPost, "huddles", k.owner.AccessToken).JSON(map[string]any{
		"siteId": k.site, "date": "2026-03-02", "dayPart": "lunch", "notes": "Gasket torn.",
		"actions": []map[string]any{
			{"title": "Call maintenance", "dueAt": "2026-03-02 11:00:00-06:00", "priority": "high", "assignee": map[string]any{"userId": k.owner.User.ID}},
			{"title": "86 the halibut", "dueAt": "2026-03-02 10:30:00-06:00", "assignee": map[string]any{"positionId": k.position}},
		},
	}).Do().Expect(http.StatusCreated).Decode(&h)
	if len(h.TaskIDs) != 2 {
		t.Fatalf("huddle %+v", h)
	}
	got := k.list("?source=huddle")
	if len(got) != 2 || got[0].Title != "86 the halibut" || *got[0].SourceID != h.ID || !got[0].Required || got[1].Priority != "high" {
		t.Fatalf("huddle tasks %+v", got)
	}
	// A bad action refuses the whole huddle.
	k.call(http.MethodPost, "huddles", k.owner.AccessToken).JSON(map[string]any{"siteId": k.site, "date": "2026-03-02",
		"actions": []map[string]any{{"title": "x", "dueAt": "soon"}}}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	var hs []struct {
		ID      uuid.UUID   `json:"id"`
		TaskIDs []uuid.UUID `json:"taskIds"`
	}
	k.call(http.MethodGet, "huddles?siteId="+k.site.String(), k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&hs)
	if len(hs) != 1 || len(hs[0].TaskIDs) != 2 {
		t.Fatalf("huddles %+v", hs)
	}
}

func TestPhotosAttachAndRemove(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	tk := k.newTask(map[string]any{"requiresPhoto": true})
	staff := k.env.Member(k.org, "inspector", k.site)
	var ph struct {
		MediaID uuid.UUID `json:"mediaId"`
	}
	res := k.photo(tk.ID, staff.AccessToken).Expect(http.StatusCreated).Decode(&ph)
	if loc := res.Header.Get("Location"); !strings.HasSuffix(loc, "/tasks/"+tk.ID.String()+"/photos/"+ph.MediaID.String()) {
		t.Fatalf("Location %q", loc)
	}
	if got := k.get(tk.ID); len(got.AttachmentMediaIDs) != 1 || got.AttachmentMediaIDs[0] != ph.MediaID || len(got.Photos) != 1 {
		t.Fatalf("task %+v", got)
	}
	// A PNG declared as JPEG is refused, as board media is.
	ct, body := multipartFile("x.jpg", "image/jpeg", onePixelPNG)
	k.call(http.MethodPost, "tasks/"+tk.ID.String()+"/photos", staff.AccessToken).Raw(ct, body).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	path := "tasks/" + tk.ID.String() + "/photos/" + ph.MediaID.String()
	k.call(http.MethodDelete, path, k.env.Member(k.org, "viewer").AccessToken).Do().Expect(http.StatusForbidden)
	k.call(http.MethodDelete, path, staff.AccessToken).Do().Expect(http.StatusNoContent)
	k.call(http.MethodDelete, path, staff.AccessToken).Do().ExpectError(http.StatusNotFound, "Photo not found")
	k.call(http.MethodGet, path, staff.AccessToken).Do().ExpectError(http.StatusNotFound, "Photo not found")
	if got := k.get(tk.ID); len(got.AttachmentMediaIDs) != 0 {
		t.Fatalf("photos after removal %+v", got.AttachmentMediaIDs)
	}
	// Without its photo the task cannot be completed.
	k.call(http.MethodPost, "tasks/"+tk.ID.String()+"/complete", staff.AccessToken).JSON(map[string]any{}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
}

// The walk-through's end: a required task missed reaches a webhook subscriber as alert.created.
func TestAMissedTaskReachesWebhooks(t *testing.T) {
	t.Parallel()
	k := newKitchen(t, func(c *config.Config) { c.WebhookAllowPrivate = true })
	var mu sync.Mutex
	var bodies []map[string]any
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		mu.Lock()
		bodies = append(bodies, m)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rcv.Close)
	k.call(http.MethodPost, "webhooks", k.owner.AccessToken).JSON(map[string]any{"url": rcv.URL + "/hooks", "events": []string{"alert.created"}}).
		Do().Expect(http.StatusCreated)
	tk := k.newTask(map[string]any{"title": "Closing checklist", "required": true, "priority": "critical", "dueAt": "2026-03-02T09:10:00Z", "graceMinutes": 0})
	k.advance(11 * time.Minute)
	k.sweep()
	k.env.DrainWebhooks()
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 1 || bodies[0]["event"] != "alert.created" {
		t.Fatalf("deliveries %+v", bodies)
	}
	data, _ := bodies[0]["data"].(map[string]any)
	if data["kind"] != "task_missed" || data["severity"] != "critical" || data["siteId"] != k.site.String() {
		t.Fatalf("data %+v", data)
	}
	open := k.alerts("")
	if len(open) != 1 || open[0].ID.String() != data["alertId"] || open[0].Subject.ID != tk.ID {
		t.Fatalf("alerts %+v", open)
	}
}
