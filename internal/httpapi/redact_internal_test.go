package httpapi

import (
	"testing"

	"github.com/labstack/echo/v4"
)

// The redactor reads its secret names from the contract (x-redact, and the path parameters of
// operations that need no credential) and its segments from the route Echo matched.
func TestPathRedactor(t *testing.T) {
	t.Parallel()
	doc, err := SharedSpec()
	if err != nil {
		t.Fatal(err)
	}
	r := newPathRedactor(doc)
	for _, name := range []string{"token", "tagCode"} {
		if !r.secret[name] {
			t.Errorf("%s is not secret", name)
		}
	}
	for _, name := range []string{"orgId", "id", "siteId", "key"} {
		if r.secret[name] {
			t.Errorf("%s is secret", name)
		}
	}
	e := echo.New()
	for _, p := range []string{"/v1/share/q/:token", "/v1/share/q/:token/accept", "/v1/orgs/:orgId/scan/:tagCode", "/v1/orgs/:orgId/sites/:id", "/share/i/:token", "/assets/*"} {
		e.GET(p, echo.NotFoundHandler)
	}
	r.addRoutes(e.Routes())
	org := "0192f3a4-0000-7000-8000-0000000000e1"
	for _, c := range []struct{ route, path, want string }{
		{"/v1/share/q/:token", "/v1/share/q/SECRET", "/v1/share/q/REDACTED"},
		{"/v1/share/q/:token/accept", "/v1/share/q/SECRET/accept", "/v1/share/q/REDACTED/accept"},
		{"/v1/orgs/:orgId/scan/:tagCode", "/v1/orgs/" + org + "/scan/K7QM2XVB", "/v1/orgs/" + org + "/scan/REDACTED"},
		{"/v1/orgs/:orgId/sites/:id", "/v1/orgs/" + org + "/sites/" + org, "/v1/orgs/" + org + "/sites/" + org},
		{"/share/i/:token", "/share/i/SECRET.pdf", "/share/i/REDACTED"},
		{"/assets/*", "/assets/app.1234.js", "/assets/app.1234.js"},
		// A segment too many (Echo's partial match) or none matched: only known segments and ids stay.
		{"/v1/share/q/:token", "/v1/share/q/SECRET/", "/v1/share/q/REDACTED/"},
		{"/v1/orgs/:orgId/sites/:id", "/v1/orgs/" + org + "/sites/" + org + "/x", "/v1/orgs/" + org + "/sites/" + org + "/REDACTED"},
		{"", "/v1/share/q/SECRET/x/y", "/v1/share/q/REDACTED/REDACTED/REDACTED"},
		{"", "/v1/orgs/" + org + "/sites", "/v1/orgs/" + org + "/sites"},
	} {
		if got := r.path(c.route, c.path); got != c.want {
			t.Errorf("path(%q, %q) = %q, want %q", c.route, c.path, got, c.want)
		}
	}
	if got := (*pathRedactor)(nil).path("/v1/share/q/:token", "/v1/share/q/SECRET"); got != "/v1/share/q/SECRET" {
		t.Errorf("nil redactor changed the path: %q", got)
	}
}

// The common way, a route without secrets, allocates nothing.
func TestPathRedactorAllocatesNothingForPlainRoutes(t *testing.T) {
	doc, err := SharedSpec()
	if err != nil {
		t.Fatal(err)
	}
	r := newPathRedactor(doc)
	e := echo.New()
	e.GET("/v1/orgs/:orgId/sites", echo.NotFoundHandler)
	r.addRoutes(e.Routes())
	if n := testing.AllocsPerRun(100, func() { _ = r.path("/v1/orgs/:orgId/sites", "/v1/orgs/abc/sites") }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}
