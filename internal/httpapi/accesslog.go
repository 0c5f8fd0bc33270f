package httpapi

import (
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel/trace"

	"github.com/sous-app/sous/internal/jsonenc"
)

// accessLog writes one JSON line per request to w, after the error renderer has set the status;
// nil w turns it off. traced says whether requests may have spans, which the lines then name.
// The path is written as red redacts it (nil: as sent), the query with secretParams redacted.
// The line has the shape of the process's slog JSON records (time, level, msg, then the fields)
// so one parser reads both, but is appended by hand into a pooled buffer: slog's
// reflection-driven encoder cost as much as the rest of an authenticated read's middleware
// together. w is expected to batch writes (logbuf).
func accessLog(w io.Writer, traced bool, red *pathRedactor) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		if w == nil {
			return next
		}
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			req, res := c.Request(), c.Response()
			bp := lineBuffers.Get().(*[]byte)
			b := (*bp)[:0]
			b = append(b, `{"time":"`...)
			b = time.Now().UTC().AppendFormat(b, time.RFC3339Nano)
			b = append(b, `","level":"INFO","msg":"request","method":`...)
			b = jsonenc.AppendStringKeepHTML(b, req.Method)
			b = append(b, `,"path":`...)
			route := c.Path()
			b = jsonenc.AppendStringKeepHTML(b, red.path(route, req.URL.Path))
			b = append(b, `,"query":`...)
			b = jsonenc.AppendStringKeepHTML(b, redactQuery(req.URL.RawQuery))
			b = append(b, `,"route":`...)
			b = jsonenc.AppendStringKeepHTML(b, route)
			b = append(b, `,"status":`...)
			b = strconv.AppendInt(b, int64(res.Status), 10)
			b = append(b, `,"bytes":`...)
			b = strconv.AppendInt(b, res.Size, 10)
			b = append(b, `,"ms":`...)
			b = appendMillis(b, time.Since(start).Microseconds())
			// The client's address and the request id as requestScope recorded them, rather than
			// worked out again (behind proxies the address is a walk of X-Forwarded-For).
			ip, requestID := "", ""
			if s := scopeOf(req.Context()); s != nil {
				ip, requestID = s.facts.ClientIP, s.facts.RequestID
			} else {
				ip, requestID = c.RealIP(), res.Header().Get(echo.HeaderXRequestID)
			}
			b = append(b, `,"ip":`...)
			b = jsonenc.AppendStringKeepHTML(b, ip)
			b = append(b, `,"request_id":`...)
			b = jsonenc.AppendStringKeepHTML(b, requestID)
			// The request's span, when tracing made one: a line leads to its trace and back (as
			// tracing.LogHandler stamps the process's other lines).
			// Looking for one walks the whole context chain, so only when there can be one.
			if sc := spanOf(traced, req); sc.IsValid() {
				b = append(b, `,"trace_id":"`...)
				b = append(b, sc.TraceID().String()...)
				b = append(b, `","span_id":"`...)
				b = append(b, sc.SpanID().String()...)
				b = append(b, '"')
			}
			b = append(b, "}\n"...)
			_, _ = w.Write(b)
			*bp = b
			lineBuffers.Put(bp)
			return nil
		}
	}
}

// appendMillis appends µs as milliseconds, as strconv.AppendFloat(b, µs/1000, 'f', -1, 64)
// does (the shortest form: "12", "12.5", "0.034") without its general float formatting.
func appendMillis(b []byte, us int64) []byte {
	if us < 0 {
		b = append(b, '-')
		us = -us
	}
	b = strconv.AppendInt(b, us/1000, 10)
	frac := us % 1000
	if frac == 0 {
		return b
	}
	digits := [4]byte{'.', byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	n := 4
	for digits[n-1] == '0' {
		n--
	}
	return append(b, digits[:n]...)
}

// spanOf is the request's span context, when tracing is on.
func spanOf(traced bool, req *http.Request) trace.SpanContext {
	if !traced {
		return trace.SpanContext{}
	}
	return trace.SpanContextFromContext(req.Context())
}

var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}
