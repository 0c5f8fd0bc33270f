package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// prunedJSON is the validator's decoder for application/fhir+json. A FHIR body's schema checks
// a Bundle's resourceType, type and entries and takes anything inside the resources, which the
// domain reads with its own types; decoding those into generic values only to find them
// acceptable cost several times the body. So the value handed to the validator keeps what the
// schema constrains and stands an empty object or array in for a subtree the schema leaves
// free, which satisfies that schema as the subtree would. The handler reads the body as sent.
func prunedJSON(body io.Reader, _ http.Header, schema *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
	dec := json.NewDecoder(body)
	dec.UseNumber()
	var s *openapi3.Schema
	if schema != nil {
		s = schema.Value
	}
	v, err := decodePruned(dec, s)
	if err != nil {
		return nil, &openapi3filter.ParseError{Kind: openapi3filter.KindInvalidFormat, Cause: err}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &openapi3filter.ParseError{Kind: openapi3filter.KindInvalidFormat, Cause: errors.New("invalid character after top-level value")}
	}
	return v, nil
}

// decodePruned decodes the next value under s (nil: a schema that takes anything).
func decodePruned(dec *json.Decoder, s *openapi3.Schema) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // a scalar costs what it weighs
	}
	if d == '[' {
		out := []any{}
		var items *openapi3.Schema
		if s != nil && s.Items != nil {
			items = s.Items.Value
		}
		for dec.More() {
			if s == nil {
				if err := skipValue(dec); err != nil {
					return nil, err
				}
				continue
			}
			v, err := decodePruned(dec, items)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		_, err := dec.Token() // ]
		return out, err
	}
	out := map[string]any{}
	free := freeObject(s)
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := kt.(string)
		var sub *openapi3.Schema
		if !free {
			if p, ok := s.Properties[key]; ok && p != nil {
				sub = p.Value
			} else if ap := s.AdditionalProperties.Schema; ap != nil {
				sub = ap.Value
			} else if has := s.AdditionalProperties.Has; has == nil || *has {
				// A member the schema takes whatever it holds: not kept.
				if err := skipValue(dec); err != nil {
					return nil, err
				}
				continue
			}
		} else {
			if err := skipValue(dec); err != nil {
				return nil, err
			}
			continue
		}
		v, err := decodePruned(dec, sub)
		if err != nil {
			return nil, err
		}
		out[key] = v
	}
	_, err = dec.Token() // }
	return out, err
}

// freeObject reports whether s takes an object whatever its members: nothing but a type.
func freeObject(s *openapi3.Schema) bool {
	if s == nil {
		return true
	}
	return len(s.Properties) == 0 && len(s.Required) == 0 && s.AdditionalProperties.Schema == nil &&
		(s.AdditionalProperties.Has == nil || *s.AdditionalProperties.Has) &&
		s.MinProps == 0 && s.MaxProps == nil && len(s.AllOf) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 && s.Not == nil
}

// skipValue reads past the next value, token by token, keeping nothing.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}
