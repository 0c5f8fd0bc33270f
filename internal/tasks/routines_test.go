package tasks_test

import (
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/alerts"
)

type routine struct {
	ID              uuid.UUID `json:"id"`
	Active          bool      `json:"active"`
	NextOccurrences []string  `json:"nextOccurrences"`
	StartsOn        string    `json:"startsOn"`
}

func (k *kitchen) routine(site uuid.UUID, rule string, items ...map[string]any) routine {
	k.t.Helper()
	if len(items) == 0 {
		items = []map[string]any{{"title": "Log walk-in cooler temperature", "kind": "temperature_log", "required": true}}
	}
	var r routine
	k.call(http.MethodPost, "routines", k.owner.AccessToken).JSON(map[string]any{"siteId": site, "name": "Cooler temperatures", "rrule": rule, "items": items}).
		Do().Expect(http.StatusCreated).Decode(&r)
	return r
}

// dues returns the dueAt of a routine's tasks, earliest first.
func (k *kitchen) dues(routineID uuid.UUID) []string {
	k.t.Helper()
	var out []string
	for _, t := range k.list("?source=routine&limit=500") {
		if t.SourceID != nil && *t.SourceID == routineID {
			out = append(out, t.DueAt)
		}
	}
	sort.Strings(out)
	return out
}

func TestRoutineMakesTheNext24HoursOnceAcrossReplicas(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	// 09:00 UTC is 03:00 in Chicago: the next 24 hours hold today's four occurrences.
	r := k.routine(k.site, "FREQ=DAILY;BYHOUR=6,10,14,18;BYMINUTE=0",
		map[string]any{"title": "Cooler log", "kind": "temperature_log", "required": true, "requiresScan": true, "targetTagId": k.tagID,
			"assignee": map[string]any{"positionId": k.position}, "dueAfterMinutes": 15, "graceMinutes": 45})
	want := []string{"2026-03-02 06:15:00-06:00", "2026-03-02 10:15:00-06:00", "2026-03-02 14:15:00-06:00", "2026-03-02 18:15:00-06:00"}
	if got := k.dues(r.ID); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("tasks due %v, want %v", got, want)
	}
	if len(r.NextOccurrences) != 5 || r.NextOccurrences[0] != "2026-03-02 06:00:00-06:00" || r.NextOccurrences[4] != "2026-03-03 06:00:00-06:00" {
		t.Fatalf("next occurrences %v", r.NextOccurrences)
	}
	first := k.list("?source=routine")[0]
	if first.Target == nil || first.Target.ID != k.tagID || first.Assignee == nil || first.Source != "routine" || *first.SourceID != r.ID {
		t.Fatalf("routine task %+v", first)
	}
	// The planner on several replicas at once, and again: nothing twice.
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); k.plan() }()
	}
	wg.Wait()
	k.plan()
	if got := k.dues(r.ID); len(got) != 4 {
		t.Fatalf("after replanning: %v", got)
	}
	// Six hours on, tomorrow's 06:00 comes within the horizon.
	k.advance(6 * time.Hour)
	k.plan()
	if got := k.dues(r.ID); len(got) != 5 || got[4] != "2026-03-03 06:15:00-06:00" {
		t.Fatalf("after six hours: %v", got)
	}
	if n := k.count(`SELECT count(*) FROM routine_occurrences WHERE routine_id = $1`, r.ID); n != 5 {
		t.Fatalf("%d occurrence keys", n)
	}
}

func TestRoutineRefusals(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	for rule, reason := range map[string]string{"FREQ=SOMETIMES": "FREQ", "FREQ=DAILY;BYHOUR=99": "byhour", "FREQ=MINUTELY": "96 occurrences"} {
		e := k.call(http.MethodPost, "routines", k.owner.AccessToken).JSON(map[string]any{"siteId": k.site, "name": "x", "rrule": rule,
			"items": []map[string]any{{"title": "x"}}}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
		if len(e.Details) != 1 || e.Details[0].Field != "rrule" || !strings.Contains(strings.ToLower(e.Details[0].Message), strings.ToLower(reason)) {
			t.Errorf("%s: %+v", rule, e.Details)
		}
	}
	e := k.call(http.MethodPost, "routines", k.owner.AccessToken).JSON(map[string]any{"siteId": k.site, "name": "x", "rrule": "FREQ=DAILY",
		"items": []map[string]any{{"title": "ok"}, {"title": "x", "requiresScan": true}}}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	if e.Details[0].Field != "items[1].targetTagId" {
		t.Fatalf("details %+v", e.Details)
	}
	staff := k.env.Member(k.org, "inspector")
	k.call(http.MethodPost, "routines", staff.AccessToken).JSON(map[string]any{"siteId": k.site, "name": "x", "rrule": "FREQ=DAILY", "items": []map[string]any{{"title": "x"}}}).
		Do().Expect(http.StatusForbidden)
	if n := k.count(`SELECT count(*) FROM routines WHERE org_id = $1`, k.org); n != 0 {
		t.Fatalf("%d routines written", n)
	}
}

func TestEditingARoutineReplansOnlyItsUnstartedFuture(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	r := k.routine(k.site, "FREQ=DAILY;BYHOUR=6,10,14,18;BYMINUTE=0")
	k.advance(4 * time.Hour) // 13:00 UTC, 07:00 in Chicago: 06:00 is due already
	tasks := k.list("?source=routine")
	started := tasks[2] // 14:00, with a photo: started
	k.photo(started.ID, k.owner.AccessToken).Expect(http.StatusCreated)
	done := tasks[1] // 10:00, done early
	k.call(http.MethodPost, "tasks/"+done.ID.String()+"/complete", k.owner.AccessToken).JSON(map[string]any{}).Do().Expect(http.StatusOK)

	var after routine
	k.call(http.MethodPut, "routines/"+r.ID.String(), k.owner.AccessToken).JSON(map[string]any{"siteId": k.site, "name": "Cooler temperatures",
		"rrule": "FREQ=DAILY;BYHOUR=8,14,20;BYMINUTE=0", "items": []map[string]any{{"title": "Cooler log (new)", "kind": "temperature_log"}}}).
		Do().Expect(http.StatusOK).Decode(&after)
	got := map[string]string{}
	for _, t := range k.list("?source=routine") {
		got[t.DueAt] = t.Title + "/" + t.Status
	}
	want := map[string]string{
		"2026-03-02 06:00:00-06:00": "Log walk-in cooler temperature/open", // already due: kept
		"2026-03-02 10:00:00-06:00": "Log walk-in cooler temperature/done", // done: kept
		"2026-03-02 14:00:00-06:00": "Log walk-in cooler temperature/open", // started: kept, not doubled
		"2026-03-02 08:00:00-06:00": "Cooler log (new)/open",
		"2026-03-02 20:00:00-06:00": "Cooler log (new)/open",
		"2026-03-03 06:00:00-06:00": "", // the old rule's tomorrow: gone
	}
	for due, w := range want {
		if got[due] != w {
			t.Errorf("%s: %q, want %q", due, got[due], w)
		}
	}
	if len(got) != 5 {
		t.Fatalf("tasks %v", got)
	}
	// Deactivated: its unstarted future goes, and the planner makes nothing.
	k.call(http.MethodPut, "routines/"+r.ID.String(), k.owner.AccessToken).JSON(map[string]any{"siteId": k.site, "name": "Cooler temperatures",
		"rrule": "FREQ=DAILY;BYHOUR=8,14,20;BYMINUTE=0", "active": false, "items": []map[string]any{{"title": "x"}}}).Do().Expect(http.StatusOK)
	k.plan()
	if n := len(k.dues(r.ID)); n != 3 {
		t.Fatalf("%d tasks after deactivating", n)
	}
	k.call(http.MethodPut, "routines/"+r.ID.String(), k.owner.AccessToken).JSON(map[string]any{"siteId": uuid.New(), "name": "x", "rrule": "FREQ=DAILY",
		"items": []map[string]any{{"title": "x"}}}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
}

func TestRunNow(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	r := k.routine(k.site, "FREQ=WEEKLY;BYDAY=SU;BYHOUR=23;BYMINUTE=0",
		map[string]any{"title": "Deep clean the fryer", "kind": "cleaning", "dueAfterMinutes": 60},
		map[string]any{"title": "Photo of the clean fryer", "requiresPhoto": true})
	if n := len(k.dues(r.ID)); n != 0 {
		t.Fatalf("%d tasks planned for a Sunday rule on a Monday", n)
	}
	var res struct {
		Occurrence string `json:"occurrence"`
		Tasks      []task `json:"tasks"`
	}
	path := "routines/" + r.ID.String() + "/run-now"
	k.call(http.MethodPost, path, k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&res)
	if res.Occurrence != "2026-03-02 03:00:00-06:00" || len(res.Tasks) != 2 || res.Tasks[0].DueAt != "2026-03-02 03:00:00-06:00" ||
		res.Tasks[1].DueAt != "2026-03-02 04:00:00-06:00" || res.Tasks[0].Source != "routine" {
		t.Fatalf("run-now %+v", res)
	}
	// Again at the same instant: its own occurrence, its own tasks.
	k.call(http.MethodPost, path, k.owner.AccessToken).Do().Expect(http.StatusOK)
	if n := len(k.dues(r.ID)); n != 4 {
		t.Fatalf("%d tasks after two runs", n)
	}
	k.plan()
	if n := len(k.dues(r.ID)); n != 4 {
		t.Fatalf("the planner touched run-now tasks: %d", n)
	}
	// Editing the routine re-plans its schedule; what run-now made stays.
	k.call(http.MethodPut, "routines/"+r.ID.String(), k.owner.AccessToken).JSON(map[string]any{"siteId": k.site, "name": "Fryer",
		"rrule": "FREQ=WEEKLY;BYDAY=SA;BYHOUR=23;BYMINUTE=0", "items": []map[string]any{{"title": "x"}}}).Do().Expect(http.StatusOK)
	if n := len(k.dues(r.ID)); n != 4 {
		t.Fatalf("%d tasks after editing", n)
	}
	k.call(http.MethodPost, path, k.env.Member(k.org, "inspector").AccessToken).Do().Expect(http.StatusForbidden)
	k.call(http.MethodPost, "routines/"+uuid.NewString()+"/run-now", k.owner.AccessToken).Do().ExpectError(http.StatusNotFound, "Routine not found")
}

func (k *kitchen) siteIn(name, zone string) uuid.UUID {
	k.t.Helper()
	var s struct {
		ID uuid.UUID `json:"id"`
	}
	k.call(http.MethodPost, "sites", k.owner.AccessToken).JSON(map[string]string{"name": name, "timezone": zone}).Do().Expect(http.StatusCreated).Decode(&s)
	return s.ID
}

// Routines through the API across both transitions, in Chicago and London.
func TestRoutinesAcrossDaylightSavingTransitions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		zone, rule, now string
		want            []string
	}{
		{"America/Chicago", "FREQ=DAILY;BYHOUR=2;BYMINUTE=30", "2026-03-07T18:00:00Z", []string{"2026-03-08 03:30:00-05:00"}},
		{"America/Chicago", "FREQ=DAILY;BYHOUR=1;BYMINUTE=30", "2026-10-31T18:00:00Z", []string{"2026-11-01 01:30:00-05:00"}},
		{"Europe/London", "FREQ=DAILY;BYHOUR=1;BYMINUTE=30", "2026-03-28T12:00:00Z", []string{"2026-03-29 02:30:00+01:00"}},
		{"Europe/London", "FREQ=DAILY;BYHOUR=1;BYMINUTE=30", "2026-10-24T12:00:00Z", []string{"2026-10-25 01:30:00+01:00"}},
	}
	for _, c := range cases {
		t.Run(c.zone+" "+c.now, func(t *testing.T) {
			t.Parallel()
			k := newKitchen(t)
			now, _ := time.Parse(time.RFC3339, c.now)
			k.set(now)
			site := k.siteIn("DST kitchen", c.zone)
			r := k.routine(site, c.rule)
			k.plan()
			if got := k.dues(r.ID); strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Fatalf("due %v, want %v", got, c.want)
			}
			// The day after, planned later, is back on the wall clock.
			k.advance(24 * time.Hour)
			k.plan()
			if got := k.dues(r.ID); len(got) != 2 || !strings.Contains(got[1], " 0"+strings.Split(strings.Split(c.rule, "BYHOUR=")[1], ";")[0]+":30:00") {
				t.Fatalf("the next day: %v", got)
			}
		})
	}
}

func TestSiteZoneChangeReplansTheFuture(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	r := k.routine(k.site, "FREQ=DAILY;BYHOUR=6,18;BYMINUTE=0")
	k.advance(6 * time.Hour) // 15:00 UTC: 06:00 Chicago (12:00 UTC) is past
	k.plan()
	before := k.dues(r.ID)
	if strings.Join(before, ",") != "2026-03-02 06:00:00-06:00,2026-03-02 18:00:00-06:00,2026-03-03 06:00:00-06:00" {
		t.Fatalf("before %v", before)
	}
	k.call(http.MethodPut, "sites/"+k.site.String(), k.owner.AccessToken).JSON(map[string]any{"name": "Main Kitchen", "timezone": "Europe/London"}).Do().Expect(http.StatusOK)
	k.plan()
	k.plan()
	got := k.dues(r.ID)
	// The past task stays (written now in London time); the future follows London's clock.
	want := "2026-03-02 12:00:00+00:00,2026-03-02 18:00:00+00:00,2026-03-03 06:00:00+00:00"
	if strings.Join(got, ",") != want {
		t.Fatalf("after the zone change %v, want %s", got, want)
	}
}

// An alert sensor_offline opening makes one follow-up task, whatever opens it how often.
func TestSensorOfflineMakesOneFollowUpTask(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	k.env.PairDevice(k.owner.AccessToken, k.org, k.site, "sensor_gateway")
	sensors := alerts.SensorTask(k.env.Pool, k.env.Clock)
	k.advance(alerts.SensorSilence + time.Minute)
	for range 3 {
		if err := sensors.Run(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	open := k.alerts("")
	follow := k.list("?source=sensor_alert")
	if len(open) != 1 || len(follow) != 1 || *follow[0].SourceID != open[0].ID || follow[0].Priority != "high" ||
		follow[0].Kind != "maintenance" || !strings.Contains(follow[0].Title, "has not been heard from") {
		t.Fatalf("alerts %+v, follow-up %+v", open, follow)
	}
	k.call(http.MethodPost, "tasks/"+follow[0].ID.String()+"/complete", k.owner.AccessToken).JSON(map[string]any{"note": "Replaced the batteries"}).Do().Expect(http.StatusOK)
	if got := k.alerts(""); len(got) != 1 {
		t.Fatalf("completing the task resolved the alert: %+v", got)
	}
}
