package web

import (
	"encoding/json"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/gen/api"
)

func testCatalog(t *testing.T) *catalog {
	t.Helper()
	c, err := loadCatalog(messagesFS)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var placeholderRe = regexp.MustCompile(`\{([a-zA-Z0-9_]+)\}`)

func placeholders(s string) []string {
	var out []string
	for _, m := range placeholderRe.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// Every message exists in English and Spanish, non-empty, with the same placeholders, and no
// file repeats a key (JSON would keep the last one silently).
func TestCatalogHasBothLanguagesWithTheSamePlaceholders(t *testing.T) {
	c := testCatalog(t)
	if len(c.msgs) == 0 {
		t.Fatal("no messages")
	}
	for key, byLang := range c.msgs {
		for l := range byLang {
			if !slices.Contains(languages, l) {
				t.Errorf("%s: unknown language %q", key, l)
			}
		}
		en, es := placeholders(byLang[langEN]), placeholders(byLang[langES])
		if !slices.Equal(en, es) {
			t.Errorf("%s: placeholders en %v, es %v", key, en, es)
		}
	}
	names, _ := fs.Glob(messagesFS, "messages/*.json")
	for _, n := range names {
		b, _ := fs.ReadFile(messagesFS, n)
		dec := json.NewDecoder(strings.NewReader(string(b)))
		seen := map[string]bool{}
		depth := 0
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			switch v := tok.(type) {
			case json.Delim:
				if v == '{' {
					depth++
				} else if v == '}' {
					depth--
				}
			case string:
				if depth == 1 && dec.More() { // a top-level key (its value follows)
					if seen[v] {
						t.Errorf("%s: key %q twice", n, v)
					}
					seen[v] = true
					var skip json.RawMessage
					_ = dec.Decode(&skip)
				}
			}
		}
	}
}

var (
	tmplKeyRe    = regexp.MustCompile(`\.T\s+"([^"]+)"`)
	dataI18nRe   = regexp.MustCompile(`data-i18n="([^"{}]+)"`)
	dataAttrRe   = regexp.MustCompile(`data-i18n-attr="([^"{}]+)"`)
	jsKeyRe      = regexp.MustCompile("\\bt\\(\\s*[\"'`]([a-z][a-z0-9_]*\\.[a-z0-9_]+)[\"'`]")
	goKeyRe      = regexp.MustCompile(`"((?:common|floor|board|guides|quote|invoice|inspection|survey)\.[a-z][a-z0-9_]*[a-z0-9])"`)
	fileSuffixRe = regexp.MustCompile(`\.(?:js|css|html|json|pdf|svg|ico|png|md|txt|csv)$`)
)

// usedKeys is every full key written literally in the package's templates, scripts and Go
// files, with where it was found.
func usedKeys(t *testing.T) map[string]string {
	t.Helper()
	used := map[string]string{}
	add := func(where, key string) {
		if _, ok := used[key]; !ok {
			used[key] = where
		}
	}
	files, _ := filepath.Glob("templates/*.html")
	js, _ := filepath.Glob("static/*.js")
	files = append(files, js...)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := withoutLineComments(string(b))
		for _, re := range []*regexp.Regexp{tmplKeyRe, dataI18nRe, jsKeyRe} {
			for _, m := range re.FindAllStringSubmatch(s, -1) {
				add(f, m[1])
			}
		}
		for _, m := range dataAttrRe.FindAllStringSubmatch(s, -1) {
			for _, pair := range strings.Split(m[1], ";") {
				if _, key, ok := strings.Cut(pair, ":"); ok {
					add(f, strings.TrimSpace(key))
				}
			}
		}
	}
	gofiles, _ := filepath.Glob("*.go")
	for _, f := range gofiles {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range goKeyRe.FindAllStringSubmatch(withoutLineComments(string(b)), -1) {
			if !fileSuffixRe.MatchString(m[1]) {
				add(f, m[1])
			}
		}
	}
	return used
}

// withoutLineComments drops the lines that are comments (where examples of keys are written).
func withoutLineComments(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "//") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestCatalogHasEveryKeyUsed(t *testing.T) {
	c := testCatalog(t)
	used := usedKeys(t)
	if len(used) == 0 {
		t.Fatal("no keys found in the templates")
	}
	for key, where := range used {
		if _, ok := c.msgs[key]; !ok {
			t.Errorf("%s uses %q, which the catalog lacks", where, key)
		}
	}
}

// englishAllowed are the texts a template may write outside the catalog: the product's name.
var englishAllowed = map[string]bool{"Sous": true}

var (
	actionRe     = regexp.MustCompile(`(?s)\{\{.*?\}\}`)
	scriptRe     = regexp.MustCompile(`(?is)<(script|style)\b.*?</(script|style)>`)
	commentRe    = regexp.MustCompile(`(?s)<!--.*?-->`)
	entityRe     = regexp.MustCompile(`&[a-zA-Z]+;|&#[0-9]+;`)
	textRe       = regexp.MustCompile(`>([^<>]*)<`)
	attrRe       = regexp.MustCompile(`\s(alt|title|aria-label|placeholder)="([^"]*)"`)
	buttonValRe  = regexp.MustCompile(`<input\b[^>]*type="(?:submit|button|reset)"[^>]*\svalue="([^"]*)"`)
	letterRe     = regexp.MustCompile(`\p{L}`)
	doctypeRe    = regexp.MustCompile(`(?i)<!doctype[^>]*>`)
	tagOpenRe    = regexp.MustCompile(`<[a-zA-Z][^>]*>`)
	templateDirs = "templates/*.html"
)

// englishOutsideT is the user-visible text a template writes literally: text between tags and
// alt, title, aria-label, placeholder and button values, once its actions are taken out.
func englishOutsideT(src string) []string {
	s := actionRe.ReplaceAllString(src, "")
	s = scriptRe.ReplaceAllString(s, "")
	s = commentRe.ReplaceAllString(s, "")
	s = doctypeRe.ReplaceAllString(s, "")
	s = entityRe.ReplaceAllString(s, " ")
	var out []string
	check := func(text string) {
		text = strings.Join(strings.Fields(text), " ")
		if letterRe.MatchString(text) && !englishAllowed[text] {
			out = append(out, text)
		}
	}
	for _, m := range textRe.FindAllStringSubmatch(s, -1) {
		check(m[1])
	}
	for _, tag := range tagOpenRe.FindAllString(s, -1) {
		for _, m := range attrRe.FindAllStringSubmatch(tag, -1) {
			check(m[2])
		}
		for _, m := range buttonValRe.FindAllStringSubmatch(tag, -1) {
			check(m[1])
		}
	}
	return out
}

func TestTemplatesShowNoTextOutsideTheCatalog(t *testing.T) {
	files, _ := filepath.Glob(templateDirs)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if found := englishOutsideT(string(b)); len(found) > 0 {
				t.Errorf("text outside {{.T}}: %q", found)
			}
		})
	}
	// The check itself finds what it should.
	got := englishOutsideT(`<p class="x" title="Hello">Hi {{.T "a.b"}}</p><input type="submit" value="Send"><input type="checkbox" value="yes"><p>Sous</p><p>{{.Name}} · {{.Other}}</p><script>const s = "no";</script>`)
	if want := []string{"Hi", "Hello", "Send"}; !slices.Equal(got, want) {
		t.Errorf("englishOutsideT = %q, want %q", got, want)
	}
}

func TestAcceptLanguage(t *testing.T) {
	for h, want := range map[string]string{
		"":                             "en",
		"es":                           "es",
		"es-MX,es;q=0.9,en;q=0.8":      "es",
		"es-419":                       "es",
		"en-US,en;q=0.9,es;q=0.8":      "en",
		"fr-FR,es;q=0.5,en;q=0.4":      "es",
		"fr,de":                        "en",
		"en;q=0.2, ES;q=0.8":           "es",
		"*":                            "en",
		"es;q=0":                       "en",
		"es;q=abc":                     "en",
		"pt-BR, es-ES;q=0.7, en;q=0.7": "es",
	} {
		if got := acceptLang(h); got != want {
			t.Errorf("acceptLang(%q) = %s, want %s", h, got, want)
		}
	}
}

func TestLanguageChoice(t *testing.T) {
	e := echo.New()
	for _, c := range []struct {
		name, query, cookie, header, want string
		setsCookie                        bool
	}{
		{"query wins and is kept", "?lang=es", "en", "en", "es", true},
		{"cookie over header", "", "es", "en-US", "es", false},
		{"header", "", "", "es-MX,es;q=0.9", "es", false},
		{"unknown query and cookie are ignored", "?lang=fr", "de", "es", "es", false},
		{"nothing is English", "", "", "", "en", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/share/q/abc"+c.query, nil)
			if c.cookie != "" {
				req.Header.Set("Cookie", langCookie+"="+c.cookie)
			}
			if c.header != "" {
				req.Header.Set("Accept-Language", c.header)
			}
			rec := httptest.NewRecorder()
			ctx := e.NewContext(req, rec)
			if got := langOf(ctx); got != c.want {
				t.Fatalf("langOf = %s, want %s", got, c.want)
			}
			_ = langOf(ctx) // a second call answers from the context, setting nothing again
			cookies := rec.Result().Cookies()
			if c.setsCookie {
				if len(cookies) != 1 || cookies[0].Name != langCookie || cookies[0].Value != c.want || cookies[0].Path != "/" ||
					cookies[0].MaxAge != 365*24*3600 || cookies[0].SameSite != 2 /* Lax */ {
					t.Fatalf("cookies %v", cookies)
				}
			} else if len(cookies) != 0 {
				t.Fatalf("cookies %v", cookies)
			}
		})
	}
}

func TestCatalogText(t *testing.T) {
	c := &catalog{msgs: map[string]map[string]string{
		"quote.total_for": {"en": "Total for {name}: {total}", "es": "Total para {name}: {total}"},
	}}
	for _, tc := range []struct {
		lang string
		kv   []any
		want string
		err  bool
	}{
		{"en", []any{"name", "Maya", "total", "$5"}, "Total for Maya: $5", false},
		{"es", []any{"name", "Maya", "total", 5}, "Total para Maya: 5", false},
		{"fr", []any{"name", "Maya", "total", "$5"}, "Total for Maya: $5", false},
		{"en", []any{"name"}, "", true},
		{"en", []any{1, "x"}, "", true},
	} {
		got, err := c.text(tc.lang, "quote.total_for", tc.kv...)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("text(%s, %v) = %q, %v", tc.lang, tc.kv, got, err)
		}
	}
	if _, err := c.text("en", "quote.nope"); err == nil {
		t.Error("an unknown key is not an error")
	}
	if got := c.must("en", "quote.nope"); got != "quote.nope" {
		t.Errorf("must = %q", got)
	}
}

func TestDatesInSpanish(t *testing.T) {
	loc := zone("America/Chicago")
	at := time.Date(2026, 6, 13, 23, 0, 0, 0, time.UTC).In(loc)
	for _, c := range []struct{ lang, want string }{
		{"en", "Saturday, June 13, 2026, 6:00 PM CDT"},
		{"es", "sábado, 13 de junio de 2026, 6:00 p.m. CDT"},
	} {
		if got := dateTimeIn(c.lang, at); got != c.want {
			t.Errorf("%s: %q, want %q", c.lang, got, c.want)
		}
	}
	if got := clockTimeIn("es", at.Add(-12*time.Hour)); got != "6:00 a.m. CDT" {
		t.Errorf("morning: %q", got)
	}
}

// The layout embeds the messages a page's script asks for, with common, in both languages.
func TestCatalogScriptBlock(t *testing.T) {
	c := testCatalog(t)
	s := c.script("es", []string{"quote"})
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Lang     string
		Messages map[string]map[string]string
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Lang != "es" || got.Messages["es"]["common.language"] != "Idioma" || got.Messages["en"]["common.language"] != "Language" {
		t.Fatalf("%s", b)
	}
	for k := range got.Messages["en"] {
		if !strings.HasPrefix(k, "common.") && !strings.HasPrefix(k, "quote.") {
			t.Fatalf("%s is not asked for", k)
		}
	}
}

// The invoice PDF says the status as people do, in the page's language.
func TestInvoicePDFSaysTheStatusInWords(t *testing.T) {
	cat := testCatalog(t)
	base := api.SharedInvoice{
		Brand: api.PublicBrand{Name: "Harborview Kitchens"}, ClientName: "Maya Chen", EventName: "Reception", Number: "INV-7",
		Kind: api.InvoiceKindDeposit, TotalCents: 227572, IssuedAt: time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC),
	}
	for _, c := range []struct {
		status   api.InvoiceStatus
		paid     int64
		lang     string
		want     string
		notWants []string
	}{
		{api.InvoiceStatusPaid, 227572, "en", "Paid in full", []string{"(paid)"}},
		{api.InvoiceStatusOpen, 100000, "en", "Partly paid", []string{"(open)"}},
		{api.InvoiceStatusOpen, 0, "en", "Awaiting payment", []string{"(open)"}},
		{api.InvoiceStatusVoid, 0, "en", "Void", []string{"(void)"}},
		{api.InvoiceStatusPaid, 227572, "es", "Pagada en su totalidad", []string{"Paid in full"}},
		{api.InvoiceStatusOpen, 100000, "es", "Pagada en parte", []string{"Partly paid", "Billed to"}},
	} {
		i := base
		i.Status, i.PaidCents, i.BalanceCents = c.status, c.paid, base.TotalCents-c.paid
		v := newInvoiceView(msg{cat: cat, lang: c.lang}, i, "America/Chicago")
		b, err := invoicePDF(v)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		// The core fonts' text is written in the PDF as (text) Tj, in the Windows code page.
		if !strings.Contains(text, "("+latin1(c.want)+")") {
			t.Errorf("%s %s: the PDF lacks %q", c.status, c.lang, c.want)
		}
		for _, nw := range c.notWants {
			if strings.Contains(text, nw) {
				t.Errorf("%s %s: the PDF shows %q", c.status, c.lang, nw)
			}
		}
	}
}

// latin1 is s as the PDF's core fonts store it (one byte a letter).
func latin1(s string) string {
	var b []byte
	for _, r := range s {
		b = append(b, byte(r))
	}
	return string(b)
}
