package web

import (
	"net/http"
	"regexp"

	"github.com/labstack/echo/v4"
)

// The scan and board pages are apps: the page is a shell, its script uses the API from the
// browser with the browser's own credentials (a session in sessionStorage for the scan, a device
// token in localStorage for the board). Nothing is set in cookies, and the shell itself shows no
// data, so it needs no lookup.

// tagCodeRe is a printed tag's code as the API takes it: Crockford base32, any case, with
// dashes and spaces a reader may have typed (the API normalizes them).
var tagCodeRe = regexp.MustCompile(`^[0-9A-Za-z -]{1,40}$`)

func (p *Pages) scanApp(c echo.Context) error {
	if !tagCodeRe.MatchString(c.Param("tagCode")) {
		return p.notFound(c)
	}
	return p.render(c, http.StatusOK, "scan", Page{
		Title: p.tr(c, "floor.page_title"), Styles: []string{"app.css", "floor.css"}, Scripts: []string{"scan.js"}, Messages: []string{"floor"},
	}, nil)
}

func (p *Pages) boardApp(c echo.Context) error {
	return p.render(c, http.StatusOK, "board", Page{
		Title: p.tr(c, "board.page_title"), Styles: []string{"app.css", "board.css"}, Scripts: []string{"board.js"}, Messages: []string{"board"},
	}, nil)
}
