package httpapi

import (
	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/pg"
)

// outOfTime stops a request whose deadline passed before its handler began: reading and checking
// its body took the time (a slow client, a replica short of CPU). The handler's first query would
// fail for want of time and be told as the database being unavailable, which it was not: this
// answers the 503 to retry, named for what ran out. It runs once the body is checked, before
// the policy's and the handler's queries.
func outOfTime(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if c.Request().Context().Err() != nil {
			return apierr.Unavailable(apierr.CodeServiceUnavailable,
				"The request ran out of time before it was handled; retry shortly", pg.RetryAfter)
		}
		return next(c)
	}
}
