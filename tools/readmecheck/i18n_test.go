package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// English left on a Spanish page: every visible text and visible attribute of the page is
// compared with the message catalog's English texts (those whose Spanish differs).

type englishCatalog struct {
	exact    map[string]string // English text -> key
	patterns []englishPattern  // texts with placeholders, as anchored patterns
}

type englishPattern struct {
	key string
	re  *regexp.Regexp
}

var (
	englishOnce sync.Once
	englishCat  englishCatalog
	englishErr  error
)

var placeholderRe = regexp.MustCompile(`\{[a-zA-Z0-9_]+\}`)

func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// loadEnglish reads the catalog's files from the repository: an English text counts when its
// Spanish differs and no Spanish text of the catalog is the same words.
func loadEnglish() (englishCatalog, error) {
	files, err := filepath.Glob(filepath.Join(repo, "internal", "web", "messages", "*.json"))
	if err != nil {
		return englishCatalog{}, err
	}
	type entry struct{ key, en, es string }
	var entries []entry
	spanish := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return englishCatalog{}, err
		}
		var m map[string]map[string]string
		if err := json.Unmarshal(b, &m); err != nil {
			return englishCatalog{}, err
		}
		ns := strings.TrimSuffix(filepath.Base(f), ".json")
		for k, v := range m {
			entries = append(entries, entry{ns + "." + k, normalizeSpace(v["en"]), normalizeSpace(v["es"])})
			spanish[normalizeSpace(v["es"])] = true
		}
	}
	c := englishCatalog{exact: map[string]string{}}
	for _, e := range entries {
		if e.en == "" || e.en == e.es || spanish[e.en] {
			continue
		}
		if !placeholderRe.MatchString(e.en) {
			c.exact[e.en] = e.key
			continue
		}
		// Only a text with words of its own besides the placeholders says anything English: "{score}
		// of {max}" would match any text with " of " in it.
		if len(regexp.MustCompile(`\pL`).FindAllString(placeholderRe.ReplaceAllString(e.en, ""), -1)) < 6 {
			continue
		}
		parts := placeholderRe.Split(e.en, -1)
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		c.patterns = append(c.patterns, englishPattern{e.key, regexp.MustCompile("^" + strings.Join(parts, ".+") + "$")})
	}
	return c, nil
}

// visibleTextsJS lists what a reader sees or hears of the page: its title, the text of every
// rendered element (hidden ones left out; visually hidden ones, read by screen readers, kept),
// and the placeholder, aria-label, title and alt attributes and button values.
const visibleTextsJS = `(() => {
	const out = [document.title];
	const shown = (el) => el && (el.closest("select") ? el.closest("select").checkVisibility() : el.checkVisibility());
	const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n = walker.nextNode(); n; n = walker.nextNode()) {
		const el = n.parentElement;
		if (!el || el.closest("script, style, template, noscript") || !shown(el)) continue;
		out.push(n.textContent);
	}
	for (const el of document.body.querySelectorAll("*")) {
		if (el.closest("script, style, template, noscript") || !shown(el)) continue;
		if (el.children.length > 0 && el.innerText) out.push(el.innerText);
		for (const a of ["placeholder", "aria-label", "title", "alt"]) {
			if (el.hasAttribute(a)) out.push(el.getAttribute(a));
		}
		if (el.matches("button, input[type=submit], input[type=button], input[type=reset]") && el.value) out.push(el.value);
	}
	return out;
})()`

// assertNoEnglish fails when the current page of ctx shows a text of the catalog in English
// that has a Spanish translation: call it on a page opened in Spanish.
func assertNoEnglish(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	englishOnce.Do(func() { englishCat, englishErr = loadEnglish() })
	if englishErr != nil {
		t.Fatal(englishErr)
	}
	if len(englishCat.exact) == 0 {
		t.Fatal("the catalog has no English texts")
	}
	if lang := eval[string](t, ctx, `document.documentElement.lang`); lang != "es" {
		t.Errorf("%s: <html lang=%q>, want es", name, lang)
	}
	seen := map[string]bool{}
	for _, s := range eval[[]string](t, ctx, visibleTextsJS) {
		// A container's text may hold several lines; each is checked on its own as well.
		for _, text := range append(strings.Split(s, "\n"), s) {
			text = normalizeSpace(text)
			if text == "" || seen[text] {
				continue
			}
			seen[text] = true
			if key, ok := englishCat.exact[text]; ok {
				t.Errorf("%s: English left on the Spanish page: %q (%s)", name, text, key)
				continue
			}
			for _, p := range englishCat.patterns {
				if p.re.MatchString(text) {
					t.Errorf("%s: English left on the Spanish page: %q (%s)", name, text, p.key)
					break
				}
			}
		}
	}
	// A file input drawn as the browser draws it shows its own button and "No file chosen" in
	// the browser's language, out of reach of the catalog (and of the text walk above): a page
	// shows its own labelled control instead, the input visually hidden.
	if shown := eval[[]string](t, ctx, fileInputsShownJS); len(shown) > 0 {
		t.Errorf("%s: file inputs drawn with the browser's own text (\"Choose File\"), not the catalog's: %q", name, shown)
	}
}

// fileInputsShownJS lists the file inputs a reader sees drawn by the browser (larger than the
// 1 px of a visually hidden one).
const fileInputsShownJS = `[...document.querySelectorAll("input[type=file]")].filter((e) => {
	if (!e.checkVisibility()) return false;
	const r = e.getBoundingClientRect();
	return r.width > 2 && r.height > 2;
}).map((e) => e.id || e.name || "input")`

func TestEnglishCatalogLoads(t *testing.T) {
	c, err := loadEnglish()
	if err != nil {
		t.Fatal(err)
	}
	if c.exact["Skip to content"] != "common.skip_to_content" {
		t.Fatalf("the catalog's English: %d texts", len(c.exact))
	}
	if _, ok := c.exact["Sous"]; ok {
		t.Fatal("a text the same in both languages counts as English")
	}
}

// spanish makes the tab's browser ask for Spanish (Accept-Language: es-MX, es), as a phone set
// to Spanish does.
func spanish(t *testing.T, ctx context.Context) {
	t.Helper()
	acceptLanguage(t, ctx, "es-MX,es;q=0.9")
}

// acceptLanguage sets the Accept-Language the tab sends.
func acceptLanguage(t *testing.T, ctx context.Context, value string) {
	t.Helper()
	act(t, ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": value}})
		return err
	}))
}

// htmlLang is the page's <html lang>.
func htmlLang(t *testing.T, ctx context.Context) string {
	t.Helper()
	return eval[string](t, ctx, `document.documentElement.lang`)
}

// The quote in Spanish, from the phone's language: no English left, axe-core clean; a refused
// submit on a 375 px phone brings the error summary into view and focuses it.
func TestBrowserQuoteInSpanish(t *testing.T) {
	b := newBrowser(t)
	srv := hostedPages(t)
	o := newOwner(t, srv, "Harborview Kitchens")
	_, token := o.sharedQuote(t)
	ctx := b.tab()
	spanish(t, ctx)
	act(t, ctx, chromedp.Navigate(srv.base()+"/share/q/"+token), chromedp.WaitVisible(chromedp.ID("name")))
	assertNoEnglish(t, ctx, "quote-es")
	review(t, ctx, "quote-es")

	act(t, ctx, chromedp.EmulateViewport(375, 812), chromedp.Click(chromedp.CSS("form button")), chromedp.WaitVisible(chromedp.ID("error-summary")))
	waitFor(t, 5*time.Second, "the summary focused", func() bool {
		return eval[string](t, ctx, `document.activeElement ? document.activeElement.id : ""`) == "error-summary"
	})
	got := eval[map[string]any](t, ctx, `(() => { const r = document.getElementById("error-summary").getBoundingClientRect();
		return {top: r.top, bottom: r.bottom, height: innerHeight, width: innerWidth, links: document.querySelectorAll("#error-summary a").length}; })()`)
	if got["width"].(float64) != 375 || got["top"].(float64) < 0 || got["bottom"].(float64) > got["height"].(float64) || got["links"].(float64) != 2 {
		t.Fatalf("the error summary at 375 px: %v", got)
	}
	t.Logf("error summary at 375 px: top %.0f, bottom %.0f of %.0f", got["top"], got["bottom"], got["height"])
	assertNoEnglish(t, ctx, "quote-es-errors")
	// A link of the summary takes the reader to its field.
	act(t, ctx, chromedp.Click(chromedp.CSS(`#error-summary a[href="#name"]`)))
	if id := eval[string](t, ctx, `document.activeElement.id`); id != "name" {
		t.Fatalf("after the summary's link, focus on %q", id)
	}
	review(t, ctx, "quote-es-errors")
}

// The toggle: English by default, Spanish once chosen, kept across a reload (the cookie and the
// phone's storage) and undone by choosing English.
func TestBrowserLanguageToggleIsKept(t *testing.T) {
	b := newBrowser(t)
	srv := hostedPages(t)
	o := newOwner(t, srv, "Harborview Kitchens")
	_, token := o.sharedQuote(t)
	ctx := b.tab()
	acceptLanguage(t, ctx, "en-US,en;q=0.9")
	url := srv.base() + "/share/q/" + token
	act(t, ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.ID("name")))
	if l := htmlLang(t, ctx); l != "en" {
		t.Fatalf("lang %q", l)
	}
	act(t, ctx, chromedp.Click(chromedp.CSS(`.lang-toggle a[data-lang="es"]`)), chromedp.WaitVisible(chromedp.CSS(`html[lang="es"] #name`)))
	state := func() map[string]any {
		return eval[map[string]any](t, ctx, `({lang: document.documentElement.lang, stored: localStorage.getItem("sous.lang"), search: location.search,
			current: document.querySelector(".lang-toggle [aria-current=true]").dataset.lang, heading: document.querySelector("form h2").textContent})`)
	}
	if s := state(); s["stored"] != "es" || s["search"] != "" || s["current"] != "es" || s["heading"] != "Aceptar esta cotización" {
		t.Fatalf("after the toggle: %v", s)
	}
	assertNoEnglish(t, ctx, "quote-toggle-es")
	act(t, ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("name")))
	if s := state(); s["lang"] != "es" || s["heading"] != "Aceptar esta cotización" {
		t.Fatalf("after a reload: %v", s)
	}
	// Another hosted page follows the choice.
	act(t, ctx, chromedp.Navigate(srv.base()+"/share/q/"+strings.Repeat("A", 43)), chromedp.WaitVisible(chromedp.CSS("h1")))
	if h := eval[string](t, ctx, `document.querySelector("h1").textContent`); h != "Este enlace no es válido" {
		t.Fatalf("h1 %q", h)
	}
	act(t, ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.ID("name")),
		chromedp.Click(chromedp.CSS(`.lang-toggle a[data-lang="en"]`)), chromedp.WaitVisible(chromedp.CSS(`html[lang="en"] #name`)))
	act(t, ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("name")))
	if s := state(); s["lang"] != "en" || s["stored"] != "en" || s["heading"] != "Accept this quote" {
		t.Fatalf("back to English: %v", s)
	}
}

// The invoice, the inspection report and the survey in Spanish: <html lang="es">, no English
// left, axe-core clean.
func TestBrowserDocumentsInSpanish(t *testing.T) {
	b := newBrowser(t)
	srv := hostedPages(t)
	o := newOwner(t, srv, "Harborview Kitchens")
	quote, _ := o.sharedQuote(t)
	o.do(t, "POST", "catering/quotes/"+quote+"/accept", map[string]any{"name": "Maya Chen"}, nil)
	inv := o.create(t, "catering/invoices", map[string]any{"quoteId": quote, "kind": "deposit"})
	o.do(t, "POST", "catering/invoices/"+inv+"/payments", map[string]any{"amountCents": 50000, "method": "card", "paidAt": time.Now().UTC().Format(time.RFC3339)}, nil)
	itoken := o.share(t, "catering/invoices/"+inv+"/share")

	tmpl := o.create(t, "inspection-templates", map[string]any{"name": "Inspección mensual", "passPercent": 60, "sections": []map[string]any{
		{"title": "Refrigeración", "items": []map[string]any{
			{"key": "walkin", "prompt": "Cámara a 5 °C o menos", "kind": "temperature", "weight": 3, "critical": true, "minF": "33", "maxF": "41"},
			{"key": "labels", "prompt": "Recipientes etiquetados", "kind": "pass_fail", "weight": 2},
		}},
	}})
	in := o.create(t, "inspections", map[string]any{"templateId": tmpl, "siteId": o.site, "scheduledFor": time.Now().UTC().Format(time.RFC3339)})
	o.do(t, "PUT", "inspections/"+in+"/responses", map[string]any{"answers": []map[string]any{
		{"key": "walkin", "temperatureF": "39"}, {"key": "labels", "passed": false, "note": "Arroz sin fecha"}}}, nil)
	o.do(t, "POST", "inspections/"+in+"/complete", nil, nil)
	ntoken := o.share(t, "inspections/"+in+"/share")

	survey := o.create(t, "surveys", map[string]any{"name": "Opinión de la comida", "siteId": o.site, "status": "open",
		"thankYouMessage": "Gracias: la cocina lee cada respuesta.", "questions": []map[string]any{
			{"key": "food", "type": "rating", "prompt": "¿Qué le pareció la comida?", "required": true},
			{"key": "recommend", "type": "nps", "prompt": "¿Nos recomendaría?", "required": false},
			{"key": "warm", "type": "yes_no", "prompt": "¿Estaba caliente?", "required": false},
		}})
	stoken := o.share(t, "surveys/"+survey+"/share")

	ctx := b.tab()
	spanish(t, ctx)
	for _, p := range []struct{ name, path, wait string }{
		{"invoice-es", "/share/i/" + itoken, "h1"},
		{"inspection-es", "/share/insp/" + ntoken, "h1"},
		{"survey-es", "/survey/" + stoken, "form button"},
	} {
		act(t, ctx, chromedp.Navigate(srv.base()+p.path), chromedp.WaitVisible(chromedp.CSS(p.wait)))
		assertNoEnglish(t, ctx, p.name)
		review(t, ctx, p.name)
	}
	// The inspection carries the establishment.
	act(t, ctx, chromedp.Navigate(srv.base()+"/share/insp/"+ntoken), chromedp.WaitVisible(chromedp.CSS("h1")))
	if facts := eval[string](t, ctx, `document.querySelector(".facts").innerText`); !strings.Contains(facts, "Harborview Kitchens") || !strings.Contains(facts, "Main Kitchen") {
		t.Fatalf("the inspection's facts: %q", facts)
	}
	// The survey refused, then answered, in Spanish.
	act(t, ctx, chromedp.Navigate(srv.base()+"/survey/"+stoken), chromedp.WaitVisible(chromedp.CSS("form button")),
		chromedp.Click(chromedp.CSS("form button")), chromedp.WaitVisible(chromedp.ID("error-summary")))
	if id := eval[string](t, ctx, `document.activeElement.id`); id != "error-summary" {
		t.Fatalf("focus on %q", id)
	}
	assertNoEnglish(t, ctx, "survey-es-errors")
	review(t, ctx, "survey-es-errors")
	act(t, ctx, chromedp.Click(chromedp.CSS(`input[name="a_food"][value="5"]`)), chromedp.Click(chromedp.CSS("form button")),
		chromedp.WaitVisible(chromedp.Search(`//h1[text()="Gracias"]`)))
	assertNoEnglish(t, ctx, "survey-es-thanks")
}
