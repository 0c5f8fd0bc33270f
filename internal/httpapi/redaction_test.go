package httpapi_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/tracing"
)

// lockedBuffer collects the server's log lines, written from its request goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// endedSpans keeps every ended span and tells a waiter when the server span of a trace has
// ended: the access log line is written before it, so by then the request left all its traces.
type endedSpans struct {
	*tracetest.InMemoryExporter
	mu      sync.Mutex
	waiters map[trace.TraceID]chan struct{}
}

func (e *endedSpans) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	_ = e.InMemoryExporter.ExportSpans(ctx, spans)
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range spans {
		if s.SpanKind() == trace.SpanKindServer {
			if ch, ok := e.waiters[s.SpanContext().TraceID()]; ok {
				close(ch)
				delete(e.waiters, s.SpanContext().TraceID())
			}
		}
	}
	return nil
}

func (e *endedSpans) expect(id trace.TraceID) <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	ch := make(chan struct{})
	e.waiters[id] = ch
	return ch
}

// Capability tokens (share links, surveys, single-use invitations), device tokens, pairing codes
// and printed tag codes never reach the access log, the server's other log lines, or any span:
// every public and device operation, every hosted page, and the ways a request goes astray
// (another method, a path one segment too long, a Referer naming the link) are called with
// them, then the captured output is searched for each.
func TestSecretsStayOutOfLogsAndTraces(t *testing.T) {
	spans := &endedSpans{InMemoryExporter: tracetest.NewInMemoryExporter(), waiters: map[trace.TraceID]chan struct{}{}}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	tracing.Install(tp)
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	var logs lockedBuffer
	env := apitest.NewObserved(t, &logs, func(c *config.Config) { c.HostedPages = true })
	owner, orgID := env.NewOwner("Harborview Kitchens")
	w := &walker{env: env, owner: owner, orgID: orgID}
	w.siteA = env.Site(owner.AccessToken, orgID, "Main kitchen")

	var share struct {
		Token string `json:"token"`
	}
	secrets := map[string]string{}
	w.ownerCall(http.MethodPost, "catering/quotes/"+w.cateringQuote(false)+"/share").Do().Expect(http.StatusOK).Decode(&share)
	secrets["quote"] = share.Token
	w.ownerCall(http.MethodPost, "catering/invoices/"+w.cateringInvoice()+"/share").Do().Expect(http.StatusOK).Decode(&share)
	secrets["invoice"] = share.Token
	w.ownerCall(http.MethodPost, "inspections/"+w.inspection()+"/share").Do().Expect(http.StatusOK).Decode(&share)
	secrets["inspection"] = share.Token
	survey := w.survey()
	w.ownerCall(http.MethodPost, "surveys/"+survey+"/share").Do().Expect(http.StatusOK).Decode(&share)
	secrets["survey"] = share.Token
	var invitations []struct {
		Token string `json:"token"`
	}
	w.ownerCall(http.MethodPost, "surveys/"+survey+"/invitations").JSON(map[string]any{"count": 1, "singleUse": true}).
		Do().Expect(http.StatusCreated).Decode(&invitations)
	secrets["invitation"] = invitations[0].Token
	_, secrets["tag"] = w.tag()
	_, secrets["device"] = env.PairDevice(owner.AccessToken, orgID, w.siteA, "wallboard_boh")
	var device struct {
		ID string `json:"id"`
	}
	w.ownerCall(http.MethodPost, "devices").JSON(map[string]any{"name": "Probe gateway", "kind": "sensor_gateway", "siteId": w.siteA}).
		Do().Expect(http.StatusCreated).Decode(&device)
	var pairing struct {
		Code string `json:"code"`
	}
	w.ownerCall(http.MethodPost, "devices/"+device.ID+"/pair").Do().Expect(http.StatusCreated).Decode(&pairing)
	secrets["pairing"] = pairing.Code
	for kind, s := range secrets {
		if len(s) < 6 {
			t.Fatalf("%s: no secret to look for (%q)", kind, s)
		}
	}

	// call sends one request in a trace of its own and waits for its server span to end.
	call := func(r *apitest.Request) {
		t.Helper()
		var id trace.TraceID
		_, _ = rand.Read(id[:])
		done := spans.expect(id)
		r.Header("traceparent", "00-"+hex.EncodeToString(id[:])+"-00f067aa0ba902b7-01").Do()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("no server span ended for %s", id)
		}
	}
	form := func(v url.Values) []byte { return []byte(v.Encode()) }
	const formType = "application/x-www-form-urlencoded"
	org := "/v1/orgs/" + orgID.String()

	// The public operations, each token once where it works and once where it does not.
	for _, token := range []string{secrets["quote"], secrets["invoice"], secrets["inspection"], secrets["survey"], secrets["invitation"]} {
		call(env.Call(http.MethodGet, "/v1/share/q/"+token))
		call(env.Call(http.MethodGet, "/v1/share/i/"+token))
		call(env.Call(http.MethodGet, "/v1/share/insp/"+token))
		call(env.Call(http.MethodGet, "/v1/survey/"+token))
	}
	call(env.Call(http.MethodGet, "/v1/share/i/"+secrets["invoice"]).Header("Accept", "application/pdf"))
	call(env.Call(http.MethodPost, "/v1/survey/"+secrets["invitation"]+"/submit").JSON(map[string]any{"answers": map[string]any{"food": 5}}))
	call(env.Call(http.MethodPost, "/v1/survey/"+secrets["invitation"]+"/submit").JSON(map[string]any{"answers": map[string]any{"food": 4}}))
	call(env.Call(http.MethodPost, "/v1/survey/"+secrets["survey"]+"/submit").JSON(map[string]any{"answers": map[string]any{}}))
	call(env.Call(http.MethodPost, "/v1/share/q/"+secrets["quote"]+"/accept").JSON(map[string]any{"name": "Maya Chen"}))
	call(env.Call(http.MethodPost, "/v1/share/q/"+secrets["quote"]+"/accept").JSON(map[string]any{"name": "Maya Chen"}))
	// Astray: a method the route does not take, a segment too many, a Referer naming the link.
	call(env.Call(http.MethodPut, "/v1/share/q/"+secrets["quote"]))
	call(env.Call(http.MethodGet, "/v1/share/q/"+secrets["quote"]+"/"))
	call(env.Call(http.MethodGet, "/v1/share/q/"+secrets["quote"]+"/x/y"))
	call(env.Call(http.MethodGet, "/v1/survey/"+secrets["survey"]).Header("Referer", env.URL+"/survey/"+secrets["survey"]))

	// Scans: without a session (the 401 carries the code back), as a member, as a stranger.
	call(env.Call(http.MethodGet, org+"/scan/"+secrets["tag"]))
	call(env.Call(http.MethodGet, org+"/scan/"+secrets["tag"]).Token(owner.AccessToken))
	call(env.Call(http.MethodGet, org+"/scan/"+strings.ToLower(secrets["tag"])).Token(env.NewUser().AccessToken))

	// Devices: the pairing claim, the state, readings, the board's media and its WebSocket,
	// whose token rides in the query.
	call(env.Call(http.MethodPost, "/v1/devices/pair").JSON(map[string]string{"code": secrets["pairing"]}))
	call(env.Call(http.MethodPost, "/v1/devices/pair").JSON(map[string]string{"code": secrets["pairing"]}))
	call(env.Call(http.MethodGet, "/v1/device/state").DeviceToken(secrets["device"]))
	call(env.Call(http.MethodPost, "/v1/device/readings").DeviceToken(secrets["device"]).JSON(map[string]any{"readings": []any{}}))
	call(env.Call(http.MethodGet, "/v1/board/media/content/0192f3a4-0000-7000-8000-0000000000e1").DeviceToken(secrets["device"]))
	call(env.Call(http.MethodGet, "/v1/board/ws?token="+secrets["device"]))
	call(env.Call(http.MethodGet, "/v1/board/ws?v=1&%74oken="+secrets["device"]))

	// The hosted pages behind the links.
	for _, p := range []string{"/share/q/" + secrets["quote"], "/share/i/" + secrets["invoice"], "/share/i/" + secrets["invoice"] + ".pdf",
		"/share/insp/" + secrets["inspection"], "/share/insp/" + secrets["inspection"] + ".pdf", "/survey/" + secrets["survey"],
		"/scan/" + secrets["tag"], "/board?token=" + secrets["device"], "/share/q/" + secrets["quote"] + "/"} {
		call(env.Call(http.MethodGet, p).Header("Accept", "text/html").Header("Referer", env.URL+p))
	}
	call(env.Call(http.MethodPost, "/share/q/"+secrets["quote"]).Raw(formType, form(url.Values{"name": {"Maya Chen"}})))
	call(env.Call(http.MethodPost, "/survey/"+secrets["survey"]).Raw(formType, form(url.Values{"food": {"5"}})))
	call(env.Call(http.MethodDelete, "/survey/"+secrets["survey"]))

	out := logs.String()
	if !strings.Contains(out, `"route":"/v1/share/q/:token"`) || !strings.Contains(out, `"route":"/share/q/:token"`) {
		t.Fatalf("the access log was not captured:\n%s", out)
	}
	for kind, s := range secrets {
		for _, form := range []string{s, strings.ToLower(s), url.PathEscape(s)} {
			if i := strings.Index(out, form); i >= 0 {
				t.Errorf("the %s secret is in the logs: %s", kind, lineAround(out, i))
			}
		}
	}
	got := spans.GetSpans()
	if len(got) == 0 {
		t.Fatal("no spans")
	}
	for _, sp := range got {
		var texts []string
		texts = append(texts, sp.Name, sp.Status.Description)
		for _, a := range sp.Attributes {
			texts = append(texts, string(a.Key)+"="+a.Value.String())
		}
		for _, ev := range sp.Events {
			texts = append(texts, ev.Name)
			for _, a := range ev.Attributes {
				texts = append(texts, string(a.Key)+"="+a.Value.String())
			}
		}
		all := strings.Join(texts, " ")
		for kind, s := range secrets {
			if strings.Contains(all, s) || strings.Contains(strings.ToLower(all), strings.ToLower(s)) {
				t.Errorf("the %s secret is in span %q: %s", kind, sp.Name, all)
			}
		}
	}
	if !strings.Contains(fmt.Sprint(got), "/v1/share/q/REDACTED") {
		t.Errorf("no span has the redacted path url.path /v1/share/q/REDACTED")
	}
}

// lineAround is the log line holding position i.
func lineAround(s string, i int) string {
	start := strings.LastIndexByte(s[:i], '\n') + 1
	end := strings.IndexByte(s[i:], '\n')
	if end < 0 {
		return s[start:]
	}
	return s[start : i+end]
}
