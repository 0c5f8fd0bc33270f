package main

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The board in Spanish from the first page: the pairing form says where the code comes from and
// its errors are Spanish; paired, a recipe cast lists each ingredient with its quantity, two
// alerts with the same message show once with their count, the device's dark theme colours the
// screen; the toggle switches to English in place, and a change to a light theme applies at once.
func TestBrowserBoardRecipeThemeAlertsAndSpanish(t *testing.T) {
	b := newBrowser(t)
	srv := hostedPages(t)
	o := newOwner(t, srv, "Harborview Kitchens")

	rice := o.create(t, "inventory-items", map[string]any{"name": "Jasmine rice", "category": "dry goods", "baseUnit": "kg"})
	onion := o.create(t, "inventory-items", map[string]any{"name": "Yellow onion", "category": "produce", "baseUnit": "kg"})
	pilaf := o.create(t, "recipes", map[string]any{
		"name": "Rice pilaf", "category": "side", "yield": map[string]string{"quantity": "10", "unit": "kg"},
		"portion":     map[string]string{"quantity": "250", "unit": "g"},
		"ingredients": []map[string]string{{"itemId": rice, "quantity": "4", "unit": "kg"}, {"itemId": onion, "quantity": "500", "unit": "g"}},
		"steps":       []string{"Toast the rice.", "Add stock, cover, bake."},
	})
	device := o.create(t, "devices", map[string]any{"name": "Hot line", "kind": "wallboard_boh", "siteId": o.site})
	var pair struct {
		Code string `json:"code"`
	}
	o.do(t, "POST", "devices/"+device+"/pair", nil, &pair)

	ctx := b.tab()
	act(t, ctx, chromedp.Navigate(srv.base()+"/board?lang=es"), chromedp.WaitVisible(chromedp.ID("code")))
	where := eval[string](t, ctx, `document.getElementById("pair-where").textContent`)
	if !strings.Contains(where, "administrador") || !strings.Contains(where, "10 minutos") {
		t.Fatalf("where the code comes from: %q", where)
	}
	assertNoEnglish(t, ctx, "board-pairing-es")
	review(t, ctx, "board-pairing-es")
	act(t, ctx, chromedp.SendKeys(chromedp.ID("code"), "abc"), chromedp.Click(chromedp.CSS("#pairing button")),
		chromedp.WaitVisible(chromedp.ID("pair-error")))
	if msg := eval[string](t, ctx, `document.getElementById("pair-error").textContent`); msg != "El código tiene 6 caracteres." {
		t.Fatalf("pairing error %q", msg)
	}
	assertNoEnglish(t, ctx, "board-pairing-error-es")
	act(t, ctx, chromedp.SetValue(chromedp.ID("code"), "ZZZZZZ"), chromedp.Click(chromedp.CSS("#pairing button")))
	waitFor(t, 5*time.Second, "the refused code's error", func() bool {
		return strings.HasPrefix(eval[string](t, ctx, `document.getElementById("pair-error").textContent`), "Ese código no es válido")
	})
	act(t, ctx, chromedp.SetValue(chromedp.ID("code"), pair.Code), chromedp.Click(chromedp.CSS("#pairing button")),
		chromedp.WaitVisible(chromedp.CSS(".production")))

	// The dark theme (the default of a wallboard's config) colours the page.
	background := func() float64 {
		return eval[float64](t, ctx, `(() => {
			const [r, g, b] = getComputedStyle(document.documentElement).backgroundColor.match(/\d+/g).map(Number);
			return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
		})()`)
	}
	if th := eval[string](t, ctx, `document.documentElement.dataset.theme || ""`); th != "dark" || background() > 0.2 {
		t.Fatalf("theme %q, background luminance %.2f", th, background())
	}

	// The recipe cast: every ingredient's name with its quantity.
	o.do(t, "POST", "devices/"+device+"/cast", map[string]any{"type": "recipe", "recipeId": pilaf}, nil)
	ingredients := func() []string {
		return eval[[]string](t, ctx, `[...document.querySelectorAll("#cast-recipe .ingredient")].map((li) => li.textContent.replace(/\s+/g, " ").trim())`)
	}
	waitFor(t, 15*time.Second, "the recipe cast", func() bool { return len(ingredients()) == 2 })
	if got := strings.Join(ingredients(), " | "); got != "4 kg Jasmine rice | 500 g Yellow onion" {
		t.Fatalf("ingredients %q", got)
	}

	// Two checks of the same cooler, both out of range: two alerts, one message, shown once.
	due := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	for range 2 {
		task := o.create(t, "tasks", map[string]any{"siteId": o.site, "title": "Log walk-in cooler temperature", "kind": "temperature_log",
			"priority": "high", "requiresTemp": true, "tempRange": map[string]string{"minF": "33", "maxF": "41"}, "dueAt": due})
		o.do(t, "POST", "tasks/"+task+"/complete", map[string]any{"temperature": map[string]string{"value": "50", "unit": "F"}, "note": "Door left open; product moved."}, nil)
	}
	alertLines := func() []string {
		return eval[[]string](t, ctx, `[...document.querySelectorAll(".alerts li")].map((li) => li.textContent.replace(/\s+/g, " ").trim())`)
	}
	waitFor(t, 15*time.Second, "both alerts", func() bool {
		got := alertLines()
		return len(got) > 1 || (len(got) == 1 && strings.Contains(got[0], "veces"))
	})
	if got := alertLines(); len(got) != 1 || !strings.Contains(got[0], "Log walk-in cooler temperature: 50 °F") || !strings.HasSuffix(got[0], "2 veces") {
		t.Fatalf("alerts %q", got)
	}
	if h := eval[string](t, ctx, `document.querySelector(".alerts h2").textContent`); h != "Alertas" {
		t.Fatalf("alerts heading %q", h)
	}
	assertNoEnglish(t, ctx, "board-wallboard-es")
	review(t, ctx, "board-recipe-dark-es")

	// The toggle: English in place, without a reload.
	act(t, ctx, chromedp.Click(chromedp.CSS(`.lang-toggle [data-lang="en"]`)))
	waitFor(t, 5*time.Second, "English", func() bool {
		got := alertLines()
		return len(got) == 1 && strings.HasSuffix(got[0], "2 times")
	})
	if got := eval[map[string]string](t, ctx, `({lang: document.documentElement.lang, heading: document.querySelector(".production h2").textContent,
		ing: document.querySelector("#cast-recipe h3").textContent})`); got["lang"] != "en" || got["heading"] != "Production" || got["ing"] != "Ingredients" {
		t.Fatalf("after the toggle: %v", got)
	}

	// A light theme applies as soon as the device's config changes.
	o.do(t, "PUT", "devices/"+device, map[string]any{"config": map[string]any{"theme": "light"}}, nil)
	waitFor(t, 15*time.Second, "the light theme", func() bool {
		return eval[string](t, ctx, `document.documentElement.dataset.theme || ""`) == "light"
	})
	if l := background(); l < 0.8 {
		t.Fatalf("light theme: background luminance %.2f", l)
	}
	review(t, ctx, "board-recipe-light")
}

// A guide is a page: readable at 375 px with nothing scrolling sideways, axe-core clean, its
// links to another guide's section and to its own sections landing on them.
func TestBrowserGuidePages(t *testing.T) {
	b := newBrowser(t)
	srv := hostedPages(t)
	ctx := b.tab()
	act(t, ctx, chromedp.EmulateViewport(375, 800), chromedp.Navigate(srv.base()+"/docs/guides/devices.md"), chromedp.WaitVisible(chromedp.CSS("article.guide h1")))
	widths := func() map[string]float64 {
		return eval[map[string]float64](t, ctx, `({page: document.documentElement.scrollWidth, view: window.innerWidth,
			widest: Math.max(...[...document.querySelectorAll("article.guide pre, article.guide table")].map((e) => e.getBoundingClientRect().right))})`)
	}
	if w := widths(); w["page"] > w["view"] || w["widest"] > w["view"] {
		t.Fatalf("the guide scrolls sideways at 375 px: %v", w)
	}
	review(t, ctx, "guide-devices")

	act(t, ctx, chromedp.EmulateViewport(375, 800), chromedp.Click(chromedp.CSS(`article.guide a[href="/docs/guides/sensors.md#a-probe-that-reads-the-impossible"]`)))
	waitFor(t, 5*time.Second, "the sensors guide", func() bool {
		return eval[string](t, ctx, `location.pathname + location.hash`) == "/docs/guides/sensors.md#a-probe-that-reads-the-impossible"
	})
	waitFor(t, 5*time.Second, "the section in view", func() bool {
		return eval[bool](t, ctx, `(() => { const h = document.getElementById("a-probe-that-reads-the-impossible");
			return !!h && Math.abs(h.getBoundingClientRect().top) < 40; })()`)
	})
	if w := widths(); w["page"] > w["view"] {
		t.Fatalf("the sensors guide scrolls sideways at 375 px: %v", w)
	}

	act(t, ctx, chromedp.Navigate(srv.base()+"/docs/guides/"), chromedp.WaitVisible(chromedp.CSS("article.guide h1")))
	if n := eval[int](t, ctx, `document.querySelectorAll('article.guide a[href^="/docs/guides/"]').length`); n < 15 {
		t.Fatalf("the index links %d guides", n)
	}
	review(t, ctx, "guides-index")
}
