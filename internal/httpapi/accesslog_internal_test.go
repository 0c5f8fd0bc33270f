package httpapi

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
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
	e.Use(accessLog(slog.New(slog.NewJSONHandler(&buf, nil)), true))
	e.GET("/v1/board/ws", func(c echo.Context) error { return c.NoContent(http.StatusUnauthorized) })
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/board/ws?token=sous_dev_SECRET&v=2", nil))
	line := buf.String()
	if strings.Contains(line, "SECRET") || !strings.Contains(line, `"query":"token=REDACTED&v=2"`) {
		t.Fatalf("access log line: %s", line)
	}
}
