package tasks

import (
	"strings"
	"testing"
	"time"
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func formatAll(ts []time.Time, loc *time.Location) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.In(loc).Format(DueLayout)
	}
	return out
}

// Occurrences are wall-clock times in the site's zone: on a spring-forward day a time the clock
// skips happens as much later as the clock jumped; on a fall-back day a repeated time happens
// once, the first time. Both transitions, in two zones that change on different days and hours.
func TestOccurrencesAcrossDaylightSavingTransitions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		zone, rule, from, to string
		want                 []string
	}{
		// Chicago springs forward at 02:00 on 8 March 2026: 02:30 does not exist.
		{"America/Chicago", "FREQ=DAILY;BYHOUR=2;BYMINUTE=30", "2026-03-07T00:00:00Z", "2026-03-10T00:00:00Z",
			[]string{"2026-03-07 02:30:00-06:00", "2026-03-08 03:30:00-05:00", "2026-03-09 02:30:00-05:00"}},
		// Chicago falls back at 02:00 on 1 November 2026: 01:30 happens twice; once here.
		{"America/Chicago", "FREQ=DAILY;BYHOUR=1;BYMINUTE=30", "2026-10-31T00:00:00Z", "2026-11-03T00:00:00Z",
			[]string{"2026-10-31 01:30:00-05:00", "2026-11-01 01:30:00-05:00", "2026-11-02 01:30:00-06:00"}},
		// London springs forward at 01:00 on 29 March 2026: 01:30 does not exist.
		{"Europe/London", "FREQ=DAILY;BYHOUR=1;BYMINUTE=30", "2026-03-28T00:00:00Z", "2026-03-31T00:00:00Z",
			[]string{"2026-03-28 01:30:00+00:00", "2026-03-29 02:30:00+01:00", "2026-03-30 01:30:00+01:00"}},
		// London falls back at 02:00 on 25 October 2026: 01:30 happens twice; once here.
		{"Europe/London", "FREQ=DAILY;BYHOUR=1;BYMINUTE=30", "2026-10-24T00:00:00Z", "2026-10-27T00:00:00Z",
			[]string{"2026-10-24 01:30:00+01:00", "2026-10-25 01:30:00+01:00", "2026-10-26 01:30:00+00:00"}},
		// Times away from the transition keep their wall clock on both sides of it.
		{"America/Chicago", "FREQ=DAILY;BYHOUR=6,18;BYMINUTE=0", "2026-03-07T12:00:00Z", "2026-03-09T12:00:00Z",
			[]string{"2026-03-07 06:00:00-06:00", "2026-03-07 18:00:00-06:00", "2026-03-08 06:00:00-05:00", "2026-03-08 18:00:00-05:00", "2026-03-09 06:00:00-05:00"}},
	}
	for _, c := range cases {
		t.Run(c.zone+" "+c.from, func(t *testing.T) {
			loc := mustZone(t, c.zone)
			rule, err := ParseRule(c.rule, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			if err != nil {
				t.Fatal(err)
			}
			from, _ := time.Parse(time.RFC3339, c.from)
			to, _ := time.Parse(time.RFC3339, c.to)
			occs, err := rule.Between(loc, from, to, 1)
			if err != nil {
				t.Fatal(err)
			}
			got := formatAll(occs, loc)
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Fatalf("occurrences\n got %v\nwant %v", got, c.want)
			}
		})
	}
}

func TestPlaceResolvesGapsAndRepeats(t *testing.T) {
	t.Parallel()
	chicago := mustZone(t, "America/Chicago")
	cases := map[string]string{
		"2026-03-08T02:00:00Z": "2026-03-08 03:00:00-05:00", // the gap's first instant
		"2026-03-08T02:59:00Z": "2026-03-08 03:59:00-05:00",
		"2026-03-08T03:00:00Z": "2026-03-08 03:00:00-05:00",
		"2026-11-01T01:00:00Z": "2026-11-01 01:00:00-05:00", // repeated hour: the first
		"2026-11-01T01:59:00Z": "2026-11-01 01:59:00-05:00",
		"2026-11-01T02:00:00Z": "2026-11-01 02:00:00-06:00",
	}
	for naiveAt, want := range cases {
		n, _ := time.Parse(time.RFC3339, naiveAt)
		if got := Place(n, chicago).In(chicago).Format(DueLayout); got != want {
			t.Errorf("Place(%s) = %s, want %s", naiveAt, got, want)
		}
	}
}

func TestRuleErrorsCarryTheParsersReason(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	for rule, want := range map[string]string{
		"FREQ=SOMETIMES":                   "FREQ",
		"FREQ=DAILY;BYHOUR=25":             "byhour",
		"DTSTART:20260101T000000Z":         "DTSTART",
		"FREQ=MINUTELY;INTERVAL=1":         "96",
		"FREQ=SECONDLY;INTERVAL=3600":      "SECONDLY",
		"FREQ=DAILY;BYHOUR=6;BYMINUTE=abc": "abc",
	} {
		_, err := CheckRule(rule, day, day, 1)
		if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(want)) {
			t.Errorf("ParseRule(%q) = %v, want an error mentioning %q", rule, err, want)
		}
	}
	if _, err := ParseRule("RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=6;BYMINUTE=0", day); err != nil {
		t.Errorf("a valid rule with its RRULE: prefix: %v", err)
	}
}

func TestParseDueAcceptsBothForms(t *testing.T) {
	t.Parallel()
	want := time.Date(2026, 3, 2, 20, 0, 0, 0, time.UTC)
	for _, s := range []string{"2026-03-02 14:00:00-06:00", "2026-03-02T14:00:00-06:00", "2026-03-02T20:00:00Z", "2026-03-02 20:00:00Z", "2026-03-02T20:00:00.000Z"} {
		got, err := ParseDue("dueAt", s)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseDue(%q) = %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"2026-03-02", "14:00", "2026-03-02 14:00:00"} {
		if _, err := ParseDue("dueAt", s); err == nil {
			t.Errorf("ParseDue(%q) accepted", s)
		}
	}
	if got := FormatDue(want, "America/Chicago"); got != "2026-03-02 14:00:00-06:00" {
		t.Errorf("FormatDue = %s", got)
	}
	if got := FormatDue(want, "UTC"); got != "2026-03-02 20:00:00+00:00" {
		t.Errorf("FormatDue in UTC = %s", got)
	}
}
