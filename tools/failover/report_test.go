package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestAnalyze(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	ok := func(k kind, start, end float64) sample {
		return sample{kind: k, start: at(start), end: at(end), status: 201}
	}
	fail := func(status int, start, end float64) sample {
		return sample{kind: kindWrite, start: at(start), end: at(end), status: status}
	}
	for _, tc := range []struct {
		name                    string
		samples                 []sample
		fault, promoted, healed float64
		outage, recovery        float64
		counts                  counts
	}{
		{
			name:    "503s until a second after the promotion",
			samples: []sample{ok(kindWrite, 0, 0.1), fail(503, 1, 2), fail(503, 5, 6), ok(kindWrite, 6.5, 7), ok(kindHL7, 7, 7.2)},
			fault:   0.5, promoted: 6, healed: 20,
			outage: 6.5, recovery: 1, counts: counts{ok: 2, unavailable: 2, held: 2},
		},
		{
			name:    "writes only stall",
			samples: []sample{ok(kindWrite, 0, 0.1), ok(kindWrite, 1, 4), ok(kindWrite, 4.1, 4.2)},
			fault:   0.5, promoted: 3.5, healed: 20,
			outage: 3.5, recovery: 0.5, counts: counts{ok: 3},
		},
		{
			name:    "a failure after the heal does not delay the recovery",
			samples: []sample{fail(503, 1, 2), ok(kindWrite, 3, 3.5), fail(0, 21, 22)},
			fault:   0.5, promoted: 3, healed: 20,
			outage: 3, recovery: 0.5, counts: counts{ok: 1, unavailable: 1, other: 1, held: 2},
		},
		{
			name:    "never recovered",
			samples: []sample{ok(kindWrite, 0, 0.1), fail(503, 1, 1.2), fail(503, 3, 4)},
			fault:   0.5, promoted: 3, healed: 20,
			outage: 3.5, recovery: -1, counts: counts{ok: 1, unavailable: 2, held: 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outage, recovery, byKind := analyze(tc.samples, at(tc.fault), at(tc.promoted), at(tc.healed))
			want := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
			if outage != want(tc.outage) {
				t.Errorf("outage %v, want %v", outage, want(tc.outage))
			}
			if (tc.recovery < 0 && recovery >= 0) || (tc.recovery >= 0 && recovery != want(tc.recovery)) {
				t.Errorf("recovery %v, want %v", recovery, want(tc.recovery))
			}
			if byKind[kindWrite] != tc.counts {
				t.Errorf("write counts %v, want %v", byKind[kindWrite], tc.counts)
			}
		})
	}
}

func TestCheckAndLine(t *testing.T) {
	good := result{name: "planned", recovery: time.Second, hint: 2 * time.Second,
		byKind: map[kind]counts{kindWrite: {ok: 10, unavailable: 2}}}
	good.check()
	if len(good.problems) > 0 || !strings.HasSuffix(good.line(), "| ok") {
		t.Fatalf("a good run: %v, %s", good.problems, good.line())
	}
	bad := result{name: "freeze", recovery: 9 * time.Second, hint: -1, lost: 2,
		byKind: map[kind]counts{kindWrite: {ok: 10, other: 1}}}
	bad.check()
	line := bad.line()
	for _, want := range []string{"FAIL", "neither 2xx nor 503", "9.0s after the promotion", "no hint", "2 acknowledged writes lost"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
}

func TestMissing(t *testing.T) {
	got := missing([]string{"a", "b", "c"}, map[string]bool{"a": true, "c": true})
	if len(got) != 1 || got[0] != "b" {
		t.Fatalf("missing %v", got)
	}
}

func TestTreeFindsChildren(t *testing.T) {
	got := tree(os.Getpid())
	if len(got) == 0 || got[0] != os.Getpid() {
		t.Fatalf("tree %v", got)
	}
}
