package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel/trace"

	"github.com/sous-app/sous/internal/jsonenc"
)

func TestRedactQuery(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                         "",
		"token=sous_dev_abc":       "token=REDACTED",
		"a=1&token=x&b=2":          "a=1&token=REDACTED&b=2",
		"%74oken=x":                "token=REDACTED",
		"tokens=x&token":           "tokens=x&token=REDACTED",
		"siteId=1&limit=2":         "siteId=1&limit=2",
		"token=a&token=b&cursor=c": "token=REDACTED&token=REDACTED&cursor=c",
	} {
		if got := redactQuery(in); got != want {
			t.Errorf("redactQuery(%q) = %q, want %q", in, got, want)
		}
	}
}

// The device WebSocket carries its token in the query; the access log must never hold it.
func TestAccessLogRedactsTheDeviceToken(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	e := echo.New()
	e.Use(accessLog(&buf, false, nil))
	e.GET("/v1/board/ws", func(c echo.Context) error { return c.NoContent(http.StatusUnauthorized) })
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/board/ws?token=sous_dev_SECRET&v=2", nil))
	line := buf.String()
	if strings.Contains(line, "SECRET") || !strings.Contains(line, `"query":"token=REDACTED&v=2"`) {
		t.Fatalf("access log line: %s", line)
	}
}

// The hand-made line is what encoding/json (HTML left alone, as slog writes) would write for the
// same strings, for any bytes a
// client can put in a path or query.
func TestAccessLogLineIsJSON(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", "/v1/orgs/abc/sites", `quote " and \ backslash`, "tab\tnew\nline\r", "\x00\x01\b\f\x1f\x7f",
		"<script>&amp;", "caf\u00e9 \u2028 \u2029 \U0001F600", "bad \xff\xfe utf8 \xc3", "%2F%00",
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		if got := jsonenc.AppendStringKeepHTML(nil, s); string(got) != strings.TrimSuffix(want.String(), "\n") {
			t.Errorf("AppendStringKeepHTML(%q) = %s, want %s", s, got, want.String())
		}
	}
	var buf bytes.Buffer
	e := echo.New()
	e.Use(accessLog(&buf, false, nil))
	e.GET("/*", func(c echo.Context) error { return c.String(http.StatusTeapot, "short and stout") })
	e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/a%22b%FF?x=%3C1%3E&token=t", nil))
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("not JSON: %v: %s", err, buf.String())
	}
	for k, want := range map[string]any{
		"level": "INFO", "msg": "request", "method": "GET", "path": "/a\"b\ufffd", "query": "x=%3C1%3E&token=REDACTED",
		"route": "/*", "status": float64(418), "bytes": float64(15), "ip": "192.0.2.1",
	} {
		if line[k] != want {
			t.Errorf("%s = %#v, want %#v", k, line[k], want)
		}
	}
	if _, err := time.Parse(time.RFC3339Nano, line["time"].(string)); err != nil {
		t.Errorf("time: %v", err)
	}
	if !strings.HasSuffix(buf.String(), "}\n") || strings.Count(buf.String(), "\n") != 1 {
		t.Errorf("not one line: %q", buf.String())
	}
}

// With a span in the request's context, the line names its trace and span.
func TestAccessLogLineCarriesTheTrace(t *testing.T) {
	t.Parallel()
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled})
	var buf bytes.Buffer
	e := echo.New()
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.SetRequest(c.Request().WithContext(trace.ContextWithSpanContext(c.Request().Context(), sc)))
			return next(c)
		}
	})
	e.Use(accessLog(&buf, true, nil))
	e.GET("/", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })
	e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("not JSON: %v: %s", err, buf.String())
	}
	if line["trace_id"] != tid.String() || line["span_id"] != sid.String() {
		t.Fatalf("line %s", buf.String())
	}
}

// Inside the server's chain the line takes the client's address and the request id from the
// request's scope: the address behind a trusted proxy, the id the response carries.
func TestAccessLogTakesTheScopesFacts(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	e := echo.New()
	e.IPExtractor = ipExtractor([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	e.Use(requestID(), accessLog(&buf, false, nil), requestScope(scopeConfig{}))
	e.GET("/x", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })
	req := httptest.NewRequest(http.MethodGet, "/x", nil)
	req.RemoteAddr = "127.0.0.1:50000"
	req.Header.Set("X-Forwarded-For", "203.0.113.9")
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	var line struct {
		IP        string `json:"ip"`
		RequestID string `json:"request_id"`
	}
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("%v: %s", err, buf.String())
	}
	if line.IP != "203.0.113.9" || line.RequestID == "" || line.RequestID != rec.Header().Get(echo.HeaderXRequestID) {
		t.Fatalf("line %+v, response id %q", line, rec.Header().Get(echo.HeaderXRequestID))
	}
}

// TestAppendMillisIsTheFloatForm: the "ms" field reads as it did when formatted as a float.
func TestAppendMillisIsTheFloatForm(t *testing.T) {
	t.Parallel()
	check := func(us int64) {
		got := string(appendMillis(nil, us))
		if want := strconv.FormatFloat(float64(us)/1000, 'f', -1, 64); got != want {
			t.Fatalf("%d µs: %q, want %q", us, got, want)
		}
	}
	for us := int64(-2001); us <= 200_000; us++ {
		check(us)
	}
	for _, us := range []int64{999_999_999, 1_000_000_001, 86_400_000_000, 1 << 40} { // up to 12 days; far beyond, the float itself drops digits
		check(us)
	}
}
