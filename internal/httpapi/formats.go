package httpapi

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"net/mail"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/internal/clinical"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/reqinfo"
)

var formatsOnce sync.Once

// DefineFormats teaches kin-openapi the string formats the spec uses. kin-openapi's registry is
// global, so the server and the tests' response validator share it.
func DefineFormats() {
	formatsOnce.Do(func() {
		openapi3.DefineStringFormatValidator("email", openapi3.NewCallbackValidator(validEmail))
		openapi3.DefineStringFormatValidator("uuid", openapi3.NewCallbackValidator(validUUID))
		openapi3.DefineStringFormatValidator("date-time", openapi3.NewCallbackValidator(validDateTime))
		// Raw HL7 (the ingest's ER7 form, in requests and responses) is validated as text.
		openapi3filter.RegisterBodyDecoder(clinical.ER7MediaType, textBody)
		// CSV uploads (order guides) are parsed by their handler, which reports rows and lines.
		openapi3filter.RegisterBodyDecoder("text/csv", textBody)
		// FHIR bodies are validated for what their schema checks, the rest left to the domain.
		openapi3filter.RegisterBodyDecoder(fhirJSON, prunedJSON)
	})
}

// errUUID is the message kin-openapi's regular-expression validator gives for the same format,
// kept word for word so that a client sees the same 400 as before.
var errUUID = errors.New(`string doesn't match pattern "` + openapi3.FormatOfStringForUUIDOfRFC9562 + `"`)

// validUUID accepts what openapi3.FormatOfStringForUUIDOfRFC9562 matches (an RFC 9562 UUID of
// version 1 to 8 and the variant 10xx, or the nil or max UUID) without the regular expression,
// which was a per cent of an authenticated read's time: every path id and body id passes here.
func validUUID(s string) error {
	if len(s) != 36 {
		return errUUID
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return errUUID
			}
		default:
			if !isHex(c) {
				return errUUID
			}
		}
	}
	if strings.Trim(s, "0-") == "" || strings.Trim(s, "fF-") == "" {
		return nil // the nil and max UUIDs
	}
	if v := s[14]; v < '1' || v > '8' {
		return errUUID
	}
	switch s[19] {
	case '8', '9', 'a', 'b', 'A', 'B':
		return nil
	}
	return errUUID
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

var errEmail = errors.New("must be a valid email address")

// validEmail accepts a bare addr-spec with a dotted domain: what a person types into a sign-up
// form, not display names or comments.
func validEmail(s string) error {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return errEmail
	}
	at := strings.LastIndexByte(s, '@')
	if at < 1 || !strings.Contains(s[at+1:], ".") || strings.HasSuffix(s, ".") {
		return errEmail
	}
	return nil
}

var (
	dateTimeForm   = regexp.MustCompile(openapi3.FormatOfStringDateTime)
	errDateTime    = errors.New("must be an RFC 3339 date-time such as 2026-03-02T14:00:00Z")
	errDateTimeOut = errors.New(clock.RangeProblem)
)

// validDateTime accepts RFC 3339 date-times (kin-openapi's form) naming a moment in the range
// every request is held to (clock.InRange): year 0 or 9999 with an offset would be stored and
// answered in a form the spec refuses, or not be writable as JSON at all.
func validDateTime(s string) error {
	if !dateTimeForm.MatchString(s) {
		return errDateTime
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return errDateTime
	}
	if !clock.InRange(t) {
		return errDateTimeOut
	}
	return nil
}

// textBody reads a body as one string, for media types that are text of their own grammar.
func textBody(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
	b, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// bindStructuredJSON lets a handler bind a body sent as a structured-syntax JSON media type
// (RFC 6839, such as FHIR's application/fhir+json): once the request is validated against its
// own media type, the body is handed on as application/json, the only JSON type Echo's binder
// reads. A structured-syntax body is also recorded as sent (reqinfo.Body), so that its handler
// decodes it once, with its own types, instead of re-encoding what the binder built.
func bindStructuredJSON(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if mt, _, err := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType)); err == nil &&
			mt != echo.MIMEApplicationJSON && strings.HasSuffix(mt, "+json") {
			req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
			if raw, ok := c.Get(rawBodyKey).(*rawBody); ok {
				c.SetRequest(req.WithContext(reqinfo.WithBody(req.Context(), raw.buf.Bytes())))
			}
		}
		return next(c)
	}
}
