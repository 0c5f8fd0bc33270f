// Package web serves the hosted pages: the pages behind the links the API hands out (shared
// quotes, invoices and inspection reports, surveys, printed scan tags) and the board app any
// screen's browser can open. They live at the server's root, outside /v1, and follow the public
// API's rules: display data only (no ids, organizations or members), the same per-IP limits (the
// domain calls behind them count against them), a strict content security policy with every
// script and stylesheet a file of this server, and no third-party host.
//
// Pages call the domain packages in-process; they never call the API over the network. The
// scan and board pages are small apps in plain JavaScript that use the API from the browser,
// as any other client would.
package web

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/gen/api"
)

// Quotes is what the pages need of catering: the shared quote, its acceptance and the shared
// invoice (with its site's time zone).
type Quotes interface {
	GetSharedQuote(ctx context.Context, req api.GetSharedQuoteRequestObject) (api.GetSharedQuoteResponseObject, error)
	AcceptSharedQuote(ctx context.Context, req api.AcceptSharedQuoteRequestObject) (api.AcceptSharedQuoteResponseObject, error)
	SharedInvoice(ctx context.Context, token string) (api.SharedInvoice, string, error)
}

// Surveys is what the pages need of surveys: the public survey (and whether a single-use link
// was used) and a submission.
type Surveys interface {
	PublicSurvey(ctx context.Context, token string) (api.PublicSurvey, bool, error)
	SubmitPublicSurvey(ctx context.Context, req api.SubmitPublicSurveyRequestObject) (api.SubmitPublicSurveyResponseObject, error)
}

// Inspections is what the pages need of records: the shared inspection report.
type Inspections interface {
	GetSharedInspection(ctx context.Context, req api.GetSharedInspectionRequestObject) (api.GetSharedInspectionResponseObject, error)
}

// Deps are the domains behind the pages.
type Deps struct {
	Quotes      Quotes
	Surveys     Surveys
	Inspections Inspections
	Logger      *slog.Logger
	// Validate checks a request body against a named schema of the published contract, so a
	// form is held to exactly the rules of the API operation it stands for. It returns the
	// top-level fields that fail ("" for a failure of the whole body).
	Validate func(schema string, value any) ([]string, error)
}

// Pages serves the hosted pages.
type Pages struct {
	d      Deps
	assets *assets
	tmpl   *templates
	cat    *catalog
	// guideSet is the guides, rendered on first use (guides.go).
	guideSet guideSet
}

// New parses the embedded templates and hashes the embedded assets.
func New(d Deps) (*Pages, error) {
	a, err := loadAssets()
	if err != nil {
		return nil, err
	}
	t, err := parseTemplates(a)
	if err != nil {
		return nil, err
	}
	cat, err := loadCatalog(messagesFS)
	if err != nil {
		return nil, err
	}
	return &Pages{d: d, assets: a, tmpl: t, cat: cat}, nil
}

// Register adds the pages' routes to e, at the root.
func (p *Pages) Register(e *echo.Echo) {
	e.GET(assetPrefix+"*", p.serveAsset)
	e.GET("/favicon.ico", p.favicon)
	e.GET("/share/q/:token", p.quotePage)
	e.POST("/share/q/:token", p.acceptQuote)
	e.GET("/share/i/:token", p.invoicePage)
	e.GET("/share/insp/:token", p.inspectionPage)
	e.GET("/survey/:token", p.surveyPage)
	e.POST("/survey/:token", p.submitSurvey)
	// :tagCode, the contract's name for a printed code, so logs and traces redact it as they do the API's.
	e.GET("/scan/:tagCode", p.scanApp)
	e.GET("/board", p.boardApp)
	p.registerGuides(e)
}

// pageCSP is every page's policy: scripts, styles, images, fetches and sockets only from this
// server (images also from blobs, which the board makes of images fetched with its token);
// forms post only here; never framed.
const pageCSP = "default-src 'self'; img-src 'self' blob:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// pageHeaders are set on every page: nothing is cached (a page shows a client's quote or
// answers a token), no referrer leaks the token in the URL to a link's target; the answer
// depends on the language asked for (the header, or the cookie the toggle keeps).
func pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Vary", "Accept-Language, Cookie")
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
}
