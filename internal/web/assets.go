package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"
)

//go:embed static
var staticFS embed.FS

// assetPrefix is where the static files are served, each under a name carrying a hash of its
// content (board.3f9a0c1d2e4b.js), so a browser may keep it for a year: a changed file is a new
// name, and the pages name the current one.
const assetPrefix = "/assets/"

const immutable = "public, max-age=31536000, immutable"

type asset struct {
	body        []byte
	contentType string
}

type assets struct {
	byName   map[string]string // plain name → hashed name
	byHashed map[string]asset
}

func loadAssets() (*assets, error) {
	a := &assets{byName: map[string]string{}, byHashed: map[string]asset{}}
	err := fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := staticFS.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "static/")
		sum := sha256.Sum256(b)
		ext := path.Ext(name)
		hashed := strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:6]) + ext
		ct := mime.TypeByExtension(ext)
		if ct == "" {
			ct = "application/octet-stream"
		}
		a.byName[name] = hashed
		a.byHashed[hashed] = asset{body: b, contentType: ct}
		return nil
	})
	return a, err
}

// url is the hashed URL of a static file; a name that is not embedded is a bug in a template,
// caught when the templates run in tests.
func (a *assets) url(name string) (string, error) {
	h, ok := a.byName[name]
	if !ok {
		return "", fmt.Errorf("web: no asset %q", name)
	}
	return assetPrefix + h, nil
}

// brandCSS names the stylesheet of a brand's colours. Styles may come only from files of this
// server (no inline style under the policy), so a brand's colours are a stylesheet whose name
// carries them, as immutable as a hashed asset.
func brandCSS(primary, accent string) string {
	p, ok1 := hexColor(primary)
	c, ok2 := hexColor(accent)
	if !ok1 || !ok2 {
		p, c = defaultPrimary, defaultAccent
	}
	return assetPrefix + "brand-" + p + "-" + c + ".css"
}

const defaultPrimary, defaultAccent = "1f2937", "f59e0b"

var hexRe = regexp.MustCompile(`^#?([0-9a-fA-F]{6})$`)

func hexColor(s string) (string, bool) {
	m := hexRe.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	return strings.ToLower(m[1]), true
}

var brandRe = regexp.MustCompile(`^brand-([0-9a-f]{6})-([0-9a-f]{6})\.css$`)

func (p *Pages) serveAsset(c echo.Context) error {
	w := c.Response()
	name := c.Param("*")
	if m := brandRe.FindStringSubmatch(name); m != nil {
		w.Header().Set("Cache-Control", immutable)
		return c.Blob(http.StatusOK, "text/css; charset=utf-8", []byte(brandStylesheet(m[1], m[2])))
	}
	a, ok := p.assets.byHashed[name]
	if !ok {
		return p.notFound(c)
	}
	w.Header().Set("Cache-Control", immutable)
	return c.Blob(http.StatusOK, a.contentType, a.body)
}

// favicon answers /favicon.ico, where browsers and bookmarks look without a page's link (the
// pages link the SVG under its hashed name). The name is fixed, so it is kept a day, not a year.
func (p *Pages) favicon(c echo.Context) error {
	a := p.assets.byHashed[p.assets.byName["favicon.ico"]]
	c.Response().Header().Set("Cache-Control", "public, max-age=86400")
	return c.Blob(http.StatusOK, a.contentType, a.body)
}

// brandStylesheet sets the brand's colours and, for text drawn on them, black or white,
// whichever contrasts more (WCAG relative luminance).
func brandStylesheet(primary, accent string) string {
	return fmt.Sprintf(":root{--brand:#%s;--on-brand:%s;--accent:#%s;--on-accent:%s}\n",
		primary, onColor(primary), accent, onColor(accent))
}

func onColor(hex6 string) string {
	var r, g, b int
	_, _ = fmt.Sscanf(hex6, "%02x%02x%02x", &r, &g, &b)
	lin := func(v int) float64 {
		c := float64(v) / 255
		if c <= 0.03928 {
			return c / 12.92
		}
		return pow((c+0.055)/1.055, 2.4)
	}
	l := 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
	// Contrast with white is 1.05/(l+0.05), with black (l+0.05)/0.05.
	if 1.05/(l+0.05) >= (l+0.05)/0.05 {
		return "#ffffff"
	}
	return "#000000"
}
