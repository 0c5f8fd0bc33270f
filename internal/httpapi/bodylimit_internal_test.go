package httpapi

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

func TestBodyLimitsAreParsedOnceAndChecked(t *testing.T) {
	t.Parallel()
	ops := operations{
		opKey("POST", "/v1/orgs/:orgId/adt/hl7"): {ID: "ingestHl7"},
		opKey("POST", "/v1/orgs/:orgId/media"):   {ID: "uploadMedia", BodyLimit: "6M"},
		opKey("POST", "/v1/orgs"):                {ID: "createOrg"},
	}
	for _, bad := range [][2]string{{"1 meg", "4M"}, {"1M", "4 megs"}, {"0", "4M"}, {"1M", ""}} {
		if _, err := newBodyLimits(ops, bad[0], bad[1]); err == nil {
			t.Errorf("limits %q accepted", bad)
		}
	}
	badOp := operations{opKey("POST", "/v1/x"): {ID: "x", BodyLimit: "big"}}
	if _, err := newBodyLimits(badOp, "1M", "4M"); err == nil {
		t.Error("x-body-limit big accepted")
	}

	l, err := newBodyLimits(ops, "100", "300")
	if err != nil {
		t.Fatal(err)
	}
	e := echo.New()
	handler := l.middleware(func(c echo.Context) error {
		_, err := io.ReadAll(c.Request().Body)
		return err
	})
	call := func(route string, size int, declareLength bool) error {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Repeat("x", size)))
		if !declareLength {
			req.ContentLength = -1 // streamed: only reading finds the size
		}
		c := e.NewContext(req, httptest.NewRecorder())
		c.SetPath(route)
		return handler(c)
	}
	for _, c := range []struct {
		route string
		size  int
		ok    bool
	}{
		{"/v1/orgs", 100, true},
		{"/v1/orgs", 101, false},
		{"/v1/orgs/:orgId/adt/hl7", 300, true},
		{"/v1/orgs/:orgId/adt/hl7", 301, false},
		{"/v1/orgs/:orgId/media", 6_000_000, true},
		{"/v1/orgs/:orgId/media", 6_000_001, false},
	} {
		for _, declared := range []bool{true, false} {
			err := call(c.route, c.size, declared)
			if c.ok != (err == nil) || (err != nil && !errors.Is(err, echo.ErrStatusRequestEntityTooLarge)) {
				t.Errorf("%s with %d bytes (length declared %v): %v", c.route, c.size, declared, err)
			}
		}
	}
}
