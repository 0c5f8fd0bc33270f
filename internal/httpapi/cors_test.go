package httpapi_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

const appOrigin = "https://app.example.com"

func withCORS(c *config.Config) { c.CORSOrigins = []string{appOrigin} }

func headerList(h http.Header, name string) []string {
	var out []string
	for _, v := range h.Values(name) {
		for _, p := range strings.Split(v, ",") {
			out = append(out, strings.ToLower(strings.TrimSpace(p)))
		}
	}
	return out
}

func TestCORSPreflightForAnAllowedOrigin(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, withCORS)
	res := env.Call(http.MethodOptions, "orgs").
		Header("Origin", appOrigin).
		Header("Access-Control-Request-Method", "POST").
		Header("Access-Control-Request-Headers", "authorization, content-type, idempotency-key").Do()
	if res.Status != http.StatusNoContent {
		t.Fatalf("preflight status %d", res.Status)
	}
	h := res.Header
	if got := h.Get("Access-Control-Allow-Origin"); got != appOrigin {
		t.Fatalf("Allow-Origin %q", got)
	}
	if h.Get("Access-Control-Allow-Credentials") != "" {
		t.Fatal("credentials mode is on")
	}
	for _, m := range []string{"get", "post", "put", "patch", "delete"} {
		if !slices.Contains(headerList(h, "Access-Control-Allow-Methods"), m) {
			t.Errorf("Allow-Methods %q lacks %s", h.Get("Access-Control-Allow-Methods"), m)
		}
	}
	for _, name := range []string{"authorization", "content-type", "idempotency-key", "x-api-key"} {
		if !slices.Contains(headerList(h, "Access-Control-Allow-Headers"), name) {
			t.Errorf("Allow-Headers %q lacks %s", h.Get("Access-Control-Allow-Headers"), name)
		}
	}
	if !slices.Contains(headerList(h, "Vary"), "origin") || h.Get("Access-Control-Max-Age") == "" {
		t.Errorf("Vary %q, Max-Age %q", h.Values("Vary"), h.Get("Access-Control-Max-Age"))
	}
}

func TestCORSExposesHeadersOnResponsesAndErrors(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, withCORS)
	for name, res := range map[string]*apitest.Response{
		"success": env.Call(http.MethodGet, ".well-known/jwks.json").Header("Origin", appOrigin).Do().Expect(http.StatusOK),
		"401":     env.Call(http.MethodGet, "auth/me").Header("Origin", appOrigin).Do().Expect(http.StatusUnauthorized),
	} {
		if got := res.Header.Get("Access-Control-Allow-Origin"); got != appOrigin {
			t.Errorf("%s: Allow-Origin %q", name, got)
		}
		exposed := headerList(res.Header, "Access-Control-Expose-Headers")
		for _, want := range []string{"link", "retry-after", "etag", "x-request-id", "location", "idempotent-replayed", "ratelimit", "ratelimit-policy", "content-disposition"} {
			if !slices.Contains(exposed, want) {
				t.Errorf("%s: Expose-Headers %q lacks %s", name, exposed, want)
			}
		}
		if !slices.Contains(headerList(res.Header, "Vary"), "origin") {
			t.Errorf("%s: no Vary: Origin", name)
		}
	}
}

// Another origin, or any origin when none is configured, gets no CORS headers: the browser
// then refuses the response to the page.
func TestCORSRefusesOtherOrigins(t *testing.T) {
	t.Parallel()
	for name, env := range map[string]*apitest.Env{"configured": apitest.New(t, withCORS), "default": apitest.New(t)} {
		for _, res := range []*apitest.Response{
			env.Call(http.MethodOptions, "orgs").Header("Origin", "https://evil.example.com").
				Header("Access-Control-Request-Method", "POST").Do(),
			env.Call(http.MethodGet, ".well-known/jwks.json").Header("Origin", "https://evil.example.com").Do(),
		} {
			if got := res.Header.Get("Access-Control-Allow-Origin"); got != "" {
				t.Errorf("%s: Allow-Origin %q for another origin", name, got)
			}
			if res.Header.Get("Access-Control-Allow-Methods") != "" {
				t.Errorf("%s: preflight answered for another origin", name)
			}
		}
	}
}
