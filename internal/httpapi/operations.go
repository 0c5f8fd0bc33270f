package httpapi

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
)

// BasePath prefixes every operation of the spec.
const BasePath = "/v1"

// Permissions that need no organization: anyone, any signed-in user for themselves, or a paired
// device for itself (its token names its organization).
const (
	PermissionPublic = "public"
	PermissionSelf   = "self"
	PermissionDevice = "device"
)

// Site scopes (x-site-scope): how a membership limited to some sites is treated.
const (
	// SiteScopeSite: the resource belongs to a site; handlers answer 404 for another site's
	// resource and filter lists to the membership's sites.
	SiteScopeSite = "site"
	// SiteScopeOrg: the resource is the organization's as a whole; the policy refuses a
	// site-limited membership (403) unless the operation is a read marked x-site-limited-read.
	SiteScopeOrg = "org"
	// SiteScopeNone: not an organization's resource.
	SiteScopeNone = "none"
)

// operation is what the policy middleware needs to know about one spec operation, read once
// from the operation's extensions at start-up.
type operation struct {
	ID          string
	Permission  string // x-permission
	PlanFeature string // x-plan-feature
	BodyLimit   string // x-body-limit: a larger request body than the server's default, e.g. "6M"
	OrgScoped   bool   // the path has {orgId}
	SiteScope   string // x-site-scope: site, org or none
	// SiteLimitedRead (x-site-limited-read) opens an organization-wide read to site-limited
	// members; the operation's description says why.
	SiteLimitedRead bool
	// ScanRef (x-unauthenticated-scan) makes every 401 of the operation carry the scan
	// reference {tagCode, orgId} taken from the path, so the app can resume after sign-in.
	ScanRef bool
	// Idempotent: the operation declares the Idempotency-Key header, so retries with a key are
	// answered from the first response (idempotency.go).
	Idempotent bool
	media      // what it takes, what it answers, where a 201 points (conventions.go)
	// jsonLimits bound the shape of its JSON body (x-json-limits over the defaults, jsonlimits.go);
	// bodySchemas is its body's schema per JSON media type, which the walk follows.
	jsonLimits    jsonLimits
	jsonLimitsErr error
	bodySchemas   map[string]*openapi3.Schema
	// fhirOutcome: its 422 is a FHIR OperationOutcome, so a body over its limits answers that.
	fhirOutcome bool
}

// operations finds the spec operation of a request from Echo's matched route, which Echo has
// already resolved, so no second routing pass is needed.
type operations map[routeKey]*operation

// routeKey is an operation's method and Echo route path. A struct rather than the two joined
// into one string: every request looks operations up several times, and a lookup by struct
// allocates nothing.
type routeKey struct{ method, path string }

func opKey(method, echoPath string) routeKey { return routeKey{method, echoPath} }

// of returns the operation of the request in c (nil for a route outside the spec). requestScope
// looks it up once and keeps it in the request's scope, where the layers after it read it
// instead of hashing the method and route again, each of them.
func (ops operations) of(c echo.Context) *operation {
	if s := scopeOf(c.Request().Context()); s != nil && s.opKnown {
		return s.op
	}
	return ops[opKey(c.Request().Method, c.Path())]
}

// route returns the Echo route path of the operation with the given id ("" when absent).
func (ops operations) route(operationID string) string {
	for key, o := range ops {
		if o.ID == operationID {
			return key.path
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
				BodyLimit:   stringExt(op.Extensions, "x-body-limit"),
				OrgScoped:   strings.Contains(path, "{orgId}"),
				SiteScope:   stringExt(op.Extensions, "x-site-scope"),
				ScanRef:     boolExt(op.Extensions, "x-unauthenticated-scan"),
				Idempotent:  declaresHeader(op, IdempotencyKeyHeader),
			}
			o.SiteLimitedRead = boolExt(op.Extensions, "x-site-limited-read")
			o.media = mediaOf(doc, op)
			o.jsonLimits, o.jsonLimitsErr = jsonLimitsOf(op)
			o.bodySchemas = bodySchemas(op)
			if r := op.Responses.Value("422"); r != nil && r.Value != nil && r.Value.Content.Get(fhirJSON) != nil {
				o.fhirOutcome = true
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

// declaresHeader reports whether the operation takes the header parameter name.
func declaresHeader(op *openapi3.Operation, name string) bool {
	for _, p := range op.Parameters {
		if p.Value != nil && p.Value.In == openapi3.ParameterInHeader && strings.EqualFold(p.Value.Name, name) {
			return true
		}
	}
	return false
}

func stringExt(ext map[string]any, name string) string {
	s, _ := ext[name].(string)
	return s
}

func boolExt(ext map[string]any, name string) bool {
	b, _ := ext[name].(bool)
	return b
}
