package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/internal/pg"
)

// TestDeadlines: every request gets the general deadline, the HL7 ingest its own, and a
// WebSocket upgrade none (it lives for hours).
func TestDeadlines(t *testing.T) {
	t.Parallel()
	e := echo.New()
	e.Use(requestScope(scopeConfig{general: 15 * time.Second, hl7: 60 * time.Second, hl7Route: "/v1/orgs/:orgId/adt/hl7", socketRoute: "/v1/board/ws"}))
	var left time.Duration
	var has bool
	h := func(c echo.Context) error {
		var d time.Time
		d, has = c.Request().Context().Deadline()
		left = time.Until(d)
		return c.NoContent(http.StatusNoContent)
	}
	e.GET("/v1/orgs/:orgId", h)
	e.POST("/v1/orgs/:orgId/adt/hl7", h)
	e.GET("/v1/board/ws", h)
	e.GET("/v1/other", h)
	for _, tc := range []struct {
		method, path string
		upgrade      bool
		want         time.Duration // 0: no deadline
	}{
		{http.MethodGet, "/v1/orgs/1", false, 15 * time.Second},
		{http.MethodPost, "/v1/orgs/1/adt/hl7", false, 60 * time.Second},
		{http.MethodGet, "/v1/board/ws", true, 0},
		{http.MethodGet, "/v1/other", true, 0},
	} {
		req := httptest.NewRequest(tc.method, tc.path, nil)
		if tc.upgrade {
			req.Header.Set("Upgrade", "websocket")
		}
		e.ServeHTTP(httptest.NewRecorder(), req)
		switch {
		case tc.want == 0 && has:
			t.Errorf("%s %s: deadline in %v, want none", tc.method, tc.path, left)
		case tc.want != 0 && (!has || left > tc.want || left < tc.want-5*time.Second):
			t.Errorf("%s %s: deadline in %v (set %v), want %v", tc.method, tc.path, left, has, tc.want)
		}
	}
}

// TestExpiredDeadlineAnswers503: whatever a handler returns once its deadline has passed, the
// client learns to retry, never sees a 500.
func TestExpiredDeadlineAnswers503(t *testing.T) {
	t.Parallel()
	e := echo.New()
	e.HTTPErrorHandler = errorRenderer(slog.New(slog.NewTextHandler(io.Discard, nil)), operations{})
	e.Use(requestScope(scopeConfig{general: time.Millisecond, hl7: time.Millisecond}))
	e.GET("/v1/slow", func(c echo.Context) error {
		<-c.Request().Context().Done()
		// The cause was formatted with %v, so the deadline is no longer in its chain.
		return fmt.Errorf("load: %v", c.Request().Context().Err())
	})
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/slow", nil))
	expect503(t, rec, pg.CodeUnavailable)
}

// TestOutageErrorsRender: the renderer turns the database's failures into their 503s.
func TestOutageErrorsRender(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		code string
	}{
		{fmt.Errorf("pg: commit transaction: %w: %w", pg.ErrOutcomeUnknown, io.ErrUnexpectedEOF), pg.CodeOutcomeUnknown},
		{fmt.Errorf("pg: begin transaction: %w", context.DeadlineExceeded), pg.CodeUnavailable},
	} {
		e := echo.New()
		var log bytes.Buffer
		e.HTTPErrorHandler = errorRenderer(slog.New(slog.NewTextHandler(&log, nil)), operations{})
		e.GET("/v1/x", func(echo.Context) error { return tc.err })
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/x", nil))
		expect503(t, rec, tc.code)
		// An outage is logged as a warning: error lines are kept for bugs.
		if !strings.Contains(log.String(), "level=WARN") || strings.Contains(log.String(), "level=ERROR") {
			t.Fatalf("logged %q, want one WARN line", log.String())
		}
	}
}

// TestBugsLogAsErrors: a 500 stays an error line.
func TestBugsLogAsErrors(t *testing.T) {
	t.Parallel()
	e := echo.New()
	var log bytes.Buffer
	e.HTTPErrorHandler = errorRenderer(slog.New(slog.NewTextHandler(&log, nil)), operations{})
	e.GET("/v1/x", func(echo.Context) error { return errors.New("nil map") })
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/x", nil))
	if rec.Code != http.StatusInternalServerError || !strings.Contains(log.String(), "level=ERROR") {
		t.Fatalf("%d, logged %q; want 500 and an ERROR line", rec.Code, log.String())
	}
}

func expect503(t *testing.T, rec *httptest.ResponseRecorder, code string) {
	t.Helper()
	var body errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if rec.Code != http.StatusServiceUnavailable || body.Code != code || rec.Header().Get("Retry-After") != "1" {
		t.Fatalf("%d %s (Retry-After %q); want 503 %s", rec.Code, rec.Body, rec.Header().Get("Retry-After"), code)
	}
	if body.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("statusCode %d", body.StatusCode)
	}
}
