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
	"github.com/sous-app/sous/internal/reqinfo"
)

// scopeConfig is what requestScope needs: the deadlines, the routes with their own, and the
// public URL links are made from.
type scopeConfig struct {
	general, hl7          time.Duration
	hl7Route, socketRoute string
	publicURL             string
	ops                   operations
}

// requestScope gives the request the context every later layer and the handler work in (a
// scope), in one copy of the request (each http.Request.WithContext is one, and the chain made
// four):
//
//   - a deadline that reaches the database: during an outage a request answers 503 in bounded
//     time instead of waiting as long as the client does (and piling up goroutines and pooled
//     connections). The HL7 ingest, whose batches take longer, has its own; a WebSocket lives
//     for hours, so its upgrade has none. Each timeout's requests wait in a deadlineQueue,
//     which ends them from one timer.
//   - the facts domain code reads (reqinfo): client IP, request id and operation (rate limits,
//     audit rows),
//     the configured public URL as the origin of absolute links (the Host header is the
//     client's to choose, so it never reaches a link), Accept, User-Agent and the URL.
//   - a ratelimit.Quota, whose record is written as RateLimit-Policy and RateLimit on success and
//     on 429 alike.
func requestScope(cfg scopeConfig) echo.MiddlewareFunc {
	if cfg.general <= 0 {
		cfg.general = config.DefaultRequestTimeout
	}
	if cfg.hl7 <= 0 {
		cfg.hl7 = config.DefaultHL7RequestTimeout
	}
	general, hl7 := newDeadlineQueue(cfg.general), newDeadlineQueue(cfg.hl7)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			s := &scope{parent: req.Context()}
			queue := general
			switch {
			case c.Path() == cfg.socketRoute || isUpgrade(req):
				queue = nil
			case c.Path() == cfg.hl7Route:
				queue = hl7
			}
			defer s.end() // after leaving the queue
			if queue != nil {
				queue.join(s)
				defer queue.leave(s)
			}
			res := c.Response()
			s.facts = reqinfo.Facts{
				ClientIP:  c.RealIP(),
				RequestID: res.Header().Get(echo.HeaderXRequestID),
				Origin:    cfg.publicURL,
				Accept:    req.Header.Get(echo.HeaderAccept),
				UserAgent: req.UserAgent(),
				URL:       req.URL,
			}
			if cfg.ops != nil {
				s.op, s.opKnown = cfg.ops[opKey(req.Method, c.Path())], true
				if s.op != nil {
					s.facts.Operation = s.op.ID
				}
			}
			q := &s.quota
			var ctx context.Context = s
			c.SetRequest(req.WithContext(ctx))
			res.Before(func() {
				if p := q.Policy(); p != "" {
					res.Header().Set("RateLimit-Policy", p)
				}
				if s := q.State(); s != "" {
					res.Header().Set("RateLimit", s)
				}
			})
			err := next(c)
			if queue != nil && err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
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
