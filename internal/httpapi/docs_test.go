package httpapi_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/sous-app/sous/gen"
	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// A browser opening the server's root lands on the reference.
func TestRootRedirectsToTheDocs(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(env.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "/docs" {
		t.Fatalf("GET /: %d, Location %q", res.StatusCode, res.Header.Get("Location"))
	}
}

// Every page the published spec links to (its introduction links the guides) is served, and
// nothing else under /docs is.
func TestTheReferenceLinksToPagesTheServerPublishes(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	spec := string(gen.OpenAPIYAML)
	links := regexp.MustCompile(`\]\((/docs/[^)]+)\)`).FindAllStringSubmatch(spec, -1)
	if len(links) < 5 || !strings.Contains(spec, "](/docs/guides/README.md)") {
		t.Fatalf("the spec links %d pages under /docs, and the guides' index?", len(links))
	}
	for _, l := range links {
		res, err := http.Get(env.URL + l[1])
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("GET %s: %d %s", l[1], res.StatusCode, res.Header.Get("Content-Type"))
		}
	}
	if page := get(t, env.URL+"/docs/guides/stock.md"); !strings.HasPrefix(page, "# Stock and the ledger\n") {
		t.Errorf("stock guide: %.60q", page)
	}
	for _, path := range []string{"/docs/guides/nope.md", "/docs/docs.go", "/docs/guides/..%2F..%2Fgo.mod", "/docs/x/stock.md", "/docs/guides"} {
		res, err := http.Get(env.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, res.StatusCode)
		}
	}
}

// With the hosted pages on, the guides the spec links to and the other pages under /docs are
// HTML pages, their Markdown one parameter away.
func TestTheGuidesArePagesWithTheHostedPages(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, func(c *config.Config) { c.HostedPages = true })
	for path, want := range map[string]string{
		"/docs/guides/README.md":                   "text/html; charset=UTF-8",
		"/docs/guides/":                            "text/html; charset=UTF-8",
		"/docs/guides/stock.md":                    "text/html; charset=UTF-8",
		"/docs/guides/stock.md?raw=1":              "text/plain; charset=utf-8",
		"/docs/reference/error-codes.md":           "text/html; charset=UTF-8",
		"/docs/reference/error-codes.md?raw=1":     "text/plain; charset=utf-8",
		"/docs/benchmarks.md":                      "text/html; charset=UTF-8",
		"/docs/benchmarks.md?raw=1":                "text/plain; charset=utf-8",
		"/docs/operations/reference-data.md":       "text/html; charset=UTF-8",
		"/docs/operations/reference-data.md?raw=1": "text/plain; charset=utf-8",
	} {
		res, err := http.Get(env.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != want {
			t.Errorf("GET %s: %d %s, want %s", path, res.StatusCode, res.Header.Get("Content-Type"), want)
		}
	}
	if page := get(t, env.URL+"/docs/guides/stock.md?raw=1"); !strings.HasPrefix(page, "# Stock and the ledger\n") {
		t.Errorf("stock guide's Markdown: %.60q", page)
	}
	for _, path := range []string{"/docs/guides/nope.md", "/docs/guides/..%2F..%2Fgo.mod", "/docs/x/stock.md", "/docs/docs.go"} {
		res, err := http.Get(env.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, res.StatusCode)
		}
	}
}
