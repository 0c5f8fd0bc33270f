package web_test

import (
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sous-app/sous/docs"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

var (
	hrefRe = regexp.MustCompile(`href="([^"]*)"`)
	idRe   = regexp.MustCompile(`\sid="([^"]+)"`)
)

// Every page of the docs (the guides, the reference, operations and benchmark pages) is a page
// in the hosted pages' layout; every link in it goes to a page that answers, an anchor to an
// element that exists; the index lists every guide.
func TestGuidesArePagesWithWorkingLinks(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, pagesOn)
	names, err := fs.Glob(docs.Pages, "guides/*.md")
	if err != nil || len(names) < 10 {
		t.Fatalf("guides: %v %v", names, err)
	}
	top, err := fs.Glob(docs.Pages, "*.md")
	if err != nil {
		t.Fatal(err)
	}
	others, err := fs.Glob(docs.Pages, "*/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range others {
		if !strings.HasPrefix(n, "guides/") {
			top = append(top, n)
		}
	}
	if len(top) < 15 {
		t.Fatalf("the other pages of the docs: %v", top)
	}
	pages := map[string]page{} // by path
	ids := func(p string) map[string]bool {
		out := map[string]bool{}
		for _, m := range idRe.FindAllStringSubmatch(pages[p].body, -1) {
			out[m[1]] = true
		}
		return out
	}
	paths := []string{"/docs/guides/"}
	for _, n := range append(slices.Clone(names), top...) {
		paths = append(paths, "/docs/"+n)
	}
	for _, p := range paths {
		pg := get(t, env, p, "").expect(t, http.StatusOK)
		pg.contains(t, `<article class="card guide" lang="en">`, `<h1 id="`, `<html lang="en">`)
		if strings.Contains(pg.body, "<!--") {
			t.Errorf("%s: raw HTML of the Markdown is on the page", p)
		}
		pages[p] = pg
	}
	index := pages["/docs/guides/"]
	for _, n := range names {
		if n != "guides/README.md" && !strings.Contains(index.body, `href="/docs/`+n+`"`) {
			t.Errorf("the index does not link %s", n)
		}
	}
	checked := 0
	for p, pg := range pages {
		for _, m := range hrefRe.FindAllStringSubmatch(pg.body, -1) {
			href := strings.ReplaceAll(m[1], "&amp;", "&")
			switch {
			case strings.HasPrefix(href, "https://"), strings.HasPrefix(href, "/assets/"), strings.HasPrefix(href, "?"):
				continue
			case strings.HasPrefix(href, "#"):
				if !ids(p)[href[1:]] {
					t.Errorf("%s: anchor %s is no element of the page", p, href)
				}
				continue
			case !strings.HasPrefix(href, "/"):
				t.Errorf("%s: link %q is neither a page of the server nor https", p, href)
				continue
			}
			target, frag, _ := strings.Cut(href, "#")
			if _, seen := pages[target]; !seen {
				res := get(t, env, target, "")
				if res.status != http.StatusOK {
					t.Errorf("%s: link %s answers %d", p, href, res.status)
					continue
				}
				pages[target] = res
			}
			if frag != "" && (target == "/docs/guides/" || strings.HasSuffix(target, ".md")) && !ids(target)[frag] {
				t.Errorf("%s: link %s: no element %q there", p, href, frag)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Errorf("only %d links checked", checked)
	}
	// The guides' own cross-references, and where a link outside the docs went.
	stock := pages["/docs/guides/stock.md"]
	stock.contains(t, "<title>Stock and the ledger · Sous guides</title>", `href="/docs/benchmarks.md"`)
	devices := pages["/docs/guides/devices.md"]
	devices.contains(t, `href="/docs/reference/alerts.md"`, `href="/docs/guides/sensors.md#a-probe-that-reads-the-impossible"`, `href="#devices-and-sensors"`)
	readme := pages["/docs/guides/"]
	readme.contains(t, "where the README's first session ran", `href="/docs/guides/stock.md"`)
	if strings.Contains(readme.body, "README.md") {
		t.Errorf("the index links a file outside the docs:\n%s", readme.body)
	}
	// Code blocks and tables render as such.
	pages["/docs/guides/devices.md"].contains(t, "<pre><code", "<table>", "<th>")
	// The reference is a page too, named as documentation, its links resolved from its folder.
	alerts := pages["/docs/reference/alerts.md"]
	alerts.contains(t, "· Sous documentation</title>", `<article class="card guide" lang="en">`)
	if strings.Contains(alerts.body, `href="../`) || strings.Contains(pages["/docs/benchmarks.md"].body, `href="benchmarks/`) {
		t.Errorf("a relative link was left as written")
	}
}

// The Markdown stays available at the same URLs, for scripts and for anyone who wants it.
func TestGuidesMarkdownAndLanguage(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, pagesOn)
	raw := get(t, env, "/docs/guides/stock.md?raw=1", "")
	if raw.status != http.StatusOK || raw.header.Get("Content-Type") != "text/plain; charset=utf-8" || !strings.HasPrefix(raw.body, "# Stock and the ledger\n") {
		t.Fatalf("raw: %d %s %.40q", raw.status, raw.header.Get("Content-Type"), raw.body)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, env.URL+"/docs/guides/tasks.md", nil)
	req.Header.Set("Accept", "text/markdown")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/markdown; charset=utf-8" {
		t.Fatalf("Accept: text/markdown: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	get(t, env, "/docs/guides/README.md?raw=1", "").contains(t, "# Guides")
	for _, p := range []string{"/docs/reference/error-codes.md", "/docs/benchmarks.md", "/docs/operations/reference-data.md"} {
		src, err := fs.ReadFile(docs.Pages, strings.TrimPrefix(p, "/docs/"))
		if err != nil {
			t.Fatal(err)
		}
		raw := get(t, env, p+"?raw=1", "")
		if raw.status != http.StatusOK || raw.header.Get("Content-Type") != "text/plain; charset=utf-8" || raw.body != string(src) {
			t.Errorf("%s?raw=1: %d %s %.40q", p, raw.status, raw.header.Get("Content-Type"), raw.body)
		}
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, env.URL+p, nil)
		req.Header.Set("Accept", "text/markdown")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/markdown; charset=utf-8" {
			t.Errorf("%s, Accept: text/markdown: %d %s", p, res.StatusCode, res.Header.Get("Content-Type"))
		}
	}
	get(t, env, "/docs/reference/cors.md?lang=es", "").expect(t, http.StatusOK).contains(t, `<html lang="es">`, "Esta página está escrita en inglés.")

	es := get(t, env, "/docs/guides/stock.md?lang=es", "").expect(t, http.StatusOK)
	es.contains(t, `<html lang="es">`, "Las guías están escritas en inglés.", "Todas las guías", `<article class="card guide" lang="en">`)

	if p := get(t, env, "/docs/guides", ""); p.status != http.StatusMovedPermanently || p.header.Get("Location") != "/docs/guides/" {
		t.Fatalf("/docs/guides: %d %s", p.status, p.header.Get("Location"))
	}
}

// Anything under /docs/guides/ that is not a guide is the not-found page, never a file.
func TestGuidesHostilePaths(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, pagesOn)
	for _, p := range []string{
		"/docs/guides/nope.md", "/docs/guides/STOCK.md", "/docs/guides/stock", "/docs/guides/stock.md.bak",
		"/docs/guides/..%2F..%2Fgo.mod", "/docs/guides/..%2Fbenchmarks.md", "/docs/guides/%2e%2e%2fdocs.go",
		"/docs/guides/stock.md%00", "/docs/guides/%3Cscript%3E.md", "/docs/guides/" + strings.Repeat("a", 3000) + ".md",
		"/docs/guides/stock.md/x",
	} {
		pg := get(t, env, p, "")
		if pg.status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path.Clean(p)[:min(len(p), 60)], pg.status)
			continue
		}
		if strings.HasPrefix(pg.header.Get("Content-Type"), "text/html") {
			pg.expect(t, http.StatusNotFound)
		}
		if strings.Contains(pg.body, "<script>") || strings.Contains(pg.body, "module github.com") {
			t.Errorf("GET %s shows what it should not:\n%s", p, pg.body)
		}
	}
}
