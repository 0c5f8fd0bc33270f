package httpapi

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/labstack/echo/v4"
	echomw "github.com/oapi-codegen/echo-middleware"
)

// specRoutes is every operation of the spec as the request validator needs it, keyed like
// operations: by method and Echo route path.
type specRoutes map[routeKey]*routers.Route

func indexRoutes(doc *openapi3.T) specRoutes {
	var server *openapi3.Server
	if len(doc.Servers) > 0 {
		server = doc.Servers[0]
	}
	routes := specRoutes{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			routes[opKey(method, echoPath(path))] = &routers.Route{Spec: doc, Server: server, Path: path, PathItem: item, Method: method, Operation: op}
		}
	}
	return routes
}

// echoRouted is the route of the one request Echo has already routed. The validator's own
// router (gorilla/mux) matched every request against the spec's path patterns one after the
// other, regular expressions all, which cost a tenth of the server's time on a stock write.
//
// One is taken from a pool per request, with its path parameters' map: the map is handed to the
// validator, which keeps it only in the errors it returns, so it goes back to the pool only
// after a request that passed.
type echoRouted struct {
	c      echo.Context
	routes specRoutes
	params map[string]string
}

var routedPool = sync.Pool{New: func() any { return &echoRouted{params: map[string]string{}} }}

func (r *echoRouted) FindRoute(req *http.Request) (*routers.Route, map[string]string, error) {
	route := r.routes[opKey(req.Method, r.c.Path())]
	if route == nil {
		return nil, nil, routers.ErrPathNotFound
	}
	names, values := r.c.ParamNames(), r.c.ParamValues()
	params := r.params
	for i, name := range names {
		// Echo hands path parameters over as sent (escaped); the validator, like the
		// handlers' binding, reads them unescaped.
		v := values[i]
		if u, err := url.PathUnescape(v); err == nil {
			v = u
		}
		params[name] = v
	}
	return route, params, nil
}

// validateRequests validates each request of an operation of the spec against it, as
// echomw.OapiRequestValidatorWithOptions does, with the route Echo matched. The requests of a
// plainRoute that it can check (most reads by id) are checked there, the same way for less;
// that needs the validator's errors collected (MultiError), as the server's options have them.
func validateRequests(doc *openapi3.T, options *echomw.Options, authn Authenticators) echo.MiddlewareFunc {
	routes := indexRoutes(doc)
	var plain map[routeKey]*plainRoute
	if options.Options.MultiError && options.MultiErrorHandler != nil {
		plain = plainRoutes(routes)
	}
	return validateWith(routes, plain, options, authn)
}

// validateWith is validateRequests with the plain routes given (none: every request to the
// validator).
func validateWith(routes specRoutes, plain map[routeKey]*plainRoute, options *echomw.Options, authn Authenticators) echo.MiddlewareFunc {
	// A structured-syntax JSON body (application/fhir+json) is decoded pruned (prunedJSON): the
	// strict handler binds the value validated, which is cheap, instead of decoding the body a
	// second time into its generic members; the handler reads the body as sent (reqinfo.Body).
	structured := *options
	structured.Options.KeepValidatedValue = true
	// A body that is not JSON (a multipart upload, a CSV guide, raw HL7) is read by its handler,
	// which checks everything its schema states (the part file, a siteId that is a UUID) and more.
	// The validator would read it whole three times over (for the authenticators, for the body,
	// for each part) and decode its parts into strings: some 5× the body held at once before the
	// handler reads it (issue 40, N1). So it validates such a request without its body, which it
	// never sees: a body that is absent is still the validator's to refuse.
	streamed := *options
	streamed.Options.ExcludeRequestBody = true
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if options.Skipper != nil && options.Skipper(c) {
				return next(c)
			}
			if p := plain[opKey(c.Request().Method, c.Path())]; p != nil {
				if done, err := p.validate(c, authn, options.MultiErrorHandler); done {
					if err != nil {
						return err
					}
					return next(c)
				}
			}
			r := routedPool.Get().(*echoRouted)
			r.c, r.routes = c, routes
			opts := options
			req := c.Request()
			// Parsed once: media types are case-insensitive, so Application/FHIR+JSON is structured too.
			mt, json := jsonMediaType(req.Header.Get(echo.HeaderContentType))
			if strings.HasSuffix(mt, "+json") {
				opts = &structured
			}
			var hidden io.ReadCloser // the body the validator does not see, given back after it
			if body := req.Body; body != nil && body != http.NoBody && req.ContentLength != 0 && !json {
				hidden, req.Body, opts = body, http.NoBody, &streamed
			}
			err := echomw.ValidateRequestFromContext(c, r, opts)
			if hidden != nil {
				req.Body = hidden
			}
			if err != nil {
				return err
			}
			r.c = nil
			clear(r.params)
			routedPool.Put(r)
			return next(c)
		}
	}
}
