package tracing_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/events"
	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/pg/pgtest"
	"github.com/sous-app/sous/internal/tracing"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func attr(s sdktrace.ReadOnlySpan, key string) (string, bool) {
	for _, a := range s.Attributes() {
		if string(a.Key) == key {
			return a.Value.String(), true
		}
	}
	return "", false
}

// A request that carries a W3C traceparent is traced under the caller's trace: the server span
// ({method} {route}, the semantic-convention attributes and the operationId) is the child of
// the caller's span, each SQL statement is a child span named by its sqlc query with no
// parameter values, and the webhook delivery the request makes carries a traceparent of the
// same trace to the receiver. An unsampled caller's request records nothing.
func TestRequestTraceContinuesTheCallersTrace(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)) // default sampler: parent-based
	tracing.Install(tp)
	t.Cleanup(func() { _ = tp.Shutdown(t.Context()) })

	env := apitest.NewTraced(t, func(c *config.Config) { c.WebhookAllowPrivate = true })
	owner, orgID := env.NewOwner("Harborview Kitchens")

	var mu sync.Mutex
	var received []http.Header
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		received = append(received, r.Header.Clone())
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer rcv.Close()
	var hook struct {
		ID uuid.UUID `json:"id"`
	}
	org := "orgs/" + orgID.String()
	env.Call(http.MethodPost, org+"/webhooks").Token(owner.AccessToken).
		JSON(map[string]any{"url": rcv.URL, "events": []string{"*"}}).Do().Expect(http.StatusCreated).Decode(&hook)

	traceID := "4bf92f3577b34da6a3ce929d0e0e4736"
	parentID := "00f067aa0ba902b7"
	env.Call(http.MethodPost, org+"/webhooks/"+hook.ID.String()+"/test").Token(owner.AccessToken).
		Header("traceparent", "00-"+traceID+"-"+parentID+"-01").Do().Expect(http.StatusOK)

	var inTrace []sdktrace.ReadOnlySpan
	for _, s := range exp.GetSpans().Snapshots() {
		if s.SpanContext().TraceID().String() == traceID {
			inTrace = append(inTrace, s)
		}
	}
	var server sdktrace.ReadOnlySpan
	for _, s := range inTrace {
		if s.SpanKind() == trace.SpanKindServer {
			server = s
		}
	}
	if server == nil {
		t.Fatalf("no server span under the caller's trace; %d spans in it", len(inTrace))
	}
	if server.Name() != "POST /v1/orgs/{orgId}/webhooks/{id}/test" || server.Parent().SpanID().String() != parentID {
		t.Fatalf("server span %q, parent %s", server.Name(), server.Parent().SpanID())
	}
	for key, want := range map[string]string{
		"http.request.method": "POST", "http.route": "/v1/orgs/{orgId}/webhooks/{id}/test",
		"http.response.status_code": "200", "sous.operation": "testWebhook",
		"url.path": "/v1/" + org + "/webhooks/" + hook.ID.String() + "/test", "url.scheme": "http",
	} {
		if got, _ := attr(server, key); got != want {
			t.Errorf("server span %s = %q, want %q", key, got, want)
		}
	}

	// Each span's parent is in the trace, so the tree hangs from the server span.
	byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
	for _, s := range inTrace {
		byID[s.SpanContext().SpanID()] = s
	}
	under := func(s sdktrace.ReadOnlySpan) bool {
		for p := s.Parent().SpanID(); p.IsValid(); {
			if p == server.SpanContext().SpanID() {
				return true
			}
			ps, ok := byID[p]
			if !ok {
				return false
			}
			p = ps.Parent().SpanID()
		}
		return false
	}
	sqlNames := map[string]bool{}
	var delivery sdktrace.ReadOnlySpan
	for _, s := range inTrace {
		if s.SpanContext().SpanID() == server.SpanContext().SpanID() {
			continue
		}
		if !under(s) {
			t.Errorf("span %q is not under the server span", s.Name())
		}
		if sys, ok := attr(s, "db.system.name"); ok && sys == "postgresql" {
			sqlNames[s.Name()] = true
			text, _ := attr(s, "db.query.text")
			for _, a := range s.Attributes() {
				v := a.Value.String()
				if strings.Contains(v, orgID.String()) || strings.Contains(v, hook.ID.String()) || strings.Contains(v, owner.User.Email) {
					t.Errorf("SQL span %q carries a parameter value in %s", s.Name(), a.Key)
				}
			}
			if s.Name() == "batch" { // a pipelined batch: its statements are its children
				continue
			}
			if text == "" || s.Name() == "" || strings.ContainsAny(s.Name(), " \n$") {
				t.Errorf("SQL span named %q (statement %q)", s.Name(), text)
			}
		}
		if s.Name() == "webhook delivery" {
			delivery = s
		}
	}
	for _, want := range []string{"GetWebhook", "InsertClaimedDelivery", "GetDeliveryWork", "FinishDelivery"} {
		if !sqlNames[want] {
			t.Errorf("no SQL span %s; got %v", want, sqlNames)
		}
	}
	if delivery == nil {
		t.Fatal("no webhook delivery span in the trace")
	}
	mu.Lock()
	if len(received) != 1 {
		t.Fatalf("receiver got %d requests", len(received))
	}
	want := "00-" + traceID + "-" + delivery.SpanContext().SpanID().String() + "-01"
	if got := received[0].Get("traceparent"); got != want {
		t.Fatalf("delivery carried traceparent %q, want %q", got, want)
	}
	mu.Unlock()

	// An HL7 body: a span per phase, under the request's span.
	site := env.Site(owner.AccessToken, orgID, "Harborview campus")
	var k struct {
		Key string `json:"key"`
	}
	env.Call(http.MethodPost, org+"/api-keys").Token(owner.AccessToken).
		JSON(map[string]string{"name": "Interface engine"}).Do().Expect(http.StatusCreated).Decode(&k)
	hl7Trace := "5bf92f3577b34da6a3ce929d0e0e4737"
	env.Call(http.MethodPost, org+"/adt/hl7").Header("x-api-key", k.Key).Header("traceparent", "00-"+hl7Trace+"-00f067aa0ba902b7-01").
		JSON(map[string]any{"siteId": site, "message": "MSH|^~\\&|EPIC|HMC|SOUS|SOUS|20260302090000||ADT^A01|T-1|P|2.5.1\rPID|1||100000001^^^HMC^MR||DOE^JANE||19700101|F\rPV1|1|I|4W^412^A\r"}).
		Do().Expect(http.StatusOK)
	phases := map[string]bool{}
	for _, s := range exp.GetSpans().Snapshots() {
		if s.SpanContext().TraceID().String() == hl7Trace {
			phases[s.Name()] = true
		}
	}
	for _, want := range []string{"POST /v1/orgs/{orgId}/adt/hl7", "hl7 parse", "hl7 wait for census lock", "hl7 load", "hl7 apply", "hl7 write", "LockClinicalKeys"} {
		if !phases[want] {
			t.Errorf("no span %q in the HL7 request's trace: %v", want, phases)
		}
	}

	// An outbox dispatch round that finds an event: its span, its statements under it, and the
	// delivery it queued sent with the delivery's own traceparent.
	if _, err := events.Publish(t.Context(), db.New(env.Pool), orgID, events.TrayDelivered, env.Clock.Now(),
		map[string]any{"ticketId": uuid.New(), "siteId": site, "patientId": uuid.New(), "dayPart": "lunch", "date": "2026-03-02"}); err != nil {
		t.Fatal(err)
	}
	exp.Reset()
	env.DrainWebhooks()
	var dispatch sdktrace.ReadOnlySpan
	children := map[string]bool{}
	all := exp.GetSpans().Snapshots()
	for _, s := range all {
		if s.Name() == "outbox dispatch" {
			dispatch = s
		}
	}
	if dispatch == nil {
		t.Fatal("no outbox dispatch span")
	}
	for _, s := range all {
		if s.Parent().SpanID() == dispatch.SpanContext().SpanID() {
			children[s.Name()] = true
		}
	}
	if !children["MatchingWebhooks"] || !children["QueueDelivery"] || !children["MarkEventsDispatched"] {
		t.Errorf("dispatch span's children %v", children)
	}
	mu.Lock()
	got := len(received)
	last := received[got-1].Get("traceparent")
	mu.Unlock()
	if got != 2 || !strings.HasPrefix(last, "00-") {
		t.Errorf("receiver: %d requests, the last with traceparent %q", got, last)
	}

	// A caller that did not sample its trace: the server follows it and records nothing.
	unsampled := "0af7651916cd43dd8448eb211c80319c"
	env.Call(http.MethodGet, "auth/me").Token(owner.AccessToken).
		Header("traceparent", "00-"+unsampled+"-b7ad6b7169203331-00").Do().Expect(http.StatusOK)
	for _, s := range exp.GetSpans().Snapshots() {
		if s.SpanContext().TraceID().String() == unsampled {
			t.Fatalf("span %q recorded for an unsampled caller", s.Name())
		}
	}
}
