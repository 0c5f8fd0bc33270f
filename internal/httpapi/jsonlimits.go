package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/fhir"
)

// A JSON body costs far more once decoded than it weighs: the validator decodes it into generic
// values (map[string]any, []any), and two bytes of `{}` become a map of some 70 bytes plus its
// slot in the array, so a body of empty objects costs 35× its size before any schema is checked.
// The byte limit alone does not bound that, so every JSON body of an operation of the spec is
// read once, whole (the byte limit bounds it), and walked byte by byte before anything decodes
// it: its nesting, the items of each array and its values are counted as they come, and the walk
// stops at the first one over its limit. A container where the schema wants something else (an
// array for a string) is refused at its first byte too. The limits are documented in
// docs/reference/limits.md; an operation may set its own in x-json-limits.

// jsonLimits bound a JSON body's shape.
type jsonLimits struct {
	Depth  int `json:"depth"`  // nesting of objects and arrays
	Items  int `json:"items"`  // items of any one array
	Values int `json:"values"` // values of the whole body (objects, arrays, scalars; not keys)
}

// defaultJSONLimits hold every body of an operation that sets none: the deepest schema nests
// under ten levels, the longest array any schema takes holds 2,000 items, and the largest bodies
// (a menu cycle, an inspection's answers) hold a few tens of thousands of values. Their generic
// decoding costs at most some 150 bytes a value: 7.5 MB for a body at the values limit.
var defaultJSONLimits = jsonLimits{Depth: 64, Items: 10_000, Values: 50_000}

// jsonLimitsOf reads an operation's x-json-limits over the defaults.
func jsonLimitsOf(op *openapi3.Operation) (jsonLimits, error) {
	l := defaultJSONLimits
	ext, ok := op.Extensions["x-json-limits"]
	if !ok {
		return l, nil
	}
	raw, err := json.Marshal(ext)
	if err != nil {
		return l, err
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return l, fmt.Errorf("operation %s: x-json-limits: %w", op.OperationID, err)
	}
	if l.Depth < 1 || l.Items < 1 || l.Values < 1 {
		return l, fmt.Errorf("operation %s: x-json-limits must be positive", op.OperationID)
	}
	return l, nil
}

// bodySchemas is the request body schema of an operation per JSON media type it takes.
func bodySchemas(op *openapi3.Operation) map[string]*openapi3.Schema {
	out := map[string]*openapi3.Schema{}
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return out
	}
	for mt, c := range op.RequestBody.Value.Content {
		if c != nil && c.Schema != nil && isJSON(mt) {
			out[mt] = c.Schema.Value
		}
	}
	return out
}

// shapeError is a body over one of its limits (costly), or a container of the wrong type.
type shapeError struct {
	field, message string
	costly         bool
}

// readJSONBody reads the JSON body of an operation of the spec whole, keeps it as sent for
// refuseHostileStrings and bindStructuredJSON, and walks it against the operation's limits.
// A body over them answers 400 naming the field and the limit; on the FHIR endpoint, whose
// clients read an OperationOutcome, the documented 422 too-costly.
func readJSONBody(ops operations) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			op := ops.of(c)
			if op == nil || req.Body == nil || req.Body == http.NoBody {
				return next(c)
			}
			mt, ok := jsonMediaType(req.Header.Get(echo.HeaderContentType))
			if !ok {
				return next(c)
			}
			raw := &rawBody{}
			raw.buf.Grow(int(max(req.ContentLength, 0)) + bytes.MinRead)
			if _, err := raw.buf.ReadFrom(req.Body); err != nil {
				return err // the body limit's 413, or the client went away
			}
			_ = req.Body.Close()
			req.Body = io.NopCloser(bytes.NewReader(raw.buf.Bytes()))
			c.Set(rawBodyKey, raw)
			if se := scanJSON(raw.buf.Bytes(), op.jsonLimits, op.bodySchemas[mt]); se != nil {
				if se.costly && op.fhirOutcome {
					outcome, err := json.Marshal(fhir.Outcome("error", "too-costly", se.field+": "+se.message))
					if err != nil {
						return err
					}
					return c.Blob(http.StatusUnprocessableEntity, fhirJSON, outcome)
				}
				return apierr.Invalid("Request validation failed: "+se.field+": "+se.message,
					apierr.FieldError{Field: se.field, Message: se.message})
			}
			// FHIR takes application/json as application/fhir+json (the same schema): validated
			// and bound by the one path, whose decoder keeps only what the schema checks.
			if op.fhirOutcome && mt == echo.MIMEApplicationJSON {
				req.Header.Set(echo.HeaderContentType, fhirJSON)
			}
			return next(c)
		}
	}
}

const fhirJSON = "application/fhir+json"

// scanFrame is one open object or array of the walk.
type scanFrame struct {
	object   bool
	schema   *openapi3.Schema // of the container; nil when the schema says nothing
	items    int              // array: items seen; object: members seen
	wantKey  bool             // object: the next string is a key
	key      []byte           // object: the current key, as sent
	keyValid bool
}

// scanJSON walks body, a JSON text, against lim and the schema root (nil: none). It allocates
// only its stack of open containers, at most lim.Depth deep. It trusts nothing but reports only
// what it can: a text that is not JSON is left to the validator, which refuses it without
// building anything (encoding/json checks a text's syntax before decoding it).
func scanJSON(body []byte, lim jsonLimits, root *openapi3.Schema) *shapeError {
	var stack []scanFrame
	values := 0
	// fieldOf names the field of the value last started in the innermost of st.
	fieldOf := func(st []scanFrame) string {
		parts := make([]string, 0, len(st))
		for i := range st {
			f := &st[i]
			if f.object {
				parts = append(parts, string(f.key))
			} else {
				parts = append(parts, strconv.Itoa(f.items-1))
			}
		}
		if len(parts) == 0 {
			return "body"
		}
		return strings.Join(parts, ".")
	}
	here := func() string { return fieldOf(stack) }
	// value starts a value at the current position: counted, and its schema found.
	value := func() (*openapi3.Schema, *shapeError) {
		values++
		if values > lim.Values {
			return nil, &shapeError{field: "body", message: fmt.Sprintf("holds more than %d values; at most %d are taken in one body", lim.Values, lim.Values), costly: true}
		}
		if len(stack) == 0 {
			return root, nil
		}
		f := &stack[len(stack)-1]
		if !f.object {
			f.items++
			if f.items > lim.Items {
				return nil, &shapeError{field: fieldOf(stack[:len(stack)-1]), message: fmt.Sprintf("holds more than %d items; at most %d are taken in one array", lim.Items, lim.Items), costly: true}
			}
			if f.schema != nil && f.schema.Items != nil {
				return f.schema.Items.Value, nil
			}
			return nil, nil
		}
		if f.schema == nil || !f.keyValid {
			return nil, nil
		}
		if p, ok := f.schema.Properties[string(f.key)]; ok && p != nil {
			return p.Value, nil
		}
		if ap := f.schema.AdditionalProperties.Schema; ap != nil {
			return ap.Value, nil
		}
		return nil, nil
	}
	for i := 0; i < len(body); i++ {
		switch ch := body[i]; ch {
		case ' ', '\t', '\r', '\n', ':':
		case ',':
			if n := len(stack); n > 0 && stack[n-1].object {
				stack[n-1].wantKey = true
			}
		case '{', '[':
			s, se := value()
			if se != nil {
				return se
			}
			want := "array"
			if ch == '{' {
				want = "object"
			}
			if s != nil && !permits(s, want) {
				return &shapeError{field: here(), message: "value must be " + typeName(s)}
			}
			if len(stack) >= lim.Depth {
				return &shapeError{field: "body", message: fmt.Sprintf("nests more than %d levels deep; at most %d are taken", lim.Depth, lim.Depth), costly: true}
			}
			stack = append(stack, scanFrame{object: ch == '{', schema: s, wantKey: ch == '{'})
		case '}', ']':
			if len(stack) == 0 {
				return nil // not JSON: the validator says so
			}
			stack = stack[:len(stack)-1]
		case '"':
			end := stringEnd(body, i)
			if end < 0 {
				return nil
			}
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
				f := &stack[n-1]
				f.key, f.wantKey = body[i+1:end], false
				// A key with escapes is named as sent; it matches no property of the schema.
				f.keyValid = bytes.IndexByte(f.key, '\\') < 0
				f.items++
			} else if _, se := value(); se != nil {
				return se
			}
			i = end
		default: // a number, true, false or null
			if _, se := value(); se != nil {
				return se
			}
			for i+1 < len(body) && !endsScalar(body[i+1]) {
				i++
			}
		}
	}
	return nil
}

// stringEnd is the index of the quote that closes the string opening at body[start], -1 if none.
func stringEnd(body []byte, start int) int {
	for i := start + 1; i < len(body); i++ {
		switch body[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// permits reports whether a value of JSON type typ can satisfy s. Composed schemas (allOf,
// anyOf, oneOf, not) are left to the validator.
func permits(s *openapi3.Schema, typ string) bool {
	if len(s.AllOf) > 0 || len(s.AnyOf) > 0 || len(s.OneOf) > 0 || s.Not != nil || s.Type == nil || len(*s.Type) == 0 {
		return true
	}
	return s.Type.Permits(typ)
}

// typeName says what s wants, as the validator words it ("a string", "an object").
func typeName(s *openapi3.Schema) string {
	t := (*s.Type)[0]
	switch t {
	case "object", "array", "integer":
		return "an " + t
	}
	return "a " + t
}

// endsScalar reports whether c ends a number or literal.
func endsScalar(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ',', ']', '}', ':':
		return true
	}
	return false
}
