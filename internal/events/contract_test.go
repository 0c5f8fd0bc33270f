package events_test

import (
	"strings"
	"testing"

	"github.com/sous-app/sous/internal/events"
)

func TestEveryEventHasDocumentedData(t *testing.T) {
	for _, name := range append(append([]string{}, events.Catalogue...), events.WebhookTest) {
		// An empty object passes the unknown-field check, so the only failure left is a
		// missing schema, or one that requires nothing (every event carries ids).
		err := events.CheckData(name, []byte(`{}`))
		if err == nil || strings.Contains(err.Error(), "documents no data") {
			t.Errorf("%s (%s): %v", name, events.SchemaName(name), err)
		}
	}
}

func TestCheckData(t *testing.T) {
	const (
		signoff = "0192f3a4-0000-7000-8000-000000000c0b"
		patient = "0192f3a4-0000-7000-8000-000000000c08"
		order   = "0192f3a4-0000-7000-8000-000000000c09"
		site    = "0192f3a4-0000-7000-8000-000000000c0a"
	)
	decided := func(extra string) []byte {
		return []byte(`{"signoffId":"` + signoff + `","patientId":"` + patient + `","dietOrderId":"` + order + `","siteId":"` + site + `"` + extra + `}`)
	}
	for _, tc := range []struct {
		name, event string
		data        []byte
		wantErr     string
	}{
		{"documented", events.SignoffDecided, decided(`,"decision":"approved"`), ""},
		{"nullable id", events.AlertCreated, []byte(`{"alertId":"` + signoff + `","siteId":null,"kind":"task_missed","severity":"warning"}`), ""},
		{"test event", events.WebhookTest, []byte(`{"subscriptionId":"` + signoff + `"}`), ""},
		{"missing field", events.SignoffDecided, decided(``), "decision"},
		{"undocumented field", events.SignoffDecided, decided(`,"decision":"approved","decidedBy":"` + patient + `"`), `"decidedBy"`},
		{"value outside the enum", events.SignoffDecided, decided(`,"decision":"maybe"`), "decision"},
		{"wrong type", events.PolicyPublished, []byte(`{"policyId":"` + signoff + `","version":"2"}`), "version"},
		{"not an event", "alert.opened", []byte(`{}`), "documents no data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := events.CheckData(tc.event, tc.data)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one mentioning %s", err, tc.wantErr)
			}
		})
	}
}

func TestSchemaName(t *testing.T) {
	for name, want := range map[string]string{
		"catering.quote_accepted": "CateringQuoteAcceptedData",
		"work_order.resolved":     "WorkOrderResolvedData",
		"webhook.test":            "WebhookTestData",
	} {
		if got := events.SchemaName(name); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
}
