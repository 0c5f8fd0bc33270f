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
}

func (p *Pages) quoteView(q api.SharedQuote) quoteView {
	loc := zone(q.Timezone)
	v := quoteView{
		Q: q, Starts: dateTime(q.EventStartsAt.In(loc)), Ends: clockTime(q.EventEndsAt.In(loc)),
		ValidUntil: longDate(q.ValidUntil.Time),
		Subtotal:   money(q.Totals.SubtotalCents), Service: money(q.Totals.ServiceChargeCents), Tax: money(q.Totals.TaxCents),
		Total: money(q.Totals.TotalCents), Deposit: money(q.Totals.DepositCents),
		Open: q.Status == api.QuoteStatusSent,
	}
	if s, e := q.EventStartsAt.In(loc), q.EventEndsAt.In(loc); s.YearDay() != e.YearDay() || s.Year() != e.Year() {
		v.Ends = dateTime(e)
	}
	for _, l := range q.Lines {
		unit := money(l.UnitPriceCents)
		if l.Kind == "discount" {
			unit = "−" + unit
		}
		v.Lines = append(v.Lines, quoteLine{Kind: string(l.Kind), Description: l.Description, Quantity: l.Quantity, UnitPrice: unit, Total: money(l.TotalCents)})
	}
	if q.Acceptance != nil {
		v.Accepted = "Accepted by " + q.Acceptance.Name + " on " + dateTime(q.Acceptance.At.In(loc))
	}
	return v
}

func (p *Pages) quotePage(c echo.Context) error {
	q, err := p.sharedQuote(c)
	if err != nil {
		return p.fail(c, err)
	}
	return p.renderQuote(c, http.StatusOK, p.quoteView(q))
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
	return p.render(c, status, "quote", Page{Title: "Quote for " + v.Q.EventName, BrandName: b.Name, BrandPrimary: b.Primary, BrandAccent: b.Accent, Print: true}, v)
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
		form.Errors[f] = fieldMessage(f)
	}
	if strings.TrimSpace(form.Name) == "" {
		form.Errors["name"] = fieldMessage("name")
	}
	if !form.Agree {
		form.Errors["agree"] = "Tick the box to agree to the terms."
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
				form.Errors[d.Field] = fieldMessage(d.Field)
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
	v := p.quoteView(q)
	v.Form = form
	status := http.StatusBadRequest
	if !v.Open {
		status = http.StatusConflict
		v.Notice = "This quote can no longer be accepted."
	}
	return p.renderQuote(c, status, v)
}

func fieldMessage(field string) string {
	switch field {
	case "name":
		return "Enter your name (at most 200 characters)."
	case "email":
		return "Enter a valid email address, or leave it empty."
	case "agree":
		return "Tick the box to agree to the terms."
	}
	return "Check this field."
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
