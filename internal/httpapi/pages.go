package httpapi

import (
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"
)

// schemaValidator checks a value against a named component schema of the contract: the hosted
// pages hold their forms to the rules of the operations they stand for.
func schemaValidator(doc *openapi3.T) func(string, any) error {
	return func(name string, v any) error {
		ref, ok := doc.Components.Schemas[name]
		if !ok || ref.Value == nil {
			return fmt.Errorf("no schema %q in the contract", name)
		}
		return ref.Value.VisitJSON(v, openapi3.MultiErrors(), openapi3.EnableFormatValidation())
	}
}
