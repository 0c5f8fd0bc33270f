package delivery

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

var (
	testOrg   = uuid.MustParse("6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f")
	testEvent = uuid.MustParse("0192f3a4-0000-7000-8000-0000000000e1")
)

func TestEnvelopeBody(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	paris := time.FixedZone("CET", 3600)
	tests := []struct {
		name string
		env  Envelope
		want string
	}{
		{
			name: "whole seconds",
			env:  Envelope{ID: testEvent, Event: "temperature.alert", OrgID: testOrg, At: at, Data: json.RawMessage(`{"siteId":"s1","celsius":9.5}`)},
			want: `{"id":"0192f3a4-0000-7000-8000-0000000000e1","event":"temperature.alert","orgId":"6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f","at":"2026-03-02T09:00:00Z","data":{"siteId":"s1","celsius":9.5}}`,
		},
		{
			name: "milliseconds kept, trailing zeros trimmed",
			env:  Envelope{ID: testEvent, Event: "e", OrgID: testOrg, At: at.Add(250 * time.Millisecond), Data: json.RawMessage(`{}`)},
			want: `{"id":"0192f3a4-0000-7000-8000-0000000000e1","event":"e","orgId":"6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f","at":"2026-03-02T09:00:00.25Z","data":{}}`,
		},
		{
			name: "sub-millisecond truncated",
			env:  Envelope{ID: testEvent, Event: "e", OrgID: testOrg, At: at.Add(123456789 * time.Nanosecond), Data: json.RawMessage(`{}`)},
			want: `{"id":"0192f3a4-0000-7000-8000-0000000000e1","event":"e","orgId":"6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f","at":"2026-03-02T09:00:00.123Z","data":{}}`,
		},
		{
			name: "other zone converted to UTC",
			env:  Envelope{ID: testEvent, Event: "e", OrgID: testOrg, At: time.Date(2026, 3, 2, 10, 0, 0, 0, paris), Data: json.RawMessage(`{}`)},
			want: `{"id":"0192f3a4-0000-7000-8000-0000000000e1","event":"e","orgId":"6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f","at":"2026-03-02T09:00:00Z","data":{}}`,
		},
		{
			name: "empty data is an empty object",
			env:  Envelope{ID: testEvent, Event: "e", OrgID: testOrg, At: at},
			want: `{"id":"0192f3a4-0000-7000-8000-0000000000e1","event":"e","orgId":"6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f","at":"2026-03-02T09:00:00Z","data":{}}`,
		},
		{
			name: "data compacted, HTML not escaped",
			env:  Envelope{ID: testEvent, Event: "task.done", OrgID: testOrg, At: at, Data: json.RawMessage("{\n  \"note\": \"<b>a & b</b>\",\n  \"n\": [1, 2]\n}\n")},
			want: `{"id":"0192f3a4-0000-7000-8000-0000000000e1","event":"task.done","orgId":"6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f","at":"2026-03-02T09:00:00Z","data":{"note":"<b>a & b</b>","n":[1,2]}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.env.Body()
			if err != nil {
				t.Fatalf("Body: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("Body =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestEnvelopeBodyRejects(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		env  Envelope
		want string
	}{
		{"no id", Envelope{Event: "e", OrgID: testOrg, At: at}, "no event id"},
		{"no event", Envelope{ID: testEvent, OrgID: testOrg, At: at}, "no event name"},
		{"nil org", Envelope{ID: testEvent, Event: "e", At: at}, "no organization id"},
		{"zero time", Envelope{ID: testEvent, Event: "e", OrgID: testOrg}, "no timestamp"},
		{"invalid json", Envelope{ID: testEvent, Event: "e", OrgID: testOrg, At: at, Data: json.RawMessage(`{"a":`)}, "not valid JSON"},
		{"array", Envelope{ID: testEvent, Event: "e", OrgID: testOrg, At: at, Data: json.RawMessage(`[1]`)}, "not a JSON object"},
		{"string", Envelope{ID: testEvent, Event: "e", OrgID: testOrg, At: at, Data: json.RawMessage(`"x"`)}, "not a JSON object"},
		{"null", Envelope{ID: testEvent, Event: "e", OrgID: testOrg, At: at, Data: json.RawMessage(`null`)}, "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.env.Body()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Body error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}
