package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/pg"
)

// deadline gives every request a deadline that reaches the database through the request's
// context: during an outage a request answers 503 in bounded time instead of waiting as long as
// the client does (and piling up goroutines and pooled connections). The HL7 ingest, whose
// batches take longer, has its own. A WebSocket lives for hours, so its upgrade has none.
func deadline(general, hl7 time.Duration, hl7Route, socketRoute string) echo.MiddlewareFunc {
	if general <= 0 {
		general = config.DefaultRequestTimeout
	}
	if hl7 <= 0 {
		hl7 = config.DefaultHL7RequestTimeout
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			timeout := general
			switch {
			case c.Path() == socketRoute || isUpgrade(req):
				return next(c)
			case c.Path() == hl7Route:
				timeout = hl7
			}
			ctx, cancel := context.WithTimeout(req.Context(), timeout)
			defer cancel()
			c.SetRequest(req.WithContext(ctx))
			err := next(c)
			if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				// Whatever failed, it failed because time ran out; a cause that lost the
				// deadline from its chain must not turn that into a 500.
				if e, ok := apierr.As(err); !ok || e.Kind == apierr.KindInternal {
					if pg.Unavailable(err) == nil {
						return pg.Unavailable(errors.Join(ctx.Err(), err))
					}
				}
			}
			return err
		}
	}
}

func isUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}
