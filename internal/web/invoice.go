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
	Lines                      []invoiceLine
	Payments                   []invoicePayment
	Total, Paid, Balance       string
	PDF                        string
}

type invoiceLine struct{ Description, Amount string }

type invoicePayment struct{ Date, Method, Amount string }

var paymentMethods = map[api.PaymentMethod]string{
	api.PaymentMethodAch: "Bank transfer (ACH)", api.PaymentMethodCard: "Card", api.PaymentMethodCash: "Cash",
	api.PaymentMethodCheck: "Check", api.PaymentMethodOther: "Other",
}

func invoiceTitle(i api.SharedInvoice) string {
	kind := "Invoice"
	switch i.Kind {
	case api.InvoiceKindDeposit:
		kind = "Deposit invoice"
	case api.InvoiceKindFinal:
		kind = "Final invoice"
	}
	return kind + " " + i.Number
}

func newInvoiceView(i api.SharedInvoice, tz string) invoiceView {
	loc := zone(tz)
	v := invoiceView{
		I: i, Title: invoiceTitle(i), Issued: longDate(i.IssuedAt.In(loc)), EventStarts: dateTime(i.EventStartsAt.In(loc)),
		Total: money(i.TotalCents), Paid: money(i.PaidCents), Balance: money(i.BalanceCents),
	}
	for _, l := range i.Lines {
		v.Lines = append(v.Lines, invoiceLine{Description: l.Description, Amount: money(l.AmountCents)})
	}
	for _, pm := range i.Payments {
		m := paymentMethods[pm.Method]
		if m == "" {
			m = string(pm.Method)
		}
		v.Payments = append(v.Payments, invoicePayment{Date: longDate(pm.PaidAt.In(loc)), Method: m, Amount: money(pm.AmountCents)})
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
	v := newInvoiceView(inv, tz)
	if pdf {
		b, err := invoicePDF(v)
		if err != nil {
			return p.fail(c, err)
		}
		return p.sendPDF(c, "invoice-"+inv.Number+".pdf", b)
	}
	v.PDF = c.Request().URL.Path + ".pdf"
	b := inv.Brand
	return p.render(c, http.StatusOK, "invoice", Page{Title: v.Title, BrandName: b.Name, BrandPrimary: b.Primary, BrandAccent: b.Accent, Print: true}, v)
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
