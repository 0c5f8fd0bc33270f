package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"

	"github.com/sous-app/sous/internal/apierr"
)

// Some requests never reach Echo: net/http itself refuses a request whose header block is larger
// than MaxHeaderBytes (431), one it cannot parse (400: a malformed request line, a header with a
// control character, no Host), an unsupported transfer coding (501) or HTTP version (505).
// http.Server offers no hook for these: conn.serve writes a fixed text/plain answer straight to
// the connection with one Write call and closes it. JSONErrorListener wraps the listener's
// connections and rewrites exactly that answer into the API's error shape, so that a client
// sees {error, statusCode, code} whatever layer refused it.
//
// The answer is recognised by its exact form, which no response the handlers produce can take:
// a status line, then exactly "Content-Type: text/plain; charset=utf-8" and "Connection: close"
// and the end of the header block. Every response written through http.ResponseWriter carries a
// Date header and sorts Connection before Content-Type, so it never matches.
func JSONErrorListener(l net.Listener) net.Listener { return jsonErrorListener{l} }

type jsonErrorListener struct{ net.Listener }

func (l jsonErrorListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &jsonErrorConn{Conn: c}, nil
}

type jsonErrorConn struct{ net.Conn }

// CloseWrite keeps net/http's half-close after a 431 (it waits for the client to read the
// answer before closing) when the underlying connection supports it.
func (c *jsonErrorConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

var netHTTPError = regexp.MustCompile(`\AHTTP/1\.1 ([1-5][0-9]{2}) [^\r\n]*\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n([^\r\n]*)\z`)

// netHTTPErrorHeader is what follows the status line of net/http's own refusal.
var netHTTPErrorHeader = []byte("\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n")

func (c *jsonErrorConn) Write(p []byte) (int, error) {
	if !bytes.HasPrefix(p, []byte("HTTP/1.1 ")) || len(p) > 1024 {
		return c.Conn.Write(p)
	}
	// Rule out the handlers' answers, whose first header is never Content-Type, before the
	// regular expression: otherwise every small response would run it.
	if eol := bytes.Index(p, []byte("\r\n")); eol < 0 || !bytes.HasPrefix(p[eol:], netHTTPErrorHeader) {
		return c.Conn.Write(p)
	}
	m := netHTTPError.FindSubmatch(p)
	if m == nil {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(jsonErrorResponse(string(m[1]), string(m[2]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// jsonErrorResponse is the whole HTTP answer for net/http's refusal with the given status and
// text ("400 Bad Request: invalid header value", "Unsupported transfer encoding").
func jsonErrorResponse(status, text string) []byte {
	var code int
	_, _ = fmt.Sscan(status, &code)
	body := errorBody{StatusCode: code}
	switch code {
	case 431:
		body.Error, body.Code = "Request header fields too large", apierr.CodeHeadersTooLarge
	case 400:
		body.Error, body.Code = "Malformed request", apierr.CodeMalformedRequest
		// "400 Bad Request: invalid header value" → "Malformed request: invalid header value".
		if _, why, ok := strings.Cut(text, ": "); ok {
			body.Error += ": " + why
		}
	case 501:
		body.Error, body.Code = "Unsupported transfer encoding", apierr.CodeUnsupportedProtocol
	case 505:
		body.Error, body.Code = "HTTP version not supported", apierr.CodeUnsupportedProtocol
	default:
		body.Error, body.Code = "Malformed request", apierr.CodeMalformedRequest
	}
	raw, _ := json.Marshal(body)
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", code, http.StatusText(code))
	b.WriteString("Content-Type: application/json\r\n")
	b.WriteString("X-Content-Type-Options: nosniff\r\n")
	b.WriteString("Cache-Control: no-store\r\n")
	b.WriteString("Connection: close\r\n")
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(raw))
	b.Write(raw)
	return b.Bytes()
}
