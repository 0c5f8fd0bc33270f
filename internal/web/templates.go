package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

//go:embed templates
var templateFS embed.FS

// templates holds one template set per page, each the page's file with the shared layout.
type templates struct {
	pages map[string]*template.Template
}

func parseTemplates(a *assets) (*templates, error) {
	funcs := template.FuncMap{
		"asset":    a.url,
		"money":    money,
		"percent":  percentBps,
		"brandCSS": brandCSS,
		"add":      func(a, b int) int { return a + b },
		"seq": func(from, to int) []int {
			var out []int
			for i := from; i <= to; i++ {
				out = append(out, i)
			}
			return out
		},
		"title": func(s string) string {
			s = strings.ReplaceAll(s, "_", " ")
			if s == "" {
				return s
			}
			return strings.ToUpper(s[:1]) + s[1:]
		},
	}
	layout, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	t := &templates{pages: map[string]*template.Template{}}
	for _, n := range names {
		base := strings.TrimPrefix(n, "templates/")
		if base == "layout.html" {
			continue
		}
		page, err := template.Must(layout.Clone()).ParseFS(templateFS, n)
		if err != nil {
			return nil, err
		}
		t.pages[strings.TrimSuffix(base, ".html")] = page
	}
	return t, nil
}

// Page is what the layout needs of every page.
type Page struct {
	Title string
	// Brand is the organization's display brand; empty on pages that know none.
	BrandName                 string
	BrandPrimary, BrandAccent string
	// Styles and Scripts are asset names the page adds to the layout's.
	Styles, Scripts []string
	// Print adds the print stylesheet.
	Print bool
	// Lang is the page's language, "en" or "es"; render sets it from the request when empty.
	Lang string
	// Messages are the catalog's namespaces the page's script needs at run time; the layout
	// embeds them, with "common", for i18n.js.
	Messages []string
}

// view is a page's data: the layout's and the page's own.
type view struct {
	Page
	Data any
	// Toggle is the language toggle's links; Script the embedded messages (nil without Messages).
	Toggle []langLink
	Script map[string]any
	cat    *catalog
}

// render writes a page with its status and headers. The page is executed into a buffer first,
// so a template error is a clean 500, not half a page.
func (p *Pages) render(c echo.Context, status int, name string, pg Page, data any) error {
	t, ok := p.tmpl.pages[name]
	if !ok {
		return fmt.Errorf("web: no page %q", name)
	}
	if pg.Lang == "" {
		pg.Lang = langOf(c)
	}
	v := view{Page: pg, Data: data, Toggle: langLinks(c.Request(), pg.Lang), cat: p.cat}
	if len(pg.Messages) > 0 {
		v.Script = p.cat.script(pg.Lang, pg.Messages)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout.html", v); err != nil {
		p.logError(c, err)
		if name == "error" {
			pageHeaders(c.Response())
			return c.String(http.StatusInternalServerError, p.cat.must(pg.Lang, "common.err_internal_heading"))
		}
		return p.errorPage(c, http.StatusInternalServerError, errInternal)
	}
	pageHeaders(c.Response())
	return c.HTMLBlob(status, buf.Bytes())
}
