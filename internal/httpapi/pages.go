package httpapi

import (
	"errors"
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"
)

// schemaValidator checks a value against a named component schema of the contract and returns
// the top-level fields that fail it: the hosted pages hold their forms to the rules of the
// operations they stand for, and show each problem beside its field.
func schemaValidator(doc *openapi3.T) func(string, any) ([]string, error) {
	return func(name string, v any) ([]string, error) {
		ref, ok := doc.Components.Schemas[name]
		if !ok || ref.Value == nil {
			return nil, fmt.Errorf("no schema %q in the contract", name)
		}
		err := ref.Value.VisitJSON(v, openapi3.MultiErrors(), openapi3.EnableFormatValidation())
		if err == nil {
			return nil, nil
		}
		var fields []string
		var walk func(error)
		walk = func(err error) {
			var me openapi3.MultiError
			if errors.As(err, &me) {
				for _, e := range me {
					walk(e)
				}
				return
			}
			var se *openapi3.SchemaError
			if errors.As(err, &se) {
				if p := se.JSONPointer(); len(p) > 0 {
					fields = append(fields, p[0])
					return
				}
			}
			fields = append(fields, "")
		}
		walk(err)
		return fields, nil
	}
}
