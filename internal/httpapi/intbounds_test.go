package httpapi_test

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestRequestIntegersAreBounded walks every parameter and request body of the spec and fails on
// an integer a client may send without both a minimum and a maximum, or whose maximum is beyond
// what its format holds (an int32 beyond 2147483647 reaches a PostgreSQL int4 as a 500, or
// wraps in Go). Without bounds a number the JSON decoder accepts (2^31, 2^32+40) arrives at a
// handler that cannot hold it.
func TestRequestIntegersAreBounded(t *testing.T) {
	t.Parallel()
	var problems []string
	seen := map[*openapi3.Schema]bool{}
	var walk func(where string, s *openapi3.Schema)
	walk = func(where string, s *openapi3.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if s.Type.Is("integer") && !s.ReadOnly {
			switch limit := int64(math.MaxInt64); {
			case s.Min == nil || s.Max == nil:
				problems = append(problems, where+": no minimum and maximum")
			case s.Format == "int32" && (*s.Max > math.MaxInt32 || *s.Min < math.MinInt32):
				problems = append(problems, fmt.Sprintf("%s: int32 bounded by [%v, %v]", where, *s.Min, *s.Max))
			case *s.Max > float64(limit) || *s.Min < -float64(limit):
				problems = append(problems, fmt.Sprintf("%s: beyond int64 [%v, %v]", where, *s.Min, *s.Max))
			}
		}
		for name, p := range s.Properties {
			walk(where+"."+name, p.Value)
		}
		if s.Items != nil {
			walk(where+"[]", s.Items.Value)
		}
		if s.AdditionalProperties.Schema != nil {
			walk(where+".*", s.AdditionalProperties.Schema.Value)
		}
		for _, refs := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
			for _, r := range refs {
				walk(where, r.Value)
			}
		}
	}
	for _, o := range specOperations(t) {
		op := o.method + " " + o.path
		for _, p := range o.params {
			if p.Value.Schema != nil {
				walk(op+" "+p.Value.In+" "+p.Value.Name, p.Value.Schema.Value)
			}
		}
		if o.op.RequestBody != nil {
			for ct, m := range o.op.RequestBody.Value.Content {
				if m.Schema != nil {
					walk(op+" "+ct+" body", m.Schema.Value)
				}
			}
		}
	}
	sort.Strings(problems)
	if len(problems) > 0 {
		t.Fatalf("%d request integers unbounded:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}
