package delivery

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

var testOrg = uuid.MustParse("6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f")

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
			env:  Envelope{Event: "temperature.alert", OrgID: testOrg, At: at, Data: json.RawMessage(`{"siteId":"s1","celsius":9.5}`)},
			want: `{"event":"temperature.alert","orgId":"6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f","at":"2026-03-02T09:00:00Z","data":{"siteId":"s1","celsius":9.5}}`,
		},
		{
			name: "milliseconds kept, trailing zeros trimmed",
			env:  Envelope{Event: "e", OrgID: testOrg, At: at.Add(250 * time.Millisecond), Data: json.RawMessage(`{}`)},
			want: `{"event":"e","orgId":"6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f","at":"2026-03-02T09:00:00.25Z","data":{}}`,
		},
		{
			name: "sub-millisecond truncated",
			env:  Envelope{Event: "e", OrgID: testOrg, At: at.Add(123456789 * time.Nanosecond), Data: json.RawMessage(`{}`)},
			want: `{"event":"e","orgId":"6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f","at":"2026-03-02T09:00:00.123Z","data":{}}`,
		},
		{
			name: "other zone converted to UTC",
			env:  Envelope{Event: "e", OrgID: testOrg, At: time.Date(2026, 3, 2, 10, 0, 0, 0, paris), Data: json.RawMessage(`{}`)},
			want: `{"event":"e","orgId":"6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f","at":"2026-03-02T09:00:00Z","data":{}}`,
		},
		{
			name: "empty data is an empty object",
			env:  Envelope{Event: "e", OrgID: testOrg, At: at},
			want: `{"event":"e","orgId":"6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f","at":"2026-03-02T09:00:00Z","data":{}}`,
		},
		{
			name: "data compacted, HTML not escaped",
			env:  Envelope{Event: "task.done", OrgID: testOrg, At: at, Data: json.RawMessage("{\n  \"note\": \"<b>a & b</b>\",\n  \"n\": [1, 2]\n}\n")},
			want: `{"event":"task.done","orgId":"6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f","at":"2026-03-02T09:00:00Z","data":{"note":"<b>a & b</b>","n":[1,2]}}`,
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
		{"no event", Envelope{OrgID: testOrg, At: at}, "no event name"},
		{"nil org", Envelope{Event: "e", At: at}, "no organization id"},
		{"zero time", Envelope{Event: "e", OrgID: testOrg}, "no timestamp"},
		{"invalid json", Envelope{Event: "e", OrgID: testOrg, At: at, Data: json.RawMessage(`{"a":`)}, "not valid JSON"},
		{"array", Envelope{Event: "e", OrgID: testOrg, At: at, Data: json.RawMessage(`[1]`)}, "not a JSON object"},
		{"string", Envelope{Event: "e", OrgID: testOrg, At: at, Data: json.RawMessage(`"x"`)}, "not a JSON object"},
		{"null", Envelope{Event: "e", OrgID: testOrg, At: at, Data: json.RawMessage(`null`)}, "not a JSON object"},
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
