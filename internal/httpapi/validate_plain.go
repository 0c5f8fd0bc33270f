package httpapi

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/labstack/echo/v4"
)

// plainRoute is an operation whose every request without a body and without a query string is
// validated here instead of by kin-openapi: its parameters are uuid path ids and optional query
// parameters without a default, and it takes no body. Its security requirements are checked as
// the validator checks them (the alternatives in order, the schemes of one sorted by name, the
// first that fails ends its alternative), with the same Authenticators. Kin-openapi's generic
// walk around those checks (the parameters decoded and visited as JSON, each requirement's names
// sorted and its schemes looked up, on every request) was half of the validator's time, itself a
// twentieth of an authenticated read's server CPU.
//
// A request this cannot check exactly (a malformed or escaped id, a query string the operation
// declares parameters for, a body) goes to the validator, which answers it as before. Refused
// credentials are answered here, with the very error the validator returns for them.
type plainRoute struct {
	route *routers.Route
	// ids are the path parameters, each checked with validUUID.
	ids []string
	// hasQuery: the operation declares query parameters, so a request with a query string goes
	// to the validator (which checks them).
	hasQuery bool
	security openapi3.SecurityRequirements
	// schemes[i] are security[i]'s scheme names in the validator's order (sorted).
	schemes [][]string
}

// plainRoutes picks the operations of routes that plainRoute can validate.
func plainRoutes(routes specRoutes) map[routeKey]*plainRoute {
	plain := map[routeKey]*plainRoute{}
	for key, route := range routes {
		if p := newPlainRoute(route); p != nil {
			plain[key] = p
		}
	}
	return plain
}

func newPlainRoute(route *routers.Route) *plainRoute {
	op := route.Operation
	if op.RequestBody != nil {
		return nil
	}
	p := &plainRoute{route: route}
	params := slices.Concat(route.PathItem.Parameters, op.Parameters)
	for _, ref := range params {
		param := ref.Value
		if param == nil {
			return nil
		}
		switch {
		case param.In == openapi3.ParameterInPath && plainUUID(param):
			p.ids = append(p.ids, param.Name)
		case param.In == openapi3.ParameterInQuery && !param.Required && param.Schema != nil && !hasDefault(param.Schema.Value):
			p.hasQuery = true
		default:
			return nil
		}
	}
	security := op.Security
	if security == nil {
		security = &route.Spec.Security
	}
	p.security = *security
	var schemes openapi3.SecuritySchemes
	if route.Spec.Components != nil {
		schemes = route.Spec.Components.SecuritySchemes
	}
	for _, req := range p.security {
		names := make([]string, 0, len(req))
		for name := range req {
			if ref := schemes[name]; ref == nil || ref.Value == nil {
				return nil // the validator answers an undeclared scheme
			}
			names = append(names, name)
		}
		slices.Sort(names)
		p.schemes = append(p.schemes, names)
	}
	return p
}

// plainUUID: a path parameter whose schema is a string of format uuid and nothing more, so
// validUUID is its whole validation.
func plainUUID(param *openapi3.Parameter) bool {
	if param.Content != nil || param.Schema == nil || param.Schema.Value == nil {
		return false
	}
	s := *param.Schema.Value
	if !s.Type.Is(openapi3.TypeString) || s.Format != "uuid" {
		return false
	}
	// Anything else the schema says (a pattern, a length, an enum…) is the validator's.
	s.Type, s.Format, s.Extensions, s.Description, s.Example, s.Title = nil, "", nil, "", nil, ""
	b, err := json.Marshal(&s)
	return err == nil && string(b) == "{}"
}

// hasDefault: the validator writes a missing parameter's default into the request.
func hasDefault(s *openapi3.Schema) bool {
	if s == nil {
		return false
	}
	if s.Default != nil {
		return true
	}
	for _, sub := range s.AllOf {
		if sub.Value != nil && sub.Value.Default != nil {
			return true
		}
	}
	return false
}

// validate reports whether the request was validated here; when it was, err is what the
// validator would have answered: nil, or the credentials refused, as multi makes it of the
// validator's error (its options have MultiError).
func (p *plainRoute) validate(c echo.Context, a Authenticators, multi func(openapi3.MultiError) *echo.HTTPError) (bool, *echo.HTTPError) {
	req := c.Request()
	if req.Body != http.NoBody && req.Body != nil || p.hasQuery && req.URL.RawQuery != "" {
		return false, nil
	}
	orgID := ""
	names, values := c.ParamNames(), c.ParamValues()
	for _, id := range p.ids {
		i := slices.Index(names, id)
		if i < 0 || i >= len(values) || validUUID(values[i]) != nil {
			return false, nil
		}
		if id == "orgId" {
			orgID = values[i]
		}
	}
	if len(p.security) == 0 {
		return true, nil
	}
	var errs []error
	for i := range p.security {
		err := p.requirement(c, a, p.schemes[i], orgID)
		if err == nil {
			return true, nil
		}
		errs = append(errs, err)
	}
	return true, multi(openapi3.MultiError{&openapi3filter.SecurityRequirementsError{SecurityRequirements: p.security, Errors: errs}})
}

// requirement checks one alternative: every scheme of it, in order, the first refusal ending it.
func (p *plainRoute) requirement(c echo.Context, a Authenticators, schemes []string, orgID string) error {
	for _, name := range schemes {
		if err := a.scheme(c, name, p.security, orgID); err != nil {
			return err
		}
	}
	return nil
}
