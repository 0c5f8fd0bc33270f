package httpapi

import (
	"errors"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/internal/metrics"
)

// writeDeadlines bounds how long a response may wait on a client that takes none of it. A
// request's deadline (requestScope) ends its work, not its writes: a client that stops reading
// a large answer, a temperature log streamed sensor by sensor, left the handler blocked in Write
// for good, holding the answer's memory and, for the heaviest logs, one of its organization's
// few report slots. A replica's memory could be taken that way by one tenant's stalled clients.
//
// The connection's write deadline is the request's own deadline (requestScope's, read from its
// context) plus idle at first, since the handler computes before it writes; then idle past each
// write: a slow client that keeps taking bytes is served however long the answer, one that takes
// none for idle loses its connection, and the handler's Write fails;
// sous_http_write_stalls_total counts each such answer. A request without a deadline (a
// WebSocket upgrade) keeps the bounds of its own (realtime).
func writeDeadlines(idle time.Duration) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			deadline, ok := c.Request().Context().Deadline()
			if !ok {
				return next(c)
			}
			res := c.Response()
			rc := http.NewResponseController(res.Writer)
			if rc.SetWriteDeadline(deadline.Add(idle)) != nil {
				return next(c) // a writer without a connection (a recorder in a unit test)
			}
			w := &progressWriter{ResponseWriter: res.Writer, rc: rc, idle: idle}
			res.Writer = w
			err := next(c)
			if w.stalled {
				metrics.HTTPWriteStalls.Inc()
			}
			return err
		}
	}
}

// progressWriter moves the connection's write deadline to idle past each write, and notes a
// write the deadline ended.
type progressWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	idle    time.Duration
	stalled bool
}

func (w *progressWriter) arm() { _ = w.rc.SetWriteDeadline(time.Now().Add(w.idle)) }

func (w *progressWriter) WriteHeader(code int) {
	w.arm()
	w.ResponseWriter.WriteHeader(code)
}

func (w *progressWriter) Write(b []byte) (int, error) {
	w.arm()
	n, err := w.ResponseWriter.Write(b)
	w.note(err)
	return n, err
}

// FlushError flushes through to the connection (http.ResponseController calls it).
func (w *progressWriter) FlushError() error {
	w.arm()
	err := http.NewResponseController(w.ResponseWriter).Flush()
	w.note(err)
	return err
}

func (w *progressWriter) note(err error) {
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		w.stalled = true
	}
}

// Flush is FlushError for callers that assert http.Flusher.
func (w *progressWriter) Flush() { _ = w.FlushError() }

func (w *progressWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// ClearWriteDeadlineWhenIdle is the server's ConnState: a connection waiting for its next
// request has written its last answer whole, and writeDeadlines' deadline would otherwise
// outlive it, cutting off what the server writes before any handler runs (the error answer to
// a malformed next request).
func ClearWriteDeadlineWhenIdle(c net.Conn, s http.ConnState) {
	if s == http.StateIdle {
		_ = c.SetWriteDeadline(time.Time{})
	}
}
