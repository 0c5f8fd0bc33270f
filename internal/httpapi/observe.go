package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/sous-app/sous/internal/metrics"
	"github.com/sous-app/sous/internal/tracing"
)

// The W3C headers in their canonical form, as net/http stores them (tracestate travels only
// with a traceparent).
const (
	traceparentHeader = "Traceparent"
	baggageHeader     = "Baggage"
)

// Route labels of requests no route matched, and operation label of routes outside the spec.
const (
	unmatchedRoute = "unmatched"
	noOperation    = "none"
)

// observer records each request's metrics and, when tracing is on, its server span. Everything
// a request's labels need is resolved once per route when the server is built: the hot path
// does two map lookups on strings it already holds, an atomic load and a histogram observation,
// and allocates nothing.
type observer struct {
	// routes is keyed by Echo's route path, then by method index (methodIndex).
	routes    map[string]*[len(methods)]*routeObs
	unmatched [len(methods) + 1]*routeObs // per method, the last for methods outside the list
	tracing   bool
	// redact writes the span's url.path without secret segments (the span's name and http.route
	// are the route template).
	redact *pathRedactor
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
}

// methods are the request methods a label may name; any other is _OTHER, as the OpenTelemetry
// conventions have it, so a client cannot invent label values.
var methods = [...]string{
	http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
	http.MethodHead, http.MethodOptions, http.MethodConnect, http.MethodTrace,
}

func methodIndex(m string) int {
	for i, v := range methods {
		if v == m {
			return i
		}
	}
	return len(methods)
}

// routeObs is one route's pre-resolved labels: its histogram children by status code (added
// copy-on-write the first time a code is seen) and its span's name and attributes.
type routeObs struct {
	method, route, operation string
	spanName                 string
	attrs                    []attribute.KeyValue
	startOpts                []trace.SpanStartOption // kind and attrs, built once

	codes atomic.Pointer[[]codeObs]
	mu    sync.Mutex // serialises additions to codes
}

type codeObs struct {
	code int
	obs  prometheus.Observer
}

func newRouteObs(method, route, operation string) *routeObs {
	r := &routeObs{method: method, route: route, operation: operation, spanName: method + " " + route}
	if route == unmatchedRoute {
		r.spanName = method // the conventions' name when there is no route
	}
	r.attrs = []attribute.KeyValue{semconv.HTTPRequestMethodKey.String(method), attribute.String("sous.operation", operation)}
	if route != unmatchedRoute {
		r.attrs = append(r.attrs, semconv.HTTPRoute(route))
	}
	r.startOpts = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(r.attrs...)}
	empty := []codeObs{}
	r.codes.Store(&empty)
	return r
}

// observer returns the histogram child of code, creating it on first sight.
func (r *routeObs) observer(code int) prometheus.Observer {
	for _, c := range *r.codes.Load() {
		if c.code == code {
			return c.obs
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	cur := *r.codes.Load()
	for _, c := range cur {
		if c.code == code {
			return c.obs
		}
	}
	next := append(cur[:len(cur):len(cur)], codeObs{code, metrics.HTTPRequestDuration.WithLabelValues(
		r.method, r.route, strconv.Itoa(code), r.operation)})
	r.codes.Store(&next)
	return next[len(next)-1].obs
}

// newObserver prepares the labels of every operation of doc (routing paths, as Echo registers
// them) and pre-creates each one's series at its success status, so a route that has not been
// called yet shows 0 requests rather than nothing.
func newObserver(doc *openapi3.T, tracingOn bool) *observer {
	o := &observer{routes: map[string]*[len(methods)]*routeObs{}, tracing: tracingOn}
	for i, m := range methods {
		o.unmatched[i] = newRouteObs(m, unmatchedRoute, noOperation)
	}
	o.unmatched[len(methods)] = newRouteObs("_OTHER", unmatchedRoute, noOperation)
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			r := o.add(method, echoPath(path), BasePath+path, op.OperationID)
			if code := successCode(op); code != 0 {
				r.observer(code)
			}
		}
	}
	if tracingOn {
		o.tracer = tracing.Tracer()
		o.prop = otel.GetTextMapPropagator()
	}
	return o
}

func (o *observer) add(method, echoRoute, route, operation string) *routeObs {
	i := methodIndex(method)
	if i == len(methods) {
		return o.unmatched[i]
	}
	byMethod := o.routes[echoRoute]
	if byMethod == nil {
		byMethod = new([len(methods)]*routeObs)
		o.routes[echoRoute] = byMethod
	}
	if byMethod[i] == nil {
		byMethod[i] = newRouteObs(method, route, operation)
	}
	return byMethod[i]
}

// addRoutes adds the routes registered outside the spec (health, docs): fixed paths, labelled
// with their path and operation "none".
func (o *observer) addRoutes(routes []*echo.Route) {
	for _, rt := range routes {
		if strings.ContainsAny(rt.Path, "*:") || methodIndex(rt.Method) == len(methods) {
			continue
		}
		if byMethod := o.routes[rt.Path]; byMethod != nil && byMethod[methodIndex(rt.Method)] != nil {
			continue // an operation of the spec
		}
		o.add(rt.Method, rt.Path, rt.Path, noOperation)
	}
}

// successCode is the lowest 2xx status the operation declares (0 when none).
func successCode(op *openapi3.Operation) int {
	best := 0
	for code := range op.Responses.Map() {
		n, err := strconv.Atoi(code)
		if err == nil && n >= 200 && n < 300 && (best == 0 || n < best) {
			best = n
		}
	}
	return best
}

func (o *observer) lookup(method, echoRoute string) *routeObs {
	i := methodIndex(method)
	if i < len(methods) {
		if byMethod := o.routes[echoRoute]; byMethod != nil && byMethod[i] != nil {
			return byMethod[i]
		}
	}
	return o.unmatched[i]
}

// middleware observes every request. It sits first, so the span and the duration cover the
// whole chain; like the access log, it renders an error itself so that it reads the status
// actually sent.
func (o *observer) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		req := c.Request()
		r := o.lookup(req.Method, c.Path())
		metrics.HTTPActiveRequests.Inc()
		var span trace.Span
		if o.tracing {
			ctx := req.Context()
			// Only a request that carries trace context pays for reading it (the carrier's
			// lookups canonicalise, and allocate, each header name).
			if req.Header[traceparentHeader] != nil || req.Header[baggageHeader] != nil {
				ctx = o.prop.Extract(ctx, propagation.HeaderCarrier(req.Header))
			}
			ctx, span = o.tracer.Start(ctx, r.spanName, r.startOpts...)
			if span.IsRecording() {
				span.SetAttributes(
					semconv.URLPath(o.redact.path(c.Path(), req.URL.Path)),
					semconv.URLScheme(scheme(req)),
					semconv.ServerAddress(req.Host),
					semconv.ClientAddress(c.RealIP()),
					semconv.UserAgentOriginal(req.UserAgent()),
					semconv.NetworkProtocolVersion(protocolVersion(req)),
				)
			}
			// A tracer that started nothing (tracing.RootsNeverSampled, no trace context) hands
			// the context back as it was: the request is not copied for it.
			if ctx != req.Context() {
				c.SetRequest(req.WithContext(ctx))
			}
		}
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		status := c.Response().Status
		r.observer(status).Observe(time.Since(start).Seconds())
		metrics.HTTPActiveRequests.Dec()
		if span != nil {
			if span.IsRecording() {
				span.SetAttributes(semconv.HTTPResponseStatusCode(status))
				if status >= 500 {
					span.SetStatus(codes.Error, http.StatusText(status))
				}
			}
			span.End()
		}
		return nil
	}
}

func scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

func protocolVersion(r *http.Request) string {
	switch {
	case r.ProtoMajor == 2:
		return "2"
	case r.ProtoMajor == 1 && r.ProtoMinor == 0:
		return "1.0"
	default:
		return "1.1"
	}
}
