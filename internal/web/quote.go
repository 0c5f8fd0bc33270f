package web

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/internal/apierr"
)

type quoteLine struct {
	Kind, Description, Quantity, UnitPrice, Total string
}

type quoteView struct {
	Q                                      api.SharedQuote
	Status                                 string
	Starts, Ends, ValidUntil               string
	Lines                                  []quoteLine
	Subtotal, Service, Tax, Total, Deposit string
	// Open: the client may accept (the quote is sent and within its validity).
	Open     bool
	Accepted string // "Accepted by Maya Chen on …"
	Form     acceptForm
	// Notice is a message above the form after a refused acceptance.
	Notice string
}

type acceptForm struct {
	Name, Email string
	Agree       bool
	Errors      map[string]string
	// List is the errors in the form's order, for the summary above it.
	List []fieldError
}

type fieldError struct{ Field, Message string }

// formFields are the accept form's fields in their order on the page.
var formFields = []string{"name", "email", "agree"}

func (p *Pages) quoteView(c echo.Context, q api.SharedQuote) quoteView {
	lang := langOf(c)
	loc := zone(q.Timezone)
	v := quoteView{
		Q: q, Status: p.tr(c, "quote.status_"+quoteStatus(q.Status)),
		Starts: dateTimeIn(lang, q.EventStartsAt.In(loc)), Ends: clockTimeIn(lang, q.EventEndsAt.In(loc)),
		ValidUntil: longDateIn(lang, q.ValidUntil.Time),
		Subtotal:   money(q.Totals.SubtotalCents), Service: money(q.Totals.ServiceChargeCents), Tax: money(q.Totals.TaxCents),
		Total: money(q.Totals.TotalCents), Deposit: money(q.Totals.DepositCents),
		Open: q.Status == api.QuoteStatusSent,
	}
	if s, e := q.EventStartsAt.In(loc), q.EventEndsAt.In(loc); s.YearDay() != e.YearDay() || s.Year() != e.Year() {
		v.Ends = dateTimeIn(lang, e)
	}
	for _, l := range q.Lines {
		unit := money(l.UnitPriceCents)
		if l.Kind == "discount" {
			unit = "−" + unit
		}
		v.Lines = append(v.Lines, quoteLine{Kind: p.lineKind(c, l.Kind), Description: l.Description, Quantity: l.Quantity, UnitPrice: unit, Total: money(l.TotalCents)})
	}
	if q.Acceptance != nil {
		v.Accepted = p.tr(c, "quote.accepted_by", "name", q.Acceptance.Name, "date", dateTimeIn(lang, q.Acceptance.At.In(loc)))
	}
	return v
}

// quoteStatus is the status's message suffix; a status the page does not know reads as a draft.
func quoteStatus(s api.QuoteStatus) string {
	switch s {
	case api.QuoteStatusSent, api.QuoteStatusAccepted, api.QuoteStatusDeclined, api.QuoteStatusExpired:
		return string(s)
	}
	return "draft"
}

var lineKinds = map[api.QuoteLineKind]string{
	api.QuoteLineKindFood: "quote.kind_food", api.QuoteLineKindBeverage: "quote.kind_beverage", api.QuoteLineKindRental: "quote.kind_rental",
	api.QuoteLineKindService: "quote.kind_service", api.QuoteLineKindFee: "quote.kind_fee", api.QuoteLineKindDiscount: "quote.kind_discount",
}

func (p *Pages) lineKind(c echo.Context, k api.QuoteLineKind) string {
	if key, ok := lineKinds[k]; ok {
		return p.tr(c, key)
	}
	return string(k)
}

func (p *Pages) quotePage(c echo.Context) error {
	q, err := p.sharedQuote(c)
	if err != nil {
		return p.fail(c, err)
	}
	return p.renderQuote(c, http.StatusOK, p.quoteView(c, q))
}

func (p *Pages) sharedQuote(c echo.Context) (api.SharedQuote, error) {
	res, err := p.d.Quotes.GetSharedQuote(c.Request().Context(), api.GetSharedQuoteRequestObject{Token: c.Param("token")})
	if err != nil {
		return api.SharedQuote{}, err
	}
	ok, isOK := res.(api.GetSharedQuote200JSONResponse)
	if !isOK {
		return api.SharedQuote{}, apierr.Internal(errUnexpected)
	}
	return ok.Body, nil
}

func (p *Pages) renderQuote(c echo.Context, status int, v quoteView) error {
	b := v.Q.Brand
	pg := Page{Title: p.tr(c, "quote.page_title", "event", v.Q.EventName), BrandName: b.Name, BrandPrimary: b.Primary, BrandAccent: b.Accent, Print: true}
	if len(v.Form.Errors) > 0 {
		// After a refused submit the summary of what to correct is brought into view and focused.
		pg.Scripts = []string{"forms.js"}
	}
	return p.render(c, status, "quote", pg, v)
}

// acceptQuote is the form's POST: the rule of POST /v1/share/q/{token}/accept (the body
// checked against the operation's schema, then the domain's acceptance, which locks the quote
// and fires catering.quote_accepted once). Success, and a second submission that finds the
// quote already accepted, both end on the page showing the accepted quote (303, so reloading
// it does not post again).
func (p *Pages) acceptQuote(c echo.Context) error {
	token := c.Param("token")
	form := acceptForm{
		Name: c.FormValue("name"), Email: strings.TrimSpace(c.FormValue("email")),
		Agree: c.FormValue("agree") != "", Errors: map[string]string{},
	}
	if hostile(form.Name, form.Email, c.FormValue("agree")) {
		return p.errorPage(c, http.StatusBadRequest, errBadInput)
	}
	body := map[string]any{"name": form.Name, "agree": form.Agree}
	if form.Email != "" {
		body["email"] = form.Email
	}
	bad, err := p.d.Validate("PublicAcceptRequest", body)
	if err != nil {
		return p.fail(c, err)
	}
	for _, f := range bad {
		if f != "email" && f != "agree" {
			f = "name" // the only other field the form sends
		}
		form.Errors[f] = p.fieldMessage(c, f)
	}
	if strings.TrimSpace(form.Name) == "" {
		form.Errors["name"] = p.fieldMessage(c, "name")
	}
	if !form.Agree {
		form.Errors["agree"] = p.fieldMessage(c, "agree")
	}
	req := api.AcceptSharedQuoteRequestObject{Token: token, Body: &api.AcceptSharedQuoteJSONRequestBody{Name: form.Name, Agree: form.Agree}}
	if form.Email != "" {
		e := openapi_types.Email(form.Email)
		req.Body.Email = &e
	}
	if len(form.Errors) == 0 {
		_, err := p.d.Quotes.AcceptSharedQuote(c.Request().Context(), req)
		if err == nil {
			return c.Redirect(http.StatusSeeOther, c.Request().URL.Path)
		}
		e, ok := apierr.As(err)
		if !ok || (e.Kind != apierr.KindConflict && e.Kind != apierr.KindInvalid) {
			return p.fail(c, err)
		}
		if e.Kind == apierr.KindInvalid {
			for _, d := range e.Details {
				f := d.Field
				if f != "email" && f != "agree" {
					f = "name"
				}
				form.Errors[f] = p.fieldMessage(c, f)
			}
		}
	}
	// Show the quote as it is now: accepted by a first submission, expired or declined meanwhile,
	// or still open with the form's errors beside its fields.
	q, err := p.sharedQuote(c)
	if err != nil {
		return p.fail(c, err)
	}
	if q.Status == api.QuoteStatusAccepted {
		return c.Redirect(http.StatusSeeOther, c.Request().URL.Path)
	}
	v := p.quoteView(c, q)
	for _, f := range formFields {
		if m, ok := form.Errors[f]; ok {
			form.List = append(form.List, fieldError{Field: f, Message: m})
		}
	}
	v.Form = form
	status := http.StatusBadRequest
	if !v.Open {
		status = http.StatusConflict
		v.Notice = p.tr(c, "quote.no_longer_open")
	}
	return p.renderQuote(c, status, v)
}

func (p *Pages) fieldMessage(c echo.Context, field string) string {
	switch field {
	case "name":
		return p.tr(c, "quote.error_name")
	case "email":
		return p.tr(c, "quote.error_email")
	case "agree":
		return p.tr(c, "quote.error_agree")
	}
	return p.tr(c, "quote.error_field")
}

// hostile reports bytes the API refuses in any string (NUL, invalid UTF-8): a 400, never a
// database error.
func hostile(values ...string) bool {
	for _, v := range values {
		if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
			return true
		}
	}
	return false
}
