package web

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/sous-app/sous/docs"
)

// The Markdown pages of the docs (docs/**/*.md, embedded by package docs) are served as pages in
// the hosted pages' layout, at the URLs they always had: the guides at /docs/guides/<name>.md,
// their index (the guides' README) at /docs/guides/, the reference, operations and benchmark
// pages at /docs/<section>/<name>.md and /docs/<name>.md. The Markdown is rendered once, on the
// first request: headings get ids (as GitHub makes them, so the pages' own #anchors work), raw
// HTML in the Markdown is dropped (the pages' policy allows no inline script or style, and a page
// of the docs is text), table alignment is an attribute, not a style. Links are resolved where
// they point: another page of the docs to where the server publishes it, and a file outside the
// docs (the repository's README, a dashboard's JSON) is left as its text, since the server has
// nothing to show there. The docs themselves are written in English; the page around them is
// translated. ?raw=1 (or Accept: text/markdown) answers the Markdown as it is, as these URLs did
// before.

const guidesURL = "/docs/guides/"

// guideIndex is the page the guides' index shows: the guides' README, which lists them in order.
const guideIndex = "guides/README.md"

// guide is one rendered page of the docs.
type guide struct {
	Name  string // its path below docs/: guides/stock.md, reference/cors.md, benchmarks.md
	Title string // its first heading
	Body  template.HTML
	raw   []byte
}

// Guide reports whether the page is one of the guides (the rest is reference and operations).
func (g *guide) Guide() bool { return strings.HasPrefix(g.Name, "guides/") }

type guideSet struct {
	once   sync.Once
	err    error
	byName map[string]*guide
}

// guides renders every page on first use; an error (a page that does not render) is kept and
// answered as a 500 for every page, which the tests catch.
func (p *Pages) guides() (map[string]*guide, error) {
	p.guideSet.once.Do(func() {
		p.guideSet.byName, p.guideSet.err = renderGuides(docs.Pages)
	})
	return p.guideSet.byName, p.guideSet.err
}

// docPages lists the Markdown pages of fsys, by their path.
func docPages(fsys fs.FS) ([]string, error) {
	var names []string
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(name, ".md") {
			names = append(names, name)
		}
		return nil
	})
	return names, err
}

// pageDir keys the directory of the page being parsed, against which its relative links resolve.
var pageDir = parser.NewContextKey()

func renderGuides(fsys fs.FS) (map[string]*guide, error) {
	names, err := docPages(fsys)
	if err != nil {
		return nil, err
	}
	md := goldmark.New(
		// GitHub's Markdown, with table alignment as an attribute rather than a style.
		goldmark.WithExtensions(
			extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
			extension.Strikethrough, extension.Linkify, extension.TaskList,
		),
		goldmark.WithParserOptions(
			parser.WithAutoHeadingID(),
			parser.WithASTTransformers(util.Prioritized(&docLinks{fsys: fsys}, 100)),
		),
		// No html.WithUnsafe, and raw HTML (the guides' <!-- readme-run --> markers) writes nothing.
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(noRawHTML{}, 100))),
	)
	out := map[string]*guide{}
	for _, n := range names {
		src, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		ctx := parser.NewContext()
		ctx.Set(pageDir, path.Dir(n))
		doc := md.Parser().Parse(text.NewReader(src), parser.WithContext(ctx))
		var buf bytes.Buffer
		if err := md.Renderer().Render(&buf, src, doc); err != nil {
			return nil, fmt.Errorf("web: docs page %s: %w", n, err)
		}
		out[n] = &guide{Name: n, Title: firstHeading(doc, src, path.Base(n)), Body: template.HTML(buf.String()), raw: src}
	}
	return out, nil
}

// firstHeading is the text of the document's first level-1 heading, else its file name.
func firstHeading(doc ast.Node, src []byte, name string) string {
	title := ""
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering && h.Level == 1 {
			title = plainText(h, src)
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	if title == "" {
		return strings.TrimSuffix(name, ".md")
	}
	return title
}

func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.CodeSpan:
			for l := t.FirstChild(); l != nil; l = l.NextSibling() {
				if tx, ok := l.(*ast.Text); ok {
					b.Write(tx.Segment.Value(src))
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(b.String())
}

// docLinks points every relative link of a page at the page the server publishes for it, and
// unlinks what the server does not publish. Images become their text: the docs embed none, and
// the pages' policy would block another host's.
type docLinks struct{ fsys fs.FS }

func (d *docLinks) Transform(doc *ast.Document, _ text.Reader, pc parser.Context) {
	dir, _ := pc.Get(pageDir).(string)
	if dir == "" {
		dir = "."
	}
	var unlink []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch l := n.(type) {
		case *ast.Link:
			if href, ok := d.resolve(dir, string(l.Destination)); ok {
				l.Destination = []byte(href)
			} else {
				unlink = append(unlink, l)
			}
		case *ast.Image:
			unlink = append(unlink, l)
		}
		return ast.WalkContinue, nil
	})
	for _, n := range unlink {
		parent := n.Parent()
		for c := n.FirstChild(); c != nil; {
			next := c.NextSibling()
			parent.InsertBefore(parent, n, c)
			c = next
		}
		parent.RemoveChild(parent, n)
	}
}

// resolve answers where a link of a page in dir goes, or false when it goes nowhere the server
// publishes. Links with a scheme (https:, mailto:) and anchors of the page are kept as written.
func (d *docLinks) resolve(dir, dest string) (string, bool) {
	if dest == "" || strings.HasPrefix(dest, "#") {
		return dest, true
	}
	u, err := url.Parse(dest)
	if err != nil {
		return "", false
	}
	if u.Scheme != "" || u.Host != "" {
		return dest, u.Scheme == "https" || u.Scheme == "http" || u.Scheme == "mailto"
	}
	if strings.HasPrefix(u.Path, "/") {
		// A path of the server (/docs, /v1/openapi.yaml) is kept as written.
		return dest, true
	}
	target := path.Join(dir, u.Path)
	if !fs.ValidPath(target) || !strings.HasSuffix(target, ".md") {
		return "", false
	}
	if _, err := fs.Stat(d.fsys, target); err != nil {
		return "", false
	}
	href := docURL(target)
	if u.Fragment != "" {
		href += "#" + u.Fragment
	}
	return href, true
}

// docURL is where the server publishes a page of the docs.
func docURL(name string) string {
	if name == guideIndex {
		return guidesURL
	}
	return "/docs/" + name
}

// noRawHTML renders a Markdown's raw HTML, block or inline, as nothing.
type noRawHTML struct{}

func (noRawHTML) RegisterFuncs(r renderer.NodeRendererFuncRegisterer) {
	skip := func(util.BufWriter, []byte, ast.Node, bool) (ast.WalkStatus, error) { return ast.WalkSkipChildren, nil }
	r.Register(ast.KindHTMLBlock, skip)
	r.Register(ast.KindRawHTML, skip)
}

// guideView is what the guide template shows.
type guideView struct {
	*guide
	Index bool
}

func (p *Pages) guidesIndex(c echo.Context) error {
	return p.serveGuide(c, guideIndex)
}

func (p *Pages) guidePage(c echo.Context) error {
	return p.serveGuide(c, "guides/"+c.Param("page"))
}

func (p *Pages) serveGuide(c echo.Context, name string) error {
	all, err := p.guides()
	if err != nil {
		p.logError(c, err)
		return p.errorPage(c, http.StatusInternalServerError, errInternal)
	}
	g, ok := all[name]
	if !ok {
		return p.errorPage(c, http.StatusNotFound, errNoGuide)
	}
	if wantsMarkdown(c.Request()) {
		h := c.Response().Header()
		h.Set("Vary", "Accept")
		h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
		ct := "text/plain; charset=utf-8"
		if c.QueryParam("raw") == "" {
			ct = "text/markdown; charset=utf-8"
		}
		return c.Blob(http.StatusOK, ct, g.raw)
	}
	var title string
	switch {
	case name == guideIndex:
		title = p.tr(c, "guides.index_title")
	case g.Guide():
		title = p.tr(c, "guides.page_title", "title", g.Title)
	default:
		title = p.tr(c, "guides.doc_title", "title", g.Title)
	}
	return p.render(c, http.StatusOK, "guide", Page{Title: title, Styles: []string{"guides.css"}}, guideView{guide: g, Index: name == guideIndex})
}

// errNoGuide is the page of a guide that does not exist, pointing to the index.
var errNoGuide = problem{"guides.not_found_heading", "guides.not_found_text"}

// wantsMarkdown is a request for the guide's Markdown: ?raw=1, or an Accept that names
// text/markdown and not HTML (a browser's names HTML).
func wantsMarkdown(r *http.Request) bool {
	if r.URL.Query().Get("raw") == "1" {
		return true
	}
	md, html := false, false
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "text/markdown":
			md = true
		case "text/html":
			html = true
		}
	}
	return md && !html
}

// registerGuides adds the docs' routes: the guides' index, each guide, the index without its
// slash, and each other page of the docs at its own path. Those paths are more specific than the
// API server's /docs/:page and /docs/:section/:page, which answer the rest (the API reference,
// and 404 for what the docs do not have).
func (p *Pages) registerGuides(e *echo.Echo) {
	e.GET(guidesURL, p.guidesIndex)
	e.GET(strings.TrimSuffix(guidesURL, "/"), func(c echo.Context) error {
		return c.Redirect(http.StatusMovedPermanently, guidesURL)
	})
	e.GET(guidesURL+":page", p.guidePage)
	names, err := docPages(docs.Pages)
	if err != nil {
		panic(fmt.Sprintf("web: the embedded docs: %v", err)) // embedded files: a bug, seen at once
	}
	for _, n := range names {
		if strings.HasPrefix(n, "guides/") {
			continue
		}
		e.GET("/docs/"+n, func(c echo.Context) error { return p.serveGuide(c, n) })
	}
}
