package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"mime"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/internal/apierr"
)

// Hostile bytes: PostgreSQL refuses the NUL character in text (SQLSTATE 22P05) and bytes that
// are not UTF-8 (22021), so a string carrying either would fail deep in a query as a 500. The
// validator accepts both (JSON allows "\u0000"; a percent-encoded path or query may decode to
// anything), so this middleware, right after it, refuses them in every string of the request the
// spec describes: path, query and header parameters and every key and string value of a JSON
// body, with 400 and the field named. The error renderer maps the two SQLSTATEs to 400 as well,
// as a backstop for strings that arrive some other way.

const (
	msgNUL     = "must not contain the NUL character"
	msgNotUTF8 = "must be valid UTF-8"
)

// stringProblem says what is wrong with s for PostgreSQL text, or "".
func stringProblem(s string) string {
	switch {
	case !utf8.ValidString(s):
		return msgNotUTF8
	case strings.IndexByte(s, 0) >= 0:
		return msgNUL
	}
	return ""
}

// headerParams lists, per operation (opKey), the request headers the spec gives it: its header
// parameters and the headers of its security schemes.
func headerParams(doc *openapi3.T) map[routeKey][]string {
	schemeHeaders := map[string]string{}
	if doc.Components != nil {
		for name, ref := range doc.Components.SecuritySchemes {
			if s := ref.Value; s != nil && s.Type == "apiKey" && s.In == "header" {
				schemeHeaders[name] = s.Name
			}
		}
	}
	out := map[routeKey][]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			var names []string
			for _, p := range append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...) {
				if p.Value != nil && p.Value.In == openapi3.ParameterInHeader {
					names = append(names, p.Value.Name)
				}
			}
			sec := doc.Security
			if op.Security != nil {
				sec = *op.Security
			}
			for _, req := range sec {
				for scheme := range req {
					if h, ok := schemeHeaders[scheme]; ok && !slices.Contains(names, h) {
						names = append(names, h)
					}
				}
			}
			sort.Strings(names)
			out[opKey(method, echoPath(path))] = names
		}
	}
	return out
}

// refuseHostileStrings is the middleware; headers is headerParams of the spec.
func refuseHostileStrings(ops operations, headers map[routeKey][]string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if ops.of(c) == nil {
				return next(c)
			}
			var details []apierr.FieldError
			add := func(field, problem string) {
				if problem != "" {
					details = append(details, apierr.FieldError{Field: field, Message: problem})
				}
			}
			req := c.Request()
			for i, name := range c.ParamNames() {
				v := c.ParamValues()[i]
				// Echo's value is decoded or not depending on whether the path needed RawPath;
				// the generated binder unescapes it again. Check both forms.
				p := stringProblem(v)
				if u, err := url.PathUnescape(v); err == nil && p == "" {
					p = stringProblem(u)
				}
				add(name, p)
			}
			if req.URL.RawQuery != "" {
				query := req.URL.Query()
				names := make([]string, 0, len(query))
				for name := range query {
					names = append(names, name)
				}
				sort.Strings(names)
				for _, name := range names {
					if p := stringProblem(name); p != "" {
						add("query", p)
						continue
					}
					for _, v := range query[name] {
						if p := stringProblem(v); p != "" {
							add(name, p)
							break
						}
					}
				}
			}
			for _, name := range headers[opKey(req.Method, c.Path())] {
				for _, v := range req.Header.Values(name) {
					if p := stringProblem(v); p != "" {
						add(name, p)
						break
					}
				}
			}
			// The bytes as the client sent them (readJSONBody keeps them): the validator may have
			// replaced the body with its own re-encoding (to fill in defaults), in which invalid
			// UTF-8 is gone.
			if raw, ok := c.Get(rawBodyKey).(*rawBody); ok {
				details = append(details, jsonStringProblems(raw.buf.Bytes())...)
			}
			if len(details) == 0 {
				return next(c)
			}
			msgs := make([]string, 0, len(details))
			for _, d := range details {
				msgs = append(msgs, d.Field+": "+d.Message)
			}
			return apierr.Invalid("Request validation failed: "+strings.Join(msgs, "; "), details...)
		}
	}
}

// rawBodyKey holds, in the Echo context, the *rawBody of a JSON request.
const rawBodyKey = "sous.rawBody"

// rawBody holds the bytes of a JSON request body as sent (readJSONBody reads it), so the
// hostile-strings check sees what the client sent even when the validator re-encoded the body
// after filling in defaults.
type rawBody struct {
	buf bytes.Buffer
}

func isJSON(contentType string) bool {
	_, ok := jsonMediaType(contentType)
	return ok
}

// jsonMediaType is the media type of contentType (lower case) and whether it is JSON.
func jsonMediaType(contentType string) (string, bool) {
	mt, _, err := mime.ParseMediaType(contentType)
	return mt, err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// jsonStringProblems finds every key and string value of a JSON document that is not valid
// UTF-8 or holds a NUL, named by its dotted path ("config.stations.0"), as the validator names
// fields. Go's decoder replaces invalid UTF-8 with U+FFFD, so bad bytes are looked for in the
// raw token. A document that is not JSON has no problems here: the validator reports it.
func jsonStringProblems(body []byte) []apierr.FieldError {
	// Nearly every body is clean: raw NUL cannot occur in valid JSON, so a body that is UTF-8
	// and has no \u0000 escape needs no walk. (A literal "\\u0000" merely takes the slow path.)
	if utf8.Valid(body) && !bytes.Contains(body, []byte(`\u0000`)) && !bytes.Contains(body, []byte(`\ud`)) && !bytes.Contains(body, []byte(`\uD`)) {
		return nil
	}
	type frame struct {
		object    bool
		name      string // this container's path element in its parent
		key       string // object: the current key
		expectKey bool
		index     int
	}
	var stack []*frame
	element := func() string { // the path element of the value about to be read
		if len(stack) == 0 {
			return ""
		}
		top := stack[len(stack)-1]
		if top.object {
			return top.key
		}
		return strconv.Itoa(top.index)
	}
	path := func(last string) string {
		if len(stack) == 0 {
			return "body" // the document itself is a string
		}
		parts := make([]string, 0, len(stack))
		for _, f := range stack[1:] { // the root container has no name
			parts = append(parts, f.name)
		}
		parts = append(parts, last)
		if p := strings.Join(parts, "."); p != "" {
			return p
		}
		return "body"
	}
	consumed := func() {
		if len(stack) == 0 {
			return
		}
		top := stack[len(stack)-1]
		if top.object {
			top.expectKey = true
		} else {
			top.index++
		}
	}
	var out []apierr.FieldError
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		after := dec.InputOffset()
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				stack = append(stack, &frame{object: t == '{', name: element(), expectKey: t == '{'})
			default:
				stack = stack[:len(stack)-1]
				consumed()
			}
		case string:
			problem := ""
			if !utf8.Valid(body[before:after]) || loneSurrogate(body[before:after]) {
				problem = msgNotUTF8
			} else if strings.IndexByte(t, 0) >= 0 {
				problem = msgNUL
			}
			if top := len(stack) - 1; top >= 0 && stack[top].object && stack[top].expectKey {
				stack[top].key, stack[top].expectKey = t, false
				if problem != "" {
					out = append(out, apierr.FieldError{Field: path(strings.ReplaceAll(strings.ToValidUTF8(t, "\uFFFD"), "\x00", "\uFFFD")), Message: problem})
				}
				continue
			}
			if problem != "" {
				out = append(out, apierr.FieldError{Field: path(element()), Message: problem})
			}
			consumed()
		default:
			consumed()
		}
	}
}

// loneSurrogate reports whether a JSON string token, as sent, escapes half of a UTF-16
// surrogate pair without the other half ("\ud800"). Go's decoder turns one into U+FFFD, which
// would store text the client never sent; it is no more text than a raw invalid byte is.
func loneSurrogate(tok []byte) bool {
	for i := 0; i+1 < len(tok); i++ {
		if tok[i] != '\\' {
			continue
		}
		if tok[i+1] != 'u' {
			i++ // an escape of one character, the backslash itself included
			continue
		}
		r, ok := hex4(tok, i+2)
		switch {
		case !ok:
			return false // not JSON: the validator says so
		case r >= 0xDC00 && r <= 0xDFFF: // a low half with no high half before it
			return true
		case r >= 0xD800 && r <= 0xDBFF:
			if i+11 >= len(tok) || tok[i+6] != '\\' || tok[i+7] != 'u' {
				return true
			}
			if lo, ok := hex4(tok, i+8); !ok || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 11
			continue
		}
		i += 5
	}
	return false
}

// hex4 reads four hexadecimal digits at tok[at:].
func hex4(tok []byte, at int) (rune, bool) {
	if at+4 > len(tok) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(tok[at:at+4]), 16, 32)
	return rune(v), err == nil
}

// fromUnstorableText is the backstop: PostgreSQL refused a string of the request that the
// middleware above did not see (SQLSTATE 22021 character_not_in_repertoire: bytes that are not
// UTF-8; 22P05 untranslatable_character: NUL). That is the client's input, so 400, not 500.
func fromUnstorableText(err error) *apierr.Error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || (pe.Code != "22021" && pe.Code != "22P05") {
		return nil
	}
	return apierr.Invalid("Request validation failed: a text value is not valid UTF-8 or contains the NUL character",
		apierr.FieldError{Field: "body", Message: "text must be valid UTF-8 without the NUL character"})
}
