package httpapi

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	echomw "github.com/oapi-codegen/echo-middleware"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/principal"
)

// TestPlainRoutesAreTheReadsById: the reads the plain path exists for take it, and operations
// it cannot check exactly (a body, a query parameter's default, a header parameter) do not.
func TestPlainRoutesAreTheReadsById(t *testing.T) {
	t.Parallel()
	doc := loadSpecForTest(t)
	ops := indexOperations(doc)
	plain := plainRoutes(indexRoutes(doc))
	byID := map[string]bool{}
	for key, op := range ops {
		byID[op.ID] = plain[key] != nil
	}
	for _, id := range []string{"getMe", "listSites", "getSite"} {
		if !byID[id] {
			t.Errorf("%s is not a plain route", id)
		}
	}
	for key, p := range plain {
		op := p.route.Operation
		if op.RequestBody != nil {
			t.Errorf("%v has a body and is plain", key)
		}
		for _, ref := range slices.Concat(p.route.PathItem.Parameters, op.Parameters) {
			if param := ref.Value; param.In == openapi3.ParameterInHeader || param.In == openapi3.ParameterInQuery && hasDefault(param.Schema.Value) {
				t.Errorf("%v: parameter %s in %s and plain", key, param.Name, param.In)
			}
		}
	}
	t.Logf("%d of %d operations plain", len(plain), len(ops))
}

// TestPlainValidationAnswersAsTheValidator: for every plain route and every way a request can
// come (each credential kind good, bad, missing or mixed, a malformed id, a query string, a
// body), the plain path answers exactly what the validator answers, status and body, and
// authenticates the same principal, with each credential checked as many times.
func TestPlainValidationAnswersAsTheValidator(t *testing.T) {
	t.Parallel()
	doc := loadSpecForTest(t)
	ops := indexOperations(doc)
	routes := indexRoutes(doc)
	plain := plainRoutes(routes)
	org := uuid.MustParse("0b1c5d3e-8f2a-4c6b-9d7e-1a2b3c4d5e6f")

	type server struct {
		h     http.Handler
		calls map[string]int
	}
	newServer := func(plain map[routeKey]*plainRoute) *server {
		s := &server{calls: map[string]int{}}
		authn := Authenticators{
			Bearer: func(ctx context.Context, token string) (principal.Principal, error) {
				s.calls["bearer "+token]++
				if _, ok := ctx.Deadline(); !ok {
					t.Error("bearer token checked without the request's deadline")
				}
				if token != "good" {
					return principal.Principal{}, apierr.Unauthenticated("Invalid or expired access token").WithCode(apierr.CodeInvalidToken)
				}
				return principal.Principal{Kind: principal.User, UserID: uuid.MustParse("11111111-2222-4333-8444-555555555555")}, nil
			},
			APIKey: func(_ context.Context, key string, orgID uuid.UUID) (principal.Principal, error) {
				s.calls["key "+key]++
				if key != "k-good" || orgID != org {
					return principal.Principal{}, apierr.Unauthenticated("Invalid API key").WithCode(apierr.CodeInvalidAPIKey)
				}
				return principal.Principal{Kind: principal.APIKey, OrgID: orgID}, nil
			},
			Device: func(_ context.Context, token string) (principal.Principal, error) {
				s.calls["device "+token]++
				if token != "d-good" {
					return principal.Principal{}, apierr.Unauthenticated("Invalid device token").WithCode(apierr.CodeInvalidDeviceToken)
				}
				return principal.Principal{Kind: principal.Device, OrgID: org}, nil
			},
		}
		options := &echomw.Options{
			SilenceServersWarning: true,
			Options:               openapi3filter.Options{MultiError: true, AuthenticationFunc: authn.authenticate},
			MultiErrorHandler: func(me openapi3.MultiError) *echo.HTTPError {
				return &echo.HTTPError{Code: http.StatusBadRequest, Message: "request validation failed", Internal: me}
			},
		}
		e := echo.New()
		e.HTTPErrorHandler = errorRenderer(slog.New(slog.NewTextHandler(io.Discard, nil)), ops)
		e.Use(requestScope(scopeConfig{ops: ops}), validateWith(routes, plain, options, authn))
		for key := range ops {
			e.Add(key.method, key.path, func(c echo.Context) error {
				p, _ := principal.From(c.Request().Context())
				return c.String(http.StatusOK, fmt.Sprintf("passed as %+v", p))
			})
		}
		s.h = e
		return s
	}
	fast, reference := newServer(plain), newServer(nil)

	cases := []struct {
		name    string
		headers map[string]string
		id      string // replaces every path id; empty: a valid one
		query   string
		body    string
	}{
		{name: "no credential"},
		{name: "good bearer", headers: map[string]string{"Authorization": "Bearer good"}},
		{name: "bad bearer", headers: map[string]string{"Authorization": "Bearer bad"}},
		{name: "bearer in lower case", headers: map[string]string{"Authorization": "bearer good"}},
		{name: "not bearer", headers: map[string]string{"Authorization": "Basic Zm9vOmJhcg=="}},
		{name: "empty bearer", headers: map[string]string{"Authorization": "Bearer  "}},
		{name: "good key", headers: map[string]string{"X-Api-Key": "k-good"}},
		{name: "bad key", headers: map[string]string{"X-Api-Key": "k-bad"}},
		{name: "bad key and good bearer", headers: map[string]string{"X-Api-Key": "k-bad", "Authorization": "Bearer good"}},
		{name: "good device", headers: map[string]string{"X-Device-Token": "d-good"}},
		{name: "bad device", headers: map[string]string{"X-Device-Token": "d-bad"}},
		{name: "malformed id", headers: map[string]string{"Authorization": "Bearer good"}, id: "not-a-uuid"},
		{name: "malformed id, no credential", id: "0b1c5d3e-8f2a-4c6b-9d7e-1a2b3c4d5e6"},
		{name: "escaped id", headers: map[string]string{"Authorization": "Bearer good"}, id: "0b1c5d3e%2D8f2a-4c6b-9d7e-1a2b3c4d5e6f"},
		{name: "query string", headers: map[string]string{"Authorization": "Bearer good"}, query: "limit=0&cursor=%00"},
		{name: "body", headers: map[string]string{"Authorization": "Bearer good", "Content-Type": "application/json"}, body: `{"a":1}`},
	}
	for key, p := range plain {
		path := key.path
		for _, id := range p.ids {
			path = strings.Replace(path, ":"+id, org.String(), 1)
		}
		for _, tc := range cases {
			target := path
			if tc.id != "" {
				for _, id := range p.ids {
					target = strings.Replace(key.path, ":"+id, tc.id, 1)
				}
				if len(p.ids) == 0 {
					continue
				}
			}
			if tc.query != "" {
				target += "?" + tc.query
			}
			answer := func(s *server) (int, string) {
				var body io.Reader
				if tc.body != "" {
					body = strings.NewReader(tc.body)
				}
				req := httptest.NewRequest(key.method, target, body)
				for k, v := range tc.headers {
					req.Header.Set(k, v)
				}
				rec := httptest.NewRecorder()
				s.h.ServeHTTP(rec, req)
				return rec.Code, rec.Body.String()
			}
			fc, fb := answer(fast)
			rc, rb := answer(reference)
			if fc != rc || fb != rb {
				t.Errorf("%s %s, %s: plain answered %d %s, the validator %d %s", key.method, target, tc.name, fc, fb, rc, rb)
			}
		}
	}
	for k, n := range reference.calls {
		if fast.calls[k] != n {
			t.Errorf("%s checked %d times on the plain path, %d by the validator", k, fast.calls[k], n)
		}
	}
}

func loadSpecForTest(t *testing.T) *openapi3.T {
	t.Helper()
	DefineFormats()
	doc, err := LoadSpec()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
