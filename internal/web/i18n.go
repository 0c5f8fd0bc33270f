package web

// How to use the message catalog (English and Spanish, one catalog for every page and app):
//
//   - Strings live in messages/<namespace>.json, a flat object key -> {"en": "...", "es": "..."};
//     the full key is "<namespace>.<key>" (lower case, digits, underscores), e.g. "floor.count_save".
//     Placeholders are {name}, the same in both languages; plurals are separate keys (_one/_other).
//     A file that does not parse, or a message lacking a language, stops New (and every test).
//   - Templates: {{.T "quote.accept_heading"}} or, with arguments as name/value pairs,
//     {{.T "quote.total_for" "name" .Data.Name}}. Inside {{with}} or {{range}} write $.T. An
//     unknown key fails the page (a 500 the tests catch); it never shows a key.
//   - Go: p.tr(c, "quote.page_title", "event", name) in a handler (the request's language);
//     p.msgs(c) is the catalog in that language as a value (m.t(key, ...)) for views and PDFs;
//     langOf(c) is the language itself ("en" or "es"). render sets Page.Lang when left empty.
//   - Page.Messages lists the namespaces the page's script needs at run time; the layout then
//     embeds them (with "common") as JSON in <script type="application/json" id="sous-messages">.
//     i18n.js is loaded on every page before the page's own scripts; a script reads
//     const { t, lang, locale, setLang, onLangChange, translate } = window.i18n;
//     Elements written with data-i18n="ns.key" (text) or data-i18n-attr="placeholder:ns.key;aria-label:ns.key"
//     are re-translated in place when the toggle changes the language (on pages with Messages;
//     on pages without, the toggle is a link that renders the page again in the language).
//   - Numbers, money and dates: Intl with locale() ("en-US" or "es-US": a US kitchen's Spanish,
//     $1,234.50 and 10.5 in both), in Go longDateIn/clockTimeIn/dateTimeIn(lang, t) and money.
//   - TestCatalog* and TestTemplatesShowNoTextOutsideTheCatalog (i18n_test.go) check both
//     languages, the placeholders, every literal key used in templates, scripts (t("ns.key"))
//     and Go, and that no template shows text outside .T ("Sous" is the one exception).

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

//go:embed messages
var messagesFS embed.FS

// The languages every string exists in; the first is the fallback.
const (
	langEN = "en"
	langES = "es"
)

var languages = []string{langEN, langES}

// langCookie keeps a choice made with the toggle or ?lang= for a year, for every page.
const langCookie = "sous_lang"

// catalog holds every message: full key -> language -> text, and the keys of each namespace.
type catalog struct {
	msgs       map[string]map[string]string
	namespaces map[string][]string
}

var keyRe = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// loadCatalog reads the embedded message files; a malformed file, a key of the wrong shape or a
// message missing a language is an error at startup.
func loadCatalog(fsys fs.FS) (*catalog, error) {
	names, err := fs.Glob(fsys, "messages/*.json")
	if err != nil {
		return nil, err
	}
	c := &catalog{msgs: map[string]map[string]string{}, namespaces: map[string][]string{}}
	for _, n := range names {
		ns := strings.TrimSuffix(path.Base(n), ".json")
		if !keyRe.MatchString(ns) {
			return nil, fmt.Errorf("web: message file %s: the namespace must be lower case", n)
		}
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		var m map[string]map[string]string
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("web: message file %s: %w", n, err)
		}
		for k, byLang := range m {
			if !keyRe.MatchString(k) {
				return nil, fmt.Errorf("web: message file %s: key %q must be lower case letters, digits and underscores", n, k)
			}
			for _, l := range languages {
				if strings.TrimSpace(byLang[l]) == "" {
					return nil, fmt.Errorf("web: message %s.%s has no %q text", ns, k, l)
				}
			}
			c.msgs[ns+"."+k] = byLang
			c.namespaces[ns] = append(c.namespaces[ns], ns+"."+k)
		}
		sort.Strings(c.namespaces[ns])
	}
	return c, nil
}

// text is a message in lang with its {name} placeholders filled from name/value pairs; an
// unknown key is an error (a bug the catalog tests catch).
func (c *catalog) text(lang, key string, kv ...any) (string, error) {
	byLang, ok := c.msgs[key]
	if !ok {
		return "", fmt.Errorf("web: no message %q", key)
	}
	s, ok := byLang[lang]
	if !ok {
		s = byLang[langEN]
	}
	if len(kv)%2 != 0 {
		return "", fmt.Errorf("web: message %q: arguments must be name/value pairs", key)
	}
	for i := 0; i < len(kv); i += 2 {
		name, ok := kv[i].(string)
		if !ok {
			return "", fmt.Errorf("web: message %q: argument %d must be a name", key, i)
		}
		s = strings.ReplaceAll(s, "{"+name+"}", fmt.Sprint(kv[i+1]))
	}
	return s, nil
}

// must is text for keys written in Go: they are checked by the tests, so an error here is a bug
// shown as the English text or, failing that, the key.
func (c *catalog) must(lang, key string, kv ...any) string {
	s, err := c.text(lang, key, kv...)
	if err != nil {
		return key
	}
	return s
}

// script is what the layout embeds for a page's script: the server's choice and the messages
// of the namespaces, in both languages, by full key.
func (c *catalog) script(lang string, namespaces []string) map[string]any {
	msgs := map[string]map[string]string{}
	for _, l := range languages {
		msgs[l] = map[string]string{}
	}
	seen := map[string]bool{}
	for _, ns := range append([]string{"common"}, namespaces...) {
		if seen[ns] {
			continue
		}
		seen[ns] = true
		for _, k := range c.namespaces[ns] {
			for _, l := range languages {
				msgs[l][k] = c.msgs[k][l]
			}
		}
	}
	return map[string]any{"lang": lang, "messages": msgs}
}

// T is a message in the page's language, for templates: {{.T "quote.accept_heading"}} or
// {{.T "quote.total_for" "name" .Data.Name}}.
func (v view) T(key string, kv ...any) (string, error) {
	return v.cat.text(v.Lang, key, kv...)
}

// langKey caches the request's language in its context, so the cookie is set once.
const langKey = "sous.lang"

// langOf is the language of the request: ?lang=en|es (which also keeps the choice in a cookie),
// else the cookie, else Accept-Language (q-values honoured, any Spanish is es), else English.
func langOf(c echo.Context) string {
	if l, ok := c.Get(langKey).(string); ok {
		return l
	}
	l := chooseLang(c.Request())
	if q := c.QueryParam("lang"); q == langEN || q == langES {
		c.SetCookie(&http.Cookie{Name: langCookie, Value: q, Path: "/", MaxAge: 365 * 24 * 3600, SameSite: http.SameSiteLaxMode})
	}
	c.Set(langKey, l)
	return l
}

func chooseLang(r *http.Request) string {
	if q := r.URL.Query().Get("lang"); q == langEN || q == langES {
		return q
	}
	if ck, err := r.Cookie(langCookie); err == nil && (ck.Value == langEN || ck.Value == langES) {
		return ck.Value
	}
	return acceptLang(r.Header.Get("Accept-Language"))
}

// acceptLang picks en or es from an Accept-Language header: the supported language with the
// highest q (the earlier on a tie); "*" and unsupported languages do not count.
func acceptLang(h string) string {
	best, bestQ := langEN, 0.0
	for _, part := range strings.Split(h, ",") {
		fields := strings.Split(part, ";")
		tag := strings.ToLower(strings.TrimSpace(fields[0]))
		base, _, _ := strings.Cut(tag, "-")
		if base != langEN && base != langES {
			continue
		}
		q := 1.0
		for _, f := range fields[1:] {
			if v, ok := strings.CutPrefix(strings.TrimSpace(f), "q="); ok {
				n, err := strconv.ParseFloat(v, 64)
				if err != nil || n < 0 || n > 1 {
					n = 0
				}
				q = n
			}
		}
		if q > bestQ {
			best, bestQ = base, q
		}
	}
	return best
}

// langLink is one of the toggle's links: the page itself with ?lang= (other query parameters
// kept), so the toggle works without a script; i18n.js keeps the choice on the phone too. The
// link is relative (only the query), so it never repeats the path's token and a page is the
// same whatever link it answers.
type langLink struct {
	Lang, Label, Href string
	Current           bool
}

func langLinks(r *http.Request, current string) []langLink {
	out := make([]langLink, 0, len(languages))
	for _, l := range languages {
		q := url.Values{}
		for k, v := range r.URL.Query() {
			q[k] = v
		}
		q.Set("lang", l)
		label := "English"
		if l == langES {
			label = "Español"
		}
		out = append(out, langLink{Lang: l, Label: label, Href: "?" + q.Encode(), Current: l == current})
	}
	return out
}

// msg is the catalog in one language, for views and documents built away from a request.
type msg struct {
	cat  *catalog
	lang string
}

func (m msg) t(key string, kv ...any) string { return m.cat.must(m.lang, key, kv...) }

// msgs is the catalog in the request's language.
func (p *Pages) msgs(c echo.Context) msg { return msg{cat: p.cat, lang: langOf(c)} }

// tr is a message in the request's language, for handlers.
func (p *Pages) tr(c echo.Context, key string, kv ...any) string {
	return p.cat.must(langOf(c), key, kv...)
}

// Dates and times for a language. Spanish follows the United States' Spanish (es-US): the
// weekday and month in lower case, "6:00 p.m." (as Intl writes es-US), money as in English ($1,234.50).

var (
	esWeekdays = [...]string{"domingo", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado"}
	esMonths   = [...]string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"}
)

func longDateIn(lang string, t time.Time) string {
	if lang == langES {
		return fmt.Sprintf("%s, %d de %s de %d", esWeekdays[t.Weekday()], t.Day(), esMonths[t.Month()-1], t.Year())
	}
	return longDate(t)
}

func clockTimeIn(lang string, t time.Time) string {
	if lang == langES {
		ampm := "a.m."
		if t.Hour() >= 12 {
			ampm = "p.m."
		}
		return t.Format("3:04") + " " + ampm + " " + t.Format("MST")
	}
	return clockTime(t)
}

func dateTimeIn(lang string, t time.Time) string {
	return longDateIn(lang, t) + ", " + clockTimeIn(lang, t)
}
