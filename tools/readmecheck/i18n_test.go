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
		// Only a text with words of its own besides the placeholders says anything English.
		if !regexp.MustCompile(`\pL{2,}`).MatchString(placeholderRe.ReplaceAllString(e.en, "")) {
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
}

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
