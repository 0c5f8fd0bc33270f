package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/pg"
)

// problem is what an error page says.
type problem struct {
	Heading string
	Text    string
}

var (
	// Every token that opens nothing (unknown, rotated, revoked, expired, another kind) is the
	// same page, whatever the kind of link: a page must not tell which tokens once worked.
	errNotValid = problem{"This link is not valid", "The link may have been replaced by a newer one or withdrawn. Ask whoever sent it for a new link."}
	errClosed   = problem{"This survey is closed", "It no longer takes answers. Thank you for your interest."}
	errUsed     = problem{"This survey link has already been used", "Each invitation takes one set of answers, and this one has been answered. Thank you."}
	errLimited  = problem{"Too many requests", "Please wait a minute, then try again."}
	errDown     = problem{"Temporarily unavailable", "We cannot show this page right now. Please try again in a moment."}
	errInternal = problem{"Something went wrong", "We could not show this page. Please try again later."}
	errBadInput = problem{"The form could not be read", "It contained characters that cannot be accepted. Please go back and try again."}
)

func (p *Pages) errorPage(c echo.Context, status int, pr problem) error {
	return p.render(c, status, "error", Page{Title: pr.Heading}, pr)
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
