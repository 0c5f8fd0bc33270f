package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/gen/api"
)

type invoiceView struct {
	I                          api.SharedInvoice
	Title, Issued, EventStarts string
	// Status is the invoice's state as people say it ("Paid in full", "Partly paid").
	Status               string
	Lines                []invoiceLine
	Payments             []invoicePayment
	Total, Paid, Balance string
	PDF                  string
	m                    msg
}

type invoiceLine struct{ Description, Amount string }

type invoicePayment struct{ Date, Method, Amount string }

var paymentMethods = map[api.PaymentMethod]string{
	api.PaymentMethodAch: "invoice.method_ach", api.PaymentMethodCard: "invoice.method_card", api.PaymentMethodCash: "invoice.method_cash",
	api.PaymentMethodCheck: "invoice.method_check", api.PaymentMethodOther: "invoice.method_other",
}

func invoiceTitle(m msg, i api.SharedInvoice) string {
	switch i.Kind {
	case api.InvoiceKindDeposit:
		return m.t("invoice.title_deposit", "number", i.Number)
	case api.InvoiceKindFinal:
		return m.t("invoice.title_final", "number", i.Number)
	}
	return m.t("invoice.title", "number", i.Number)
}

// invoiceStatusKey names the invoice's state as a client says it: the enum holds open, paid
// and void; an open invoice with a payment on it is partly paid.
func invoiceStatusKey(i api.SharedInvoice) string {
	switch i.Status {
	case api.InvoiceStatusPaid:
		return "invoice.status_paid"
	case api.InvoiceStatusVoid:
		return "invoice.status_void"
	}
	if i.PaidCents > 0 {
		return "invoice.status_partly_paid"
	}
	return "invoice.status_unpaid"
}

func newInvoiceView(m msg, i api.SharedInvoice, tz string) invoiceView {
	loc := zone(tz)
	v := invoiceView{
		I: i, Title: invoiceTitle(m, i), Status: m.t(invoiceStatusKey(i)),
		Issued: longDateIn(m.lang, i.IssuedAt.In(loc)), EventStarts: dateTimeIn(m.lang, i.EventStartsAt.In(loc)),
		Total: money(i.TotalCents), Paid: money(i.PaidCents), Balance: money(i.BalanceCents), m: m,
	}
	for _, l := range i.Lines {
		v.Lines = append(v.Lines, invoiceLine{Description: l.Description, Amount: money(l.AmountCents)})
	}
	for _, pm := range i.Payments {
		method := string(pm.Method)
		if key, ok := paymentMethods[pm.Method]; ok {
			method = m.t(key)
		}
		v.Payments = append(v.Payments, invoicePayment{Date: longDateIn(m.lang, pm.PaidAt.In(loc)), Method: method, Amount: money(pm.AmountCents)})
	}
	return v
}

// invoicePage answers /share/i/{token} and its PDF, /share/i/{token}.pdf (a token never holds
// a dot, so the suffix is unambiguous).
func (p *Pages) invoicePage(c echo.Context) error {
	token, pdf := strings.CutSuffix(c.Param("token"), ".pdf")
	inv, tz, err := p.d.Quotes.SharedInvoice(c.Request().Context(), token)
	if err != nil {
		return p.fail(c, err)
	}
	v := newInvoiceView(p.msgs(c), inv, tz)
	if pdf {
		b, err := invoicePDF(v)
		if err != nil {
			return p.fail(c, err)
		}
		return p.sendPDF(c, "invoice-"+inv.Number+".pdf", b)
	}
	v.PDF = pdfLink(c)
	b := inv.Brand
	return p.render(c, http.StatusOK, "invoice", Page{Title: v.Title, BrandName: b.Name, BrandPrimary: b.Primary, BrandAccent: b.Accent, Print: true}, v)
}

// pdfLink is the page's PDF in the page's language.
func pdfLink(c echo.Context) string {
	return c.Request().URL.Path + ".pdf?lang=" + langOf(c)
}

// sendPDF answers a document as a download, under the pages' headers (never cached).
func (p *Pages) sendPDF(c echo.Context, filename string, b []byte) error {
	pageHeaders(c.Response())
	c.Response().Header().Set("Content-Disposition", `attachment; filename="`+safeFilename(filename)+`"`)
	return c.Blob(http.StatusOK, "application/pdf", b)
}

// safeFilename keeps letters, digits, dots and dashes: the name goes into a header.
func safeFilename(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '-'
	}, s)
}
