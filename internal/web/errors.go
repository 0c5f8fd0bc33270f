package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/pg"
)

// problem is what an error page says: the catalog's keys of its heading and text.
type problem struct {
	Heading string
	Text    string
}

var (
	// Every token that opens nothing (unknown, rotated, revoked, expired, another kind) is the
	// same page, whatever the kind of link: a page must not tell which tokens once worked.
	errNotValid = problem{"common.err_not_valid_heading", "common.err_not_valid_text"}
	errClosed   = problem{"common.err_closed_heading", "common.err_closed_text"}
	errUsed     = problem{"common.err_used_heading", "common.err_used_text"}
	errLimited  = problem{"common.err_limited_heading", "common.err_limited_text"}
	errDown     = problem{"common.err_down_heading", "common.err_down_text"}
	errInternal = problem{"common.err_internal_heading", "common.err_internal_text"}
	errBadInput = problem{"common.err_bad_input_heading", "common.err_bad_input_text"}
)

func (p *Pages) errorPage(c echo.Context, status int, pr problem) error {
	return p.errorPageAs(c, status, Page{}, pr)
}

// errorPageAs is an error page under a page's brand.
func (p *Pages) errorPageAs(c echo.Context, status int, pg Page, pr problem) error {
	text := problem{Heading: p.tr(c, pr.Heading), Text: p.tr(c, pr.Text)}
	pg.Title = text.Heading
	return p.render(c, status, "error", pg, text)
}

func (p *Pages) notFound(c echo.Context) error {
	return p.errorPage(c, http.StatusNotFound, errNotValid)
}

// fail answers a domain error as its page, with the status the API would answer.
func (p *Pages) fail(c echo.Context, err error) error {
	e, ok := apierr.As(err)
	if u := pg.Unavailable(err); u != nil {
		e, ok = u, true
	}
	if !ok {
		p.logError(c, err)
		return p.errorPage(c, http.StatusInternalServerError, errInternal)
	}
	switch e.Kind {
	case apierr.KindNotFound:
		return p.notFound(c)
	case apierr.KindGone:
		return p.errorPage(c, http.StatusGone, errClosed)
	case apierr.KindRateLimited:
		c.Response().Header().Set("Retry-After", strconv.Itoa(e.RetryAfterSeconds()))
		return p.errorPage(c, http.StatusTooManyRequests, errLimited)
	case apierr.KindUnavailable:
		c.Response().Header().Set("Retry-After", strconv.Itoa(max(e.RetryAfterSeconds(), 1)))
		return p.errorPage(c, http.StatusServiceUnavailable, errDown)
	}
	p.logError(c, err)
	return p.errorPage(c, http.StatusInternalServerError, errInternal)
}

func (p *Pages) logError(c echo.Context, err error) {
	if p.d.Logger != nil {
		p.d.Logger.ErrorContext(c.Request().Context(), "hosted page failed", "path", c.Path(), "error", err)
	}
}

// errUnexpected is a domain answering a response the page does not know: a bug.
var errUnexpected = errors.New("web: unexpected response from the domain")
