package httpapi

import (
	"fmt"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/internal/config"
)

// bodyLimits are the request body limits, parsed once at start: the server's default and an
// operation's own (x-body-limit in the spec, or the HL7 ingest's SOUS_HL7_BODY_LIMIT).
type bodyLimits struct {
	def   int64
	perOp map[routeKey]int64
}

func newBodyLimits(ops operations, def, hl7 string) (*bodyLimits, error) {
	l := &bodyLimits{perOp: map[routeKey]int64{}}
	var err error
	if l.def, err = config.ParseSize(def); err != nil {
		return nil, fmt.Errorf("body limit %q: %w", def, err)
	}
	for key, op := range ops {
		if op.BodyLimit == "" {
			continue
		}
		if l.perOp[key], err = config.ParseSize(op.BodyLimit); err != nil {
			return nil, fmt.Errorf("operation %s: x-body-limit %q: %w", op.ID, op.BodyLimit, err)
		}
	}
	if route := ops.route("ingestHl7"); route != "" {
		n, err := config.ParseSize(hl7)
		if err != nil {
			return nil, fmt.Errorf("HL7 body limit %q: %w", hl7, err)
		}
		l.perOp[opKey("POST", route)] = n
	}
	return l, nil
}

// middleware caps the body of every request at its operation's limit. Echo has routed the
// request by now, so the operation is known; the limit applies before anything reads the body.
// Echo applies middleware on every request, so this builds nothing per request but the reader.
func (l *bodyLimits) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		limit, ok := l.perOp[opKey(c.Request().Method, c.Path())]
		if !ok {
			limit = l.def
		}
		req := c.Request()
		if req.ContentLength > limit {
			return echo.ErrStatusRequestEntityTooLarge
		}
		if req.Body != nil && req.Body != http.NoBody {
			req.Body = &limitedBody{ReadCloser: req.Body, left: limit}
		}
		return next(c)
	}
}

// limitedBody fails a read past the limit with the error the renderer answers 413 for.
type limitedBody struct {
	io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, echo.ErrStatusRequestEntityTooLarge
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, echo.ErrStatusRequestEntityTooLarge
	}
	return n, err
}
