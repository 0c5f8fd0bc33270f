package httpapi

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/internal/apierr"
)

// The HTTP conventions every operation follows, read from the spec like x-permission is, so a
// new operation inherits them: content negotiation (406, 415), Location on 201, the bearer
// challenge on 401, and the rate-limit headers.

// media is what one operation takes and answers, from its spec entry.
type media struct {
	Produces []string // media types of its 2xx bodies; none when it answers no body
	Consumes []string // media types of its request body; none when it takes none
	Location string   // x-location of its 201: a path template filled from path parameters and the body
	Bearer   bool     // it takes a session (bearerAuth)
}

func mediaOf(doc *openapi3.T, op *openapi3.Operation) media {
	var m media
	if op.RequestBody != nil && op.RequestBody.Value != nil {
		for mt := range op.RequestBody.Value.Content {
			m.Consumes = append(m.Consumes, strings.ToLower(mt))
		}
	}
	for code, ref := range op.Responses.Map() {
		if !strings.HasPrefix(code, "2") || ref.Value == nil {
			continue
		}
		for mt := range ref.Value.Content {
			if !slices.Contains(m.Produces, strings.ToLower(mt)) {
				m.Produces = append(m.Produces, strings.ToLower(mt))
			}
		}
		if code == "201" {
			m.Location = stringExt(ref.Value.Extensions, "x-location")
		}
	}
	security := doc.Security
	if op.Security != nil {
		security = *op.Security
	}
	for _, req := range security {
		if _, ok := req["bearerAuth"]; ok {
			m.Bearer = true
		}
	}
	return m
}

// negotiate answers 406 when Accept allows none of what the operation answers, and 415 when a
// body comes in a media type the operation does not take, before the validator reads the body.
func negotiate(ops operations) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			op := ops.of(c)
			if op == nil {
				return next(c)
			}
			req := c.Request()
			if accept := req.Header.Values(echo.HeaderAccept); len(accept) > 0 && len(op.Produces) > 0 &&
				!acceptsAny(strings.Join(accept, ","), op.Produces) {
				return &apierr.Error{Kind: apierr.KindNotAcceptable,
					Message: "Not acceptable: this operation answers " + strings.Join(sorted(op.Produces), ", ")}
			}
			if len(op.Consumes) > 0 && hasBody(req) {
				mt, _, err := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
				if err != nil || !slices.Contains(op.Consumes, strings.ToLower(mt)) {
					return &apierr.Error{Kind: apierr.KindUnsupportedMedia,
						Message: "Unsupported media type: send " + strings.Join(sorted(op.Consumes), " or ")}
				}
			}
			return next(c)
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func hasBody(r *http.Request) bool {
	return r.ContentLength > 0 || (r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody)
}

// acceptsAny reports whether an Accept header value allows one of the offered media types
// (RFC 9110 §12.5.1: ranges with wildcards; q=0 refuses).
func acceptsAny(accept string, offered []string) bool {
	for _, part := range strings.Split(accept, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		rng, params, err := mime.ParseMediaType(part)
		if err != nil {
			continue
		}
		if q, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(q, 64); err == nil && f == 0 {
				continue
			}
		}
		for _, o := range offered {
			if mediaMatches(rng, o) {
				return true
			}
		}
	}
	return false
}

func mediaMatches(rng, offered string) bool {
	if rng == "*/*" || rng == offered {
		return true
	}
	// FHIR servers answer application/json as they answer application/fhir+json (FHIR R4
	// http.html#mime-type): the FHIR endpoints' clients ask for either.
	if rng == echo.MIMEApplicationJSON && offered == fhirJSON {
		return true
	}
	rt, rs, _ := strings.Cut(rng, "/")
	ot, _, _ := strings.Cut(offered, "/")
	return rs == "*" && rt == ot
}

// challenge sets WWW-Authenticate on a 401 of an operation that takes a session (RFC 6750):
// with error="invalid_token" when a bearer token was presented and refused.
func challenge(c echo.Context, ops operations) {
	op := ops.of(c)
	if op == nil || !op.Bearer {
		return
	}
	v := `Bearer realm="sous"`
	if scheme, _, ok := strings.Cut(c.Request().Header.Get(echo.HeaderAuthorization), " "); ok && strings.EqualFold(scheme, "bearer") {
		v += `, error="invalid_token"`
	}
	c.Response().Header().Set(echo.HeaderWWWAuthenticate, v)
}

// location sets Location on the 201 of an operation with x-location, filling the template's
// {names} from the path parameters, else from the created resource's top-level fields. The body
// is held until the handler has written it, then sent with the header.
func location(ops operations) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			op := ops.of(c)
			if op == nil || op.Location == "" {
				return next(c)
			}
			res := c.Response()
			w := &heldCreated{ResponseWriter: res.Writer}
			res.Writer = w
			err := next(c)
			res.Writer = w.ResponseWriter
			if !w.held {
				return err
			}
			if loc, ok := fillLocation(op.Location, c, w.body.Bytes()); ok {
				w.Header().Set(echo.HeaderLocation, BasePath+loc)
			}
			w.ResponseWriter.WriteHeader(http.StatusCreated)
			_, werr := w.ResponseWriter.Write(w.body.Bytes())
			if err != nil {
				return err
			}
			return werr
		}
	}
}

// heldCreated holds back a 201's header and body until Location is known.
type heldCreated struct {
	http.ResponseWriter
	held bool
	body bytes.Buffer
}

func (w *heldCreated) WriteHeader(code int) {
	if code == http.StatusCreated {
		w.held = true
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *heldCreated) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *heldCreated) Write(b []byte) (int, error) {
	if w.held {
		return w.body.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

func fillLocation(tmpl string, c echo.Context, body []byte) (string, bool) {
	var fields map[string]any
	_ = json.Unmarshal(body, &fields)
	var b strings.Builder
	for {
		open := strings.IndexByte(tmpl, '{')
		if open < 0 {
			b.WriteString(tmpl)
			return b.String(), true
		}
		end := strings.IndexByte(tmpl[open:], '}')
		if end < 0 {
			return "", false
		}
		name := tmpl[open+1 : open+end]
		v := c.Param(name)
		if v == "" {
			s, _ := fields[name].(string)
			v = s
		}
		if v == "" {
			return "", false
		}
		b.WriteString(tmpl[:open])
		b.WriteString(v)
		tmpl = tmpl[open+end+1:]
	}
}
