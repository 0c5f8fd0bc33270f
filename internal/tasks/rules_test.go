package tasks_test

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// answerWithin bounds every request of these tests: a rule that spins the server fails its
// test at once instead of hanging the suite.
const answerWithin = 10 * time.Second

// refusedRules never occur (or not in the next two years), or make too many occurrences a
// day; each is refused with 400 at once, on POST and on PUT.
var refusedRules = []struct{ rule, startsOn, reason string }{
	{"FREQ=HOURLY;INTERVAL=2;BYHOUR=1", "", "rrule never occurs: INTERVAL=2 with BYHOUR=1 can never coincide"},
	{"FREQ=HOURLY;INTERVAL=2;BYHOUR=1;COUNT=3", "", "INTERVAL=2 with BYHOUR=1 can never coincide"},
	{"FREQ=MINUTELY;INTERVAL=2;BYMINUTE=1", "", "INTERVAL=2 with BYMINUTE=1 can never coincide"},
	{"FREQ=MINUTELY;INTERVAL=2;BYMINUTE=1;COUNT=10", "", "INTERVAL=2 with BYMINUTE=1 can never coincide"},
	{"FREQ=HOURLY;INTERVAL=24;BYHOUR=1", "", "INTERVAL=24 with BYHOUR=1 can never coincide"},
	{"FREQ=HOURLY;INTERVAL=24;BYHOUR=1;COUNT=2", "", "INTERVAL=24 with BYHOUR=1 can never coincide"},
	{"FREQ=MINUTELY;INTERVAL=120;BYHOUR=1,3;BYMINUTE=0", "", "INTERVAL=120 with BYHOUR=1,3 and BYMINUTE=0 can never coincide"},
	{"FREQ=MINUTELY;INTERVAL=7;BYHOUR=1;BYMINUTE=1;BYDAY=MO;BYMONTH=2;BYMONTHDAY=29", "", "no occurrence in the next 2 years"},
	{"FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=30", "", "no occurrence in the next 2 years"},
	{"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO", "", "no occurrence in the next 2 years"},
	{"FREQ=DAILY;COUNT=3", "2026-01-01", "no occurrence in the next 2 years"},
	{"FREQ=DAILY;INTERVAL=0", "", "INTERVAL must be 1 or more"},
	{"FREQ=DAILY;INTERVAL=-1", "", "INTERVAL must be 1 or more"},
	{"FREQ=MONTHLY;BYDAY=-53MO", "", "no occurrence in the next 2 years"},
	{"FREQ=DAILY;BYEASTER=0", "", "BYEASTER"},
	{"FREQ=MINUTELY;BYMONTH=11", "2027-01-04", "more than 96 occurrences"},
	{"FREQ=MINUTELY;INTERVAL=10;BYDAY=SU", "", "more than 96 occurrences"},
}

func routineBody(site uuid.UUID, rule, startsOn string, items int) map[string]any {
	b := map[string]any{"siteId": site, "name": "Cooler temperatures", "rrule": rule, "items": make([]map[string]any, items)}
	for i := range items {
		b["items"].([]map[string]any)[i] = map[string]any{"title": "Check " + string(rune('A'+i%26))}
	}
	if startsOn != "" {
		b["startsOn"] = startsOn
	}
	return b
}

func TestRefusedRulesAnswer400AtOnce(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	kept := k.routine(k.site, "FREQ=DAILY;BYHOUR=6,18;BYMINUTE=0")
	tasksBefore := k.dues(kept.ID)
	for _, c := range refusedRules {
		for _, method := range []string{http.MethodPost, http.MethodPut} {
			t.Run(method+" "+c.rule, func(t *testing.T) {
				path := "routines"
				if method == http.MethodPut {
					path += "/" + kept.ID.String()
				}
				e := k.env.With(t).Call(method, "orgs/"+k.org.String()+"/"+path).Token(k.owner.AccessToken).
					JSON(routineBody(k.site, c.rule, c.startsOn, 1)).Within(answerWithin).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
				if len(e.Details) != 1 || e.Details[0].Field != "rrule" || !strings.Contains(e.Details[0].Message, c.reason) {
					t.Fatalf("details %+v, want rrule: %q", e.Details, c.reason)
				}
			})
		}
	}
	if n := k.count(`SELECT count(*) FROM routines WHERE org_id = $1`, k.org); n != 1 {
		t.Fatalf("%d routines", n)
	}
	var after routine
	k.call(http.MethodGet, "routines/"+kept.ID.String(), k.owner.AccessToken).Within(answerWithin).Do().Expect(http.StatusOK).Decode(&after)
	if after.StartsOn != kept.StartsOn || strings.Join(after.NextOccurrences, ",") != strings.Join(kept.NextOccurrences, ",") ||
		strings.Join(k.dues(kept.ID), ",") != strings.Join(tasksBefore, ",") {
		t.Fatalf("a refused PUT changed the routine: %+v, tasks %v", after, k.dues(kept.ID))
	}
}

// Rules at the edge of the checks are accepted: an interval that meets BYHOUR, a rule that
// occurs once in the next two years, 96 occurrences a day.
func TestRulesThatOccurAreAccepted(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	for _, rule := range []string{
		"FREQ=HOURLY;INTERVAL=2;BYHOUR=0,6,12", "FREQ=HOURLY;INTERVAL=5;BYHOUR=5", "FREQ=MINUTELY;INTERVAL=7;BYHOUR=1;BYMINUTE=1",
		"FREQ=MINUTELY;INTERVAL=90;BYHOUR=3", "FREQ=MINUTELY;INTERVAL=15", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29",
		"FREQ=HOURLY;INTERVAL=24", "FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=22", "FREQ=DAILY;COUNT=1",
	} {
		k.call(http.MethodPost, "routines", k.owner.AccessToken).JSON(routineBody(k.site, rule, "", 1)).Within(answerWithin).Do().Expect(http.StatusCreated)
	}
}

// N managers at once send rules that never occur: every one answers 400 promptly, and the
// server still serves (no core spinning, no transaction held).
func TestHostileRulesInParallel(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	const n = 24
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := refusedRules[i%len(refusedRules)]
			codes[i] = k.call(http.MethodPost, "routines", k.owner.AccessToken).JSON(routineBody(k.site, c.rule, c.startsOn, 50)).
				Within(answerWithin).Do().Status
		}()
	}
	wg.Wait()
	for i, code := range codes {
		if code != http.StatusBadRequest {
			t.Errorf("request %d (%s): %d", i, refusedRules[i%len(refusedRules)].rule, code)
		}
	}
	k.call(http.MethodGet, "routines", k.owner.AccessToken).Within(answerWithin).Do().Expect(http.StatusOK)
	if n := k.count(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'`); n != 0 {
		t.Fatalf("%d sessions idle in transaction", n)
	}
}

// The cap of 96 occurrences a day holds over the next two years, not the first week: a rule
// by the minute in November refused in January; by the quarter hour, accepted.
func TestDailyCapOverTheWholeHorizon(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	e := k.call(http.MethodPost, "routines", k.owner.AccessToken).JSON(routineBody(k.site, "FREQ=MINUTELY;BYMONTH=11", "2027-01-04", 50)).
		Within(answerWithin).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	if e.Details[0].Field != "rrule" || !strings.Contains(e.Details[0].Message, "more than 96 occurrences a day (1440 on 2027-11-01)") {
		t.Fatalf("details %+v", e.Details)
	}
	k.call(http.MethodPost, "routines", k.owner.AccessToken).JSON(routineBody(k.site, "FREQ=MINUTELY;INTERVAL=15;BYMONTH=11", "2027-01-04", 10)).
		Within(answerWithin).Do().Expect(http.StatusCreated)
	// Starting the same day (the test clock's 2026-03-02, a Monday), Sundays make 144 a day.
	e = k.call(http.MethodPost, "routines", k.owner.AccessToken).JSON(routineBody(k.site, "FREQ=MINUTELY;INTERVAL=10;BYDAY=SU", "", 1)).
		Within(answerWithin).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	if !strings.Contains(e.Details[0].Message, "(144 on 2026-03-08)") {
		t.Fatalf("details %+v", e.Details)
	}
}

// A routine makes at most 1000 tasks a day (occurrences times items), so one request makes
// at most that many for each local day its first 24 hours touch.
func TestTasksADayAreBounded(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	e := k.call(http.MethodPost, "routines", k.owner.AccessToken).JSON(routineBody(k.site, "FREQ=MINUTELY;INTERVAL=15", "", 11)).
		Within(answerWithin).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	if e.Details[0].Field != "rrule" || !strings.Contains(e.Details[0].Message, "more than 1000 tasks a day (96 occurrences of 11 items on 2026-03-02)") {
		t.Fatalf("details %+v", e.Details)
	}
	r := k.call(http.MethodPost, "routines", k.owner.AccessToken).JSON(routineBody(k.site, "FREQ=MINUTELY;INTERVAL=15", "", 10)).
		Within(answerWithin).Do().Expect(http.StatusCreated)
	var got routine
	r.Decode(&got)
	if n := k.count(`SELECT count(*) FROM tasks WHERE source_id = $1`, got.ID); n != 960 {
		t.Fatalf("%d tasks", n)
	}
}

// Rules stored before these checks (written here straight into the table) cost nothing on
// reads and are skipped by the planner, which plans every other routine.
func TestStoredRulesThatNoLongerPassAreSkipped(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	good := k.routine(k.site, "FREQ=DAILY;BYHOUR=6,18;BYMINUTE=0")
	var bad []uuid.UUID
	twenty := make([]map[string]any, 20)
	for i := range twenty {
		twenty[i] = map[string]any{"title": "Check"}
	}
	for _, c := range []struct {
		rule  string
		items []map[string]any
	}{
		{"FREQ=HOURLY;INTERVAL=2;BYHOUR=1", nil}, {"FREQ=MINUTELY;INTERVAL=2;BYMINUTE=1;COUNT=10", nil}, {"FREQ=HOURLY;INTERVAL=24;BYHOUR=1", nil},
		{"FREQ=MINUTELY;INTERVAL=7;BYHOUR=1;BYMINUTE=1;BYDAY=MO;BYMONTH=2;BYMONTHDAY=29", nil}, {"FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=30", nil},
		{"FREQ=MINUTELY", nil}, {"FREQ=MINUTELY;INTERVAL=10", nil}, {"FREQ=DAILY;INTERVAL=0", nil},
		{"FREQ=MINUTELY;INTERVAL=15", twenty}, // 96 occurrences of 20 items: 1920 tasks a day
	} {
		rule := c.rule
		r := k.routine(k.site, "FREQ=DAILY;BYHOUR=7;BYMINUTE=0", c.items...)
		if _, err := k.env.Pool.Exec(t.Context(), `UPDATE routines SET rrule = $2 WHERE id = $1`, r.ID, rule); err != nil {
			t.Fatal(err)
		}
		if _, err := k.env.Pool.Exec(t.Context(), `DELETE FROM tasks WHERE source_id = $1`, r.ID); err != nil {
			t.Fatal(err)
		}
		bad = append(bad, r.ID)
	}
	k.advance(12 * time.Hour)
	var list []routine
	k.call(http.MethodGet, "routines", k.owner.AccessToken).Within(answerWithin).Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 1+len(bad) {
		t.Fatalf("%d routines", len(list))
	}
	for _, id := range bad {
		k.call(http.MethodGet, "routines/"+id.String(), k.owner.AccessToken).Within(answerWithin).Do().Expect(http.StatusOK)
	}
	done := make(chan struct{})
	go func() { defer close(done); k.plan() }()
	select {
	case <-done:
	case <-time.After(answerWithin):
		fmt.Fprintln(os.Stderr, "--- FAIL: the planner did not finish")
		os.Exit(1)
	}
	if got := k.dues(good.ID); len(got) != 3 {
		t.Fatalf("the good routine's tasks: %v", got)
	}
	for _, id := range bad {
		if n := k.count(`SELECT count(*) FROM tasks WHERE source_id = $1`, id); n != 0 {
			t.Errorf("%s: %d tasks", id, n)
		}
	}
}
