package events

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/sous-app/sous/gen"
)

// SchemaName is the spec's component schema documenting the data of event name:
// "signoff.decided" → "SignoffDecidedData". Each catalogue event (and webhook.test) has one,
// referenced by its x-webhooks entry.
func SchemaName(name string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '.' || r == '_' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String() + "Data"
}

var contract struct {
	once    sync.Once
	schemas openapi3.Schemas
	err     error
}

// CheckData reports whether raw, the data of event name, is what the published spec documents
// for it: every required field present, every value of its type, and no field the spec does not
// list. Receivers are told the data shapes by the spec, so an event that strays from it is a
// bug in the publisher.
func CheckData(name string, raw []byte) error {
	contract.once.Do(func() {
		doc, err := openapi3.NewLoader().LoadFromData(gen.OpenAPIYAML)
		if err != nil {
			contract.err = fmt.Errorf("events: load the embedded spec: %w", err)
			return
		}
		contract.schemas = doc.Components.Schemas
	})
	if contract.err != nil {
		return contract.err
	}
	ref := contract.schemas[SchemaName(name)]
	if ref == nil || ref.Value == nil {
		return fmt.Errorf("events: the spec documents no data for %s (schema %s)", name, SchemaName(name))
	}
	schema := ref.Value
	var value map[string]any
	if err := json.Unmarshal(raw, &value); err != nil {
		return fmt.Errorf("events: data of %s: %w", name, err)
	}
	for key := range value {
		if _, ok := schema.Properties[key]; !ok {
			documented := make([]string, 0, len(schema.Properties))
			for k := range schema.Properties {
				documented = append(documented, k)
			}
			slices.Sort(documented)
			return fmt.Errorf("events: data of %s has %q, which the spec does not document (it lists %s)", name, key, strings.Join(documented, ", "))
		}
	}
	if err := schema.VisitJSON(value, openapi3.MultiErrors()); err != nil {
		return fmt.Errorf("events: data of %s does not match the spec's %s: %w", name, SchemaName(name), err)
	}
	return nil
}

// checkInTests holds every published event to the spec while tests run, the way responses are
// validated there: a publisher whose data drifts from the documented shape fails its own tests.
// A running server does not pay for it, nor turn a documentation slip into a failed change.
func checkInTests(name string, raw []byte) error {
	if !testing.Testing() {
		return nil
	}
	return CheckData(name, raw)
}
