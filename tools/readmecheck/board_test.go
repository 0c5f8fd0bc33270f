package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The board in Spanish from the first page: the pairing form says where the code comes from and
// its errors are Spanish; paired, a recipe cast lists each ingredient with its quantity, the
// site's probes show their latest readings (the one out of range said so in words), two alerts
// about one probe show once with their count, the device's dark theme colours the screen; the
// toggle switches to English in place, and a change to a light theme applies at once.
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

	// Two probes: the walk-in's in range, the reach-in's out of range for 16 minutes (an
	// excursion) and then reading the impossible (a fault): two alerts about one probe, one line.
	probes := boardProbes(t, o)
	temps := func() []map[string]any {
		return eval[[]map[string]any](t, ctx, `[...document.querySelectorAll(".temperatures li")].map((li) => ({
			text: li.textContent.replace(/\s+/g, " ").trim(), out: li.classList.contains("out"),
			place: li.querySelector(".temp-place").textContent, value: (li.querySelector(".temp-value") || {}).textContent || "",
			status: li.querySelector(".temp-state").textContent, at: (li.querySelector(".temp-at") || {}).textContent || "",
			age: (li.querySelector(".temp-age") || {}).textContent || "",
			frame: parseFloat(getComputedStyle(li).borderTopWidth)}))`)
	}
	alertLines := func() []string {
		return eval[[]string](t, ctx, `[...document.querySelectorAll(".alerts li")].map((li) => li.textContent.replace(/\s+/g, " ").trim())`)
	}
	waitFor(t, 15*time.Second, "the temperatures and both alerts", func() bool {
		got := alertLines()
		return len(temps()) == 2 && len(got) > 0 && strings.Contains(strings.Join(got, "|"), "alertas")
	})
	probes.check(t, temps(), "es")
	if got := alertLines(); len(got) != 1 || !strings.Contains(got[0], "Reach-in probe (Reach-in cooler) above 41 °F") || !strings.HasSuffix(got[0], "2 alertas") ||
		!strings.HasPrefix(got[0], "Temperatura fuera de rango") {
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
		return len(got) == 1 && strings.HasSuffix(got[0], "2 alerts") && strings.HasPrefix(got[0], "Temperature out of range")
	})
	probes.check(t, temps(), "en")
	review(t, ctx, "board-temperatures-en")
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

	// A guide's link to the reference opens a page of the same kind, not Markdown text.
	act(t, ctx, chromedp.EmulateViewport(375, 800), chromedp.Navigate(srv.base()+"/docs/guides/devices.md"), chromedp.WaitVisible(chromedp.CSS("article.guide h1")),
		chromedp.Click(chromedp.CSS(`article.guide a[href="/docs/reference/alerts.md"]`)))
	waitFor(t, 5*time.Second, "the alerts reference", func() bool {
		return eval[bool](t, ctx, `location.pathname === "/docs/reference/alerts.md" && !!document.querySelector("article.guide h1")`)
	})
	if got := eval[map[string]any](t, ctx, `({type: document.contentType, title: document.title, raw: !!document.querySelector('a[href="?raw=1"]'),
		page: document.documentElement.scrollWidth, view: window.innerWidth})`); got["type"] != "text/html" ||
		!strings.HasSuffix(got["title"].(string), "· Sous documentation") || got["raw"] != true || got["page"].(float64) > got["view"].(float64) {
		t.Fatalf("the reference page: %v", got)
	}
	review(t, ctx, "docs-reference-alerts")
}

// probeReadings is what boardProbes posted: the walk-in's probe read 38.5 °F two minutes ago (in
// its cooler's 33–41 °F); the reach-in's read 47, 48.5 and 46.5 °F over 16 minutes (out of range
// for longer than its 5 minutes: an excursion), the last four minutes ago, then three impossible
// values (a fault). Both alerts are about the reach-in's probe.
type probeReadings struct {
	walkInAt, reachInAt time.Time
}

func boardProbes(t *testing.T, o *owner) probeReadings {
	t.Helper()
	walkIn := o.create(t, "storage-locations", map[string]any{"siteId": o.site, "name": "Walk-in cooler", "kind": "cooler", "minTempF": "33", "maxTempF": "41"})
	reachIn := o.create(t, "storage-locations", map[string]any{"siteId": o.site, "name": "Reach-in cooler", "kind": "cooler", "minTempF": "33", "maxTempF": "41"})
	gateway := o.create(t, "devices", map[string]any{"name": "Probe gateway", "kind": "sensor_gateway", "siteId": o.site})
	var pair struct {
		Code string `json:"code"`
	}
	o.do(t, "POST", "devices/"+gateway+"/pair", nil, &pair)
	var paired struct {
		DeviceToken string `json:"deviceToken"`
	}
	callAt(t, o.srv.API, "", "POST", "/devices/pair", map[string]string{"code": pair.Code}, &paired)
	o.create(t, "sensors", map[string]any{"name": "Walk-in probe", "gatewayDeviceId": gateway, "externalId": "walk-in", "kind": "temperature",
		"siteId": o.site, "storageLocationId": walkIn})
	o.create(t, "sensors", map[string]any{"name": "Reach-in probe", "gatewayDeviceId": gateway, "externalId": "reach-in", "kind": "temperature",
		"siteId": o.site, "storageLocationId": reachIn, "excursionMinutes": 5})

	now := time.Now().UTC().Truncate(time.Second)
	p := probeReadings{walkInAt: now.Add(-2 * time.Minute), reachInAt: now.Add(-4 * time.Minute)}
	reading := func(sensor string, at time.Time, value string) map[string]any {
		return map[string]any{"sensor": sensor, "at": at, "value": value, "unit": "F"}
	}
	body, _ := json.Marshal(map[string]any{"readings": []map[string]any{
		reading("walk-in", p.walkInAt, "38.5"),
		reading("reach-in", now.Add(-20*time.Minute), "47"), reading("reach-in", now.Add(-12*time.Minute), "48.5"), reading("reach-in", p.reachInAt, "46.5"),
		reading("reach-in", now.Add(-3*time.Minute), "2000"), reading("reach-in", now.Add(-150*time.Second), "2000"), reading("reach-in", now.Add(-2*time.Minute), "2000"),
	}})
	req, _ := http.NewRequestWithContext(t.Context(), "POST", o.srv.API+"/device/readings", bytes.NewReader(body))
	req.Header.Set("content-type", "application/json")
	req.Header.Set("x-device-token", paired.DeviceToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var result struct {
		Accepted int `json:"accepted"`
		Rejected []struct {
			Reason string `json:"reason"`
		} `json:"rejected"`
	}
	if err := json.NewDecoder(res.Body).Decode(&result); err != nil || res.StatusCode != http.StatusOK || len(result.Rejected) != 3 {
		t.Fatalf("readings: %d %+v %v", res.StatusCode, result, err)
	}
	return p
}

// check compares the board's temperature lines with the readings posted: the reach-in first (by
// location name), out of range in words and framed; the walk-in in range; each at its reading's
// local time, with its age.
func (p probeReadings) check(t *testing.T, got []map[string]any, lang string) {
	t.Helper()
	chicago, _ := time.LoadLocation("America/Chicago")
	words := map[string][4]string{ // out, in, range, excursion
		"es": {"FUERA DE RANGO", "Dentro del rango", "Rango de 33 a 41 °F", "Desviación abierta"},
		"en": {"OUT OF RANGE", "In range", "Range 33 to 41 °F", "Excursion open"},
	}[lang]
	age := map[string]*regexp.Regexp{"es": regexp.MustCompile(`^hace \d+ minutos$`), "en": regexp.MustCompile(`^\d+ minutes ago$`)}[lang]
	if len(got) != 2 {
		t.Fatalf("%s: temperatures %v", lang, got)
	}
	for i, want := range []struct {
		place, value, status string
		out                  bool
		at                   time.Time
	}{
		{"Reach-in cooler", "46.5 °F", words[0], true, p.reachInAt},
		{"Walk-in cooler", "38.5 °F", words[1], false, p.walkInAt},
	} {
		g := got[i]
		text, _ := g["text"].(string)
		clock := want.at.In(chicago).Format("3:04")
		if g["place"] != want.place || g["value"] != want.value || g["status"] != want.status || g["out"] != want.out ||
			!strings.Contains(g["at"].(string), clock) || !age.MatchString(g["age"].(string)) || !strings.Contains(text, words[2]) {
			t.Errorf("%s: temperature %d: %v, want %+v at %s", lang, i, g, want, clock)
		}
		// Out of range is said in words and marked by a heavy frame, not by colour alone.
		if frame := g["frame"].(float64); want.out != (frame >= 4) {
			t.Errorf("%s: %s: frame %.1fpx", lang, want.place, frame)
		}
	}
	if text := got[0]["text"].(string); !strings.Contains(text, "⚠") || !strings.Contains(text, words[3]) {
		t.Errorf("%s: the reach-in is not marked: %q", lang, text)
	}
}
