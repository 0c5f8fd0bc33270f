package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// BenchmarkConventions measures what the HTTP conventions (request scope with the rate-limit quota, content
// negotiation, Location) add to a request, against the same route without them: a create
// answering 201 with a JSON body.
func BenchmarkConventions(b *testing.B) {
	doc, err := LoadSpec()
	if err != nil {
		b.Fatal(err)
	}
	ops := indexOperations(doc)
	handler := func(c echo.Context) error {
		return c.JSON(http.StatusCreated, map[string]string{"id": "0192f3a4-0000-7000-8000-0000000000a1", "name": "Main Kitchen"})
	}
	for _, bc := range []struct {
		name string
		mw   []echo.MiddlewareFunc
	}{
		{"without", nil},
		{"with", []echo.MiddlewareFunc{requestScope(scopeConfig{}), negotiate(ops), location(ops)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e := echo.New()
			e.Use(bc.mw...)
			e.POST(BasePath+"/orgs/:orgId/sites", handler)
			body := `{"name":"Main Kitchen","timezone":"America/New_York"}`
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, BasePath+"/orgs/0192f3a4-0000-7000-8000-000000000001/sites", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json")
				rec := httptest.NewRecorder()
				e.ServeHTTP(rec, req)
				if rec.Code != http.StatusCreated {
					b.Fatal(rec.Code)
				}
			}
		})
	}
}
