package web_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

func TestInvoicePageAndPDFShowTheSameNumbers(t *testing.T) {
	t.Parallel()
	o := newOrg(t, "Harborview Kitchens")
	quote, _ := o.quote(o.event(), "2026-03-20")
	o.call(http.MethodPost, "catering/quotes/"+quote+"/accept").JSON(map[string]any{"name": "Maya Chen"}).Do().Expect(http.StatusOK)
	inv := o.create("catering/invoices", map[string]any{"quoteId": quote, "kind": "deposit"})
	// Paid at 16:00 UTC on March 5: 10:00 AM in Chicago.
	o.call(http.MethodPost, "catering/invoices/"+inv+"/payments").
		JSON(map[string]any{"amountCents": 100000, "method": "card", "paidAt": "2026-03-05T16:00:00Z", "reference": "Visa 4242"}).Do().Expect(http.StatusCreated)
	token := o.share("catering/invoices/" + inv + "/share")

	p := get(t, o.env, "/share/i/"+token, "").expect(t, http.StatusOK)
	p.noIDs(t, o)
	p.contains(t, "Deposit invoice", "Maya Chen", "Chen–Ortiz wedding reception", "Thursday, March 5, 2026", "Card",
		"$2,275.72", "$1,000.00", "$1,275.72", "Balance due: $1,275.72", "Partly paid", `href="/share/i/`+token+`.pdf?lang=en"`, `media="print"`)
	if strings.Contains(p.body, "Visa 4242") {
		t.Fatal("the page shows the payment's internal reference")
	}

	res := get(t, o.env, "/share/i/"+token+".pdf", "")
	if res.status != http.StatusOK || res.header.Get("Content-Type") != "application/pdf" || res.header.Get("Cache-Control") != "no-store" ||
		!strings.HasPrefix(res.header.Get("Content-Disposition"), `attachment; filename="invoice-`) {
		t.Fatalf("pdf: %d %v", res.status, res.header)
	}
	b := []byte(res.body)
	if !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Fatal("not a PDF")
	}
	for _, want := range []string{"$2,275.72", "$1,000.00", "$1,275.72", "Maya Chen", "Thursday, March 5, 2026", "Partly paid", "Harborview Kitchens"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Fatalf("the PDF lacks %q", want)
		}
	}
}

func TestInspectionPageAndPDF(t *testing.T) {
	t.Parallel()
	o := newOrg(t, "Harborview Kitchens")
	tmpl := o.create("inspection-templates", map[string]any{"name": "Monthly food safety", "passPercent": 60, "sections": []map[string]any{
		{"title": "Cold holding", "items": []map[string]any{
			{"key": "walkin_temp", "prompt": "Walk-in at or below 41°F", "kind": "temperature", "weight": 3, "critical": true, "minF": "33", "maxF": "41"},
			{"key": "labels", "prompt": "Containers labelled", "kind": "pass_fail", "weight": 2, "dueDays": 3},
		}},
		{"title": "Sanitation", "items": []map[string]any{
			{"key": "sani", "prompt": "Sanitizer concentration", "kind": "score", "maxScore": 5},
		}},
	}})
	in := o.create("inspections", map[string]any{"templateId": tmpl, "siteId": o.site, "scheduledFor": "2026-03-02T14:00:00Z"})
	base := "inspections/" + in
	o.call(http.MethodPut, base+"/responses").JSON(map[string]any{"answers": []map[string]any{
		{"key": "walkin_temp", "temperatureF": "39"}, {"key": "labels", "passed": false, "note": "Undated rice"}, {"key": "sani", "score": 4}}}).Do().Expect(http.StatusOK)
	o.call(http.MethodPost, base+"/complete").Do().Expect(http.StatusOK)
	token := o.share(base + "/share")

	p := get(t, o.env, "/share/insp/"+token, "").expect(t, http.StatusOK)
	p.noIDs(t, o)
	p.contains(t, "Monthly food safety", "Main Kitchen", "Monday, March 2, 2026", "PASS", "Cold holding", "Sanitation",
		"Containers labelled", "Undated rice", "Corrective action open", "Walk-in at or below 41°F", `href="/share/insp/`+token+`.pdf?lang=en"`,
		// The establishment, as the quote and invoice carry it: the organization (in the brand bar
		// and the facts) and the site.
		`<p class="brand-name">Harborview Kitchens</p>`, "<dd>Harborview Kitchens</dd>")
	res := get(t, o.env, "/share/insp/"+token+".pdf", "")
	if res.status != http.StatusOK || res.header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("pdf: %d %v", res.status, res.header)
	}
	for _, want := range []string{"%PDF-", "Monthly food safety", "Containers labelled", "Corrective action open", "PASS", "Harborview Kitchens", "Main Kitchen"} {
		if !strings.Contains(res.body, want) {
			t.Fatalf("the PDF lacks %q", want)
		}
	}
}

// The same report in Spanish: the page and its PDF (which follows the page's language).
func TestInspectionInSpanish(t *testing.T) {
	t.Parallel()
	o := newOrg(t, "Harborview Kitchens")
	tmpl := o.create("inspection-templates", map[string]any{"name": "Inspección mensual", "passPercent": 60, "sections": []map[string]any{
		{"title": "Frío", "items": []map[string]any{{"key": "labels", "prompt": "Recipientes etiquetados", "kind": "pass_fail", "weight": 2}}},
	}})
	in := o.create("inspections", map[string]any{"templateId": tmpl, "siteId": o.site, "scheduledFor": "2026-03-02T14:00:00Z"})
	o.call(http.MethodPut, "inspections/"+in+"/responses").JSON(map[string]any{"answers": []map[string]any{{"key": "labels", "passed": false}}}).Do().Expect(http.StatusOK)
	o.call(http.MethodPost, "inspections/"+in+"/complete").Do().Expect(http.StatusOK)
	token := o.share("inspections/" + in + "/share")
	p := getLang(t, o.env, "/share/insp/"+token, "es-MX,es;q=0.9").expect(t, http.StatusOK)
	p.contains(t, `<html lang="es">`, "Informe de inspección", "lunes, 2 de marzo de 2026", "NO APROBADA", "No cumple",
		"Acción correctiva abierta", "<dt>Organización</dt><dd>Harborview Kitchens</dd>", `.pdf?lang=es"`)
	res := get(t, o.env, "/share/insp/"+token+".pdf?lang=es", "")
	for _, want := range []string{"%PDF-", "Harborview Kitchens", "NO APROBADA", "Hallazgos"} {
		if !strings.Contains(res.body, want) {
			t.Fatalf("the Spanish PDF lacks %q", want)
		}
	}
}
