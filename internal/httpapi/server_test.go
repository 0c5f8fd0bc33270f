package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sous-app/sous/gen"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

func TestServesTheSpec(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	res := env.Call(http.MethodGet, "openapi.yaml").Do().Expect(http.StatusOK)
	if string(res.Body) != string(gen.OpenAPIYAML) || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/yaml") {
		t.Fatalf("yaml: %s", res.Header.Get("Content-Type"))
	}
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	env.Call(http.MethodGet, "openapi.json").Do().Expect(http.StatusOK).Decode(&doc)
	if doc.OpenAPI != "3.0.3" || doc.Paths["/auth/register"]["post"] == nil {
		t.Fatalf("json spec: %s %d paths", doc.OpenAPI, len(doc.Paths))
	}
}

func TestServesTheReferencePageFromTheBinary(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	page := get(t, env.URL+"/docs")
	if !strings.Contains(page, `spec-url="/v1/openapi.yaml"`) || !strings.Contains(page, `src="/docs/redoc.standalone.js"`) {
		t.Fatalf("docs page: %s", page)
	}
	if strings.Contains(page, "https://") {
		t.Fatal("docs page loads something from the network")
	}
	if js := get(t, env.URL+"/docs/redoc.standalone.js"); len(js) != len(gen.RedocJS) {
		t.Fatalf("redoc bundle: %d bytes", len(js))
	}
}

func TestHealthAndReadiness(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	var h, r map[string]string
	_ = json.Unmarshal([]byte(get(t, env.URL+"/healthz")), &h)
	_ = json.Unmarshal([]byte(get(t, env.URL+"/readyz")), &r)
	if h["status"] != "ok" || r["status"] != "ready" {
		t.Fatalf("healthz %v readyz %v", h, r)
	}

	if _, err := env.Pool.Exec(t.Context(), `DELETE FROM goose_db_version WHERE version_id = (SELECT max(version_id) FROM goose_db_version)`); err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(env.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("readyz with a pending migration: %d", res.StatusCode)
	}
}

func TestErrorsAreJSON(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Call(http.MethodGet, "nothing/here").Do().ExpectError(http.StatusNotFound, "")
	env.Call(http.MethodPut, "auth/me").Do().ExpectError(http.StatusMethodNotAllowed, "")
	env.Call(http.MethodGet, "auth/me").Do().ExpectError(http.StatusUnauthorized, "Authentication required")
	big := `{"email":"a@b.example","password":"` + strings.Repeat("x", 2<<20) + `"}`
	env.Call(http.MethodPost, "auth/login").JSON(big).Do().ExpectError(http.StatusRequestEntityTooLarge, "")
}

func TestRequestIDIsEchoed(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	res := env.Call(http.MethodGet, "openapi.json").Header("X-Request-Id", "trace-123").Do()
	if res.Header.Get("X-Request-Id") != "trace-123" {
		t.Fatalf("request id %q", res.Header.Get("X-Request-Id"))
	}
	if env.Call(http.MethodGet, "openapi.json").Do().Header.Get("X-Request-Id") == "" {
		t.Fatal("no request id generated")
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, res.StatusCode, b)
	}
	return string(b)
}

// HEAD is answered wherever GET is, with the GET's headers and no body.
func TestHeadIsServedLikeGet(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	for _, path := range []string{"/v1/openapi.yaml", "/healthz"} {
		get, err := http.Get(env.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		getBody, _ := io.ReadAll(get.Body)
		get.Body.Close()
		head, err := http.Head(env.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		headBody, _ := io.ReadAll(head.Body)
		head.Body.Close()
		if head.StatusCode != http.StatusOK || len(headBody) != 0 {
			t.Fatalf("HEAD %s: %d with %d body bytes", path, head.StatusCode, len(headBody))
		}
		if head.Header.Get("Content-Type") != get.Header.Get("Content-Type") || head.ContentLength != int64(len(getBody)) && head.ContentLength != -1 {
			t.Fatalf("HEAD %s headers %v, GET body %d bytes", path, head.Header, len(getBody))
		}
	}
	// A HEAD is still authenticated like the GET it stands for.
	res, err := http.Head(env.URL + "/v1/auth/me")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("HEAD /v1/auth/me without a session: %d", res.StatusCode)
	}
}
