package httpapi

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
)

// redactedSegment stands in a logged path for a path segment that held a secret.
const redactedSegment = "REDACTED"

// pathRedactor writes a request's path for the access log and the request's span with every
// secret path segment replaced: capability tokens (who holds a share link may accept the quote
// or read the invoice), printed tag codes. Which segments those are comes from the route
// template Echo matched, not from the look of the value: a route parameter is secret when its
// name is one the contract marks (x-redact, or any path parameter of an operation that needs no
// credential, whose path is then its credential). The hosted pages use the same parameter names,
// so a new public route, in the spec or a page, inherits the redaction.
type pathRedactor struct {
	// secret are the secret parameter names.
	secret map[string]bool
	// routes maps a route template with a secret parameter to the indexes of its secret
	// segments (split on "/"), filled from the registered routes (addRoutes).
	routes map[string][]int
	// literals are the fixed segments of every registered route: in a path no route matched,
	// any other segment (but an id) may be a token sent astray, such as a link with a
	// trailing slash, and is redacted.
	literals map[string]bool
}

// newPathRedactor reads the secret parameter names from doc.
func newPathRedactor(doc *openapi3.T) *pathRedactor {
	r := &pathRedactor{secret: map[string]bool{}, routes: map[string][]int{}, literals: map[string]bool{}}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			public := op.Security != nil && len(*op.Security) == 0
			for _, params := range []openapi3.Parameters{item.Parameters, op.Parameters} {
				for _, p := range params {
					if p.Value == nil || p.Value.In != openapi3.ParameterInPath {
						continue
					}
					if public || boolExt(p.Value.Extensions, "x-redact") {
						r.secret[p.Value.Name] = true
					}
				}
			}
		}
	}
	return r
}

// addRoutes learns the server's routes, once they are all registered and before it serves.
func (r *pathRedactor) addRoutes(routes []*echo.Route) {
	for _, rt := range routes {
		var idx []int
		for i, seg := range strings.Split(rt.Path, "/") {
			switch {
			case strings.HasPrefix(seg, ":"):
				if r.secret[seg[1:]] {
					idx = append(idx, i)
				}
			case seg != "" && !strings.Contains(seg, "*"):
				r.literals[seg] = true
			}
		}
		if idx != nil {
			r.routes[rt.Path] = idx
		}
	}
}

// path is the request path as it may be logged, given the route Echo matched ("" for none).
// A route without secrets returns the path itself: nothing is allocated on that common way.
func (r *pathRedactor) path(route, path string) string {
	if r == nil {
		return path
	}
	if route != "" {
		idx, ok := r.routes[route]
		if !ok {
			if strings.Count(route, "/") == strings.Count(path, "/") || strings.Contains(route, "*") {
				return path
			}
			return r.unmatched(path) // a route that matched in part (a 404 or 405 of Echo's)
		}
		segs := strings.Split(path, "/")
		if len(segs) != strings.Count(route, "/")+1 {
			return r.unmatched(path)
		}
		for _, i := range idx {
			segs[i] = redactedSegment
		}
		return strings.Join(segs, "/")
	}
	return r.unmatched(path)
}

// unmatched keeps the known fixed segments and ids of a path no route took, and redacts the rest.
func (r *pathRedactor) unmatched(path string) string {
	segs := strings.Split(path, "/")
	changed := false
	for i, s := range segs {
		if s == "" || r.literals[s] {
			continue
		}
		if _, err := uuid.Parse(s); err == nil && len(s) == 36 {
			continue
		}
		segs[i], changed = redactedSegment, true
	}
	if !changed {
		return path
	}
	return strings.Join(segs, "/")
}
