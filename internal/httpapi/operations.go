package httpapi

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// BasePath prefixes every operation of the spec.
const BasePath = "/v1"

// Permissions that need no organization: anyone, or any signed-in user for themselves.
const (
	PermissionPublic = "public"
	PermissionSelf   = "self"
)

// operation is what the policy middleware needs to know about one spec operation, read once
// from the operation's extensions at start-up.
type operation struct {
	ID          string
	Permission  string // x-permission
	PlanFeature string // x-plan-feature
	OrgScoped   bool   // the path has {orgId}
}

// operations finds the spec operation of a request from Echo's matched route, which Echo has
// already resolved, so no second routing pass is needed.
type operations map[string]*operation

func opKey(method, echoPath string) string { return method + " " + echoPath }

// route returns the Echo route path of the operation with the given id ("" when absent).
func (ops operations) route(operationID string) string {
	for key, o := range ops {
		if o.ID == operationID {
			_, path, _ := strings.Cut(key, " ")
			return path
		}
	}
	return ""
}

// indexOperations reads every operation of doc, keyed by method and Echo route path.
func indexOperations(doc *openapi3.T) operations {
	ops := operations{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			o := &operation{
				ID:          op.OperationID,
				Permission:  stringExt(op.Extensions, "x-permission"),
				PlanFeature: stringExt(op.Extensions, "x-plan-feature"),
				OrgScoped:   strings.Contains(path, "{orgId}"),
			}
			ops[opKey(method, echoPath(path))] = o
		}
	}
	return ops
}

// echoPath turns /orgs/{orgId}/sites into /v1/orgs/:orgId/sites.
func echoPath(specPath string) string {
	var b strings.Builder
	b.WriteString(BasePath)
	for i := 0; i < len(specPath); i++ {
		switch specPath[i] {
		case '{':
			b.WriteByte(':')
		case '}':
		default:
			b.WriteByte(specPath[i])
		}
	}
	return b.String()
}

func stringExt(ext map[string]any, name string) string {
	s, _ := ext[name].(string)
	return s
}
