package web_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// getLang fetches a page as a browser set to a language would.
func getLang(t *testing.T, env *apitest.Env, path, acceptLanguage string) page {
	t.Helper()
	return sendWith(t, env, http.MethodGet, path, nil, http.Header{"Accept-Language": {acceptLanguage}})
}

func sendWith(t *testing.T, env *apitest.Env, method, path string, form url.Values, h http.Header) page {
	t.Helper()
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	req, err := http.NewRequestWithContext(t.Context(), method, env.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Forwarded-For", env.NewIP())
	req.Header.Set("Accept", "text/html")
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range h {
		req.Header[k] = v
	}
	res, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return page{status: res.StatusCode, header: res.Header, body: string(b)}
}

// A quote read in Spanish: the language from Accept-Language, the cookie or ?lang=, the page's
// lang, its words, dates and validation messages; every page varies by the two headers.
func TestQuotePageInSpanish(t *testing.T) {
	t.Parallel()
	o := newOrg(t, "Harborview Kitchens")
	_, token := o.quote(o.event(), "2026-03-20")
	path := "/share/q/" + token

	p := getLang(t, o.env, path, "es-419,es;q=0.9,en;q=0.5").expect(t, http.StatusOK)
	if v := p.header.Get("Vary"); v != "Accept-Language, Cookie" {
		t.Fatalf("Vary %q", v)
	}
	p.contains(t, `<html lang="es">`, "Cotización para Chen–Ortiz wedding reception", "En espera de su aceptación", "Preparada para",
		"sábado, 13 de junio de 2026, 6:00 p.m. CDT", "11:00 p.m. CDT", "viernes, 20 de marzo de 2026", "Cargo por servicio (20%)",
		"Anticipo a pagar (30%)", "Comida", "Aceptar cotización", `hreflang="en"`, `lang="es" data-lang="es" aria-current="true"`, "$7,585.72")
	if strings.Contains(p.body, "Awaiting your acceptance") || strings.Contains(p.body, "Saturday") {
		t.Fatal("English on the Spanish page")
	}
	if len(p.header.Values("Set-Cookie")) != 0 {
		t.Fatal("a language from the header is not kept in a cookie")
	}

	// English by default, and the layout names the language.
	get(t, o.env, path, "").expect(t, http.StatusOK).contains(t, `<html lang="en">`, "Awaiting your acceptance", `lang="en" data-lang="en" aria-current="true"`)

	// ?lang= wins over the header and is kept in a cookie; the cookie then wins over the header.
	p = getLang(t, o.env, path+"?lang=es", "en-US").expect(t, http.StatusOK)
	p.contains(t, `<html lang="es">`)
	ck := p.header.Get("Set-Cookie")
	if !strings.HasPrefix(ck, "sous_lang=es;") || !strings.Contains(ck, "Path=/") || !strings.Contains(ck, "Max-Age=31536000") || !strings.Contains(ck, "SameSite=Lax") {
		t.Fatalf("Set-Cookie %q", ck)
	}
	sendWith(t, o.env, http.MethodGet, path, nil, http.Header{"Accept-Language": {"en-US"}, "Cookie": {"sous_lang=es"}}).
		expect(t, http.StatusOK).contains(t, `<html lang="es">`)

	// A refused form in Spanish: the summary and the messages beside the fields.
	p = sendWith(t, o.env, http.MethodPost, path, url.Values{"name": {" "}}, http.Header{"Cookie": {"sous_lang=es"}}).expect(t, http.StatusBadRequest)
	p.contains(t, `id="error-summary"`, "Corrija los campos marcados a continuación.", `<a href="#name">Escriba su nombre (200 caracteres como máximo).</a>`,
		`<p class="error" id="agree-error">Marque la casilla para aceptar las condiciones.</p>`, "forms.")

	// Error pages too.
	getLang(t, o.env, "/share/q/"+strings.Repeat("A", 43), "es").expect(t, http.StatusNotFound).contains(t, `<html lang="es">`, "Este enlace no es válido")
}

// The favicon: the SVG linked from every page under its hashed name, and /favicon.ico.
func TestFavicon(t *testing.T) {
	t.Parallel()
	o := newOrg(t, "Harborview Kitchens")
	_, token := o.quote(o.event(), "2026-03-20")
	p := get(t, o.env, "/share/q/"+token, "").expect(t, http.StatusOK)
	i := strings.Index(p.body, `<link rel="icon" type="image/svg+xml" href="/assets/favicon.`)
	if i < 0 {
		t.Fatal("no icon link")
	}
	href := strings.SplitN(p.body[i+len(`<link rel="icon" type="image/svg+xml" href="`):], `"`, 2)[0]
	svg := get(t, o.env, href, "")
	if svg.status != http.StatusOK || svg.header.Get("Content-Type") != "image/svg+xml" || svg.header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Fatalf("%s: %d %v", href, svg.status, svg.header)
	}
	ico := get(t, o.env, "/favicon.ico", "")
	if ico.status != http.StatusOK || ico.header.Get("Content-Type") != "image/vnd.microsoft.icon" || !strings.HasPrefix(ico.body, "\x00\x00\x01\x00") ||
		ico.header.Get("Cache-Control") != "public, max-age=86400" {
		t.Fatalf("/favicon.ico: %d %v", ico.status, ico.header)
	}
}

// A survey answered in Spanish: the page, its scale ends, and the messages of a refused form.
func TestSurveyInSpanish(t *testing.T) {
	t.Parallel()
	o := newOrg(t, "Harborview Kitchens")
	token := o.share("surveys/" + o.survey("open", nil) + "/share")
	path := "/survey/" + token
	getLang(t, o.env, path, "es").expect(t, http.StatusOK).contains(t, `<html lang="es">`, "1 = malo", "5 = excelente", "0 = nada probable",
		"Enviar respuestas", "son obligatorias.", `value="yes"> Sí</label>`)
	p := sendWith(t, o.env, http.MethodPost, path, url.Values{"a_recommend": {"11"}}, http.Header{"Accept-Language": {"es"}}).expect(t, http.StatusBadRequest)
	p.contains(t, `id="error-summary"`, "Algunas respuestas requieren su atención:", `<p class="error" id="q0-error">Responda esta pregunta.</p>`,
		`<p class="error" id="q1-error">La respuesta debe ser un número entero del 0 al 10.</p>`, `<a href="#q0-0">How was the food?: Responda esta pregunta.</a>`)
}

// An invoice in Spanish: its title, status in words, dates and payment method.
func TestInvoiceInSpanish(t *testing.T) {
	t.Parallel()
	o := newOrg(t, "Harborview Kitchens")
	quote, _ := o.quote(o.event(), "2026-03-20")
	o.call(http.MethodPost, "catering/quotes/"+quote+"/accept").JSON(map[string]any{"name": "Maya Chen"}).Do().Expect(http.StatusOK)
	inv := o.create("catering/invoices", map[string]any{"quoteId": quote, "kind": "deposit"})
	o.call(http.MethodPost, "catering/invoices/"+inv+"/payments").
		JSON(map[string]any{"amountCents": 100000, "method": "card", "paidAt": "2026-03-05T16:00:00Z"}).Do().Expect(http.StatusCreated)
	token := o.share("catering/invoices/" + inv + "/share")
	p := getLang(t, o.env, "/share/i/"+token, "es-US").expect(t, http.StatusOK)
	p.contains(t, `<html lang="es">`, "Factura de anticipo", "Saldo pendiente: $1,275.72", "Pagada en parte", "jueves, 5 de marzo de 2026", "Tarjeta",
		"Descargar PDF", `.pdf?lang=es"`)
	pdf := get(t, o.env, "/share/i/"+token+".pdf?lang=es", "")
	if pdf.status != http.StatusOK || !strings.Contains(pdf.body, "Pagada en parte") || !strings.Contains(pdf.body, "Facturado a") {
		t.Fatalf("the Spanish PDF: %d", pdf.status)
	}
}
