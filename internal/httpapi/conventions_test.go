package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sous-app/sous/internal/httpapi"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// Every 201 of the spec declares Location and says, in x-location, where it points, so the
// server sets it for a new operation too.
func TestEvery201DeclaresLocation(t *testing.T) {
	t.Parallel()
	doc, err := httpapi.LoadSpec()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			res := op.Responses.Status(http.StatusCreated)
			if res == nil || res.Value == nil {
				continue
			}
			n++
			if res.Value.Headers["Location"] == nil {
				t.Errorf("%s %s: 201 without a Location header", method, path)
			}
			if tmpl, _ := res.Value.Extensions["x-location"].(string); !strings.HasPrefix(tmpl, "/") {
				t.Errorf("%s %s: 201 without x-location", method, path)
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d operations answer 201", n)
	}
}

// The Location of a 201 names the created resource: fetching it answers that resource.
func TestCreatedResponsesCarryLocation(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	reg := env.Call(http.MethodPost, "auth/register").FromIP(env.NewIP()).
		JSON(map[string]string{"name": "Ana", "email": apitest.NewEmail(), "password": apitest.Password}).Do().Expect(http.StatusCreated)
	var s apitest.Session
	reg.Decode(&s)
	if got := reg.Header.Get("Location"); got != "/v1/auth/me" {
		t.Fatalf("register Location %q", got)
	}
	var org struct{ ID string }
	created := env.Call(http.MethodPost, "orgs").Token(s.AccessToken).JSON(map[string]string{"name": "Harborview"}).Do().Expect(http.StatusCreated)
	created.Decode(&org)
	var site struct{ ID string }
	siteRes := env.Call(http.MethodPost, "orgs/"+org.ID+"/sites").Token(s.AccessToken).
		JSON(map[string]string{"name": "Main", "timezone": "America/New_York"}).Do().Expect(http.StatusCreated)
	siteRes.Decode(&site)

	for name, c := range map[string]struct {
		res  *apitest.Response
		want string
	}{
		"org":  {created, "/v1/orgs/" + org.ID},
		"site": {siteRes, "/v1/orgs/" + org.ID + "/sites/" + site.ID},
	} {
		loc := c.res.Header.Get("Location")
		if loc != c.want {
			t.Errorf("%s: Location %q, want %q", name, loc, c.want)
			continue
		}
		var got struct{ ID string }
		env.Call(http.MethodGet, strings.TrimPrefix(loc, "/v1/")).Token(s.AccessToken).Do().Expect(http.StatusOK).Decode(&got)
		if got.ID != strings.TrimPrefix(loc[strings.LastIndex(loc, "/"):], "/") {
			t.Errorf("%s: GET Location answered %q", name, got.ID)
		}
	}
}

func TestBearerOperationsChallengeOn401(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	for name, c := range map[string]struct {
		req  *apitest.Request
		want string
	}{
		"no token":  {env.Call(http.MethodGet, "auth/me"), `Bearer realm="sous"`},
		"bad token": {env.Call(http.MethodGet, "auth/me").Token("not-a-token"), `Bearer realm="sous", error="invalid_token"`},
		"login":     {env.Call(http.MethodPost, "auth/login").JSON(map[string]string{"email": "x@example.com", "password": "wrong-password-123"}), ""},
	} {
		res := c.req.Do().Expect(http.StatusUnauthorized)
		if got := res.Header.Get("WWW-Authenticate"); got != c.want {
			t.Errorf("%s: WWW-Authenticate %q, want %q", name, got, c.want)
		}
	}
}

// raw sends a request outside apitest's helpers, to control Accept and Content-Type exactly.
func raw(t *testing.T, env *apitest.Env, method, path string, header map[string]string, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, env.URL+"/v1/"+path, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return res.StatusCode, out
}

func TestContentNegotiation(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	s := env.NewUser()
	bearer := "Bearer " + s.AccessToken
	login := `{"email":"` + s.User.Email + `","password":"` + apitest.Password + `"}`
	for _, c := range []struct {
		name, method, path string
		header             map[string]string
		body               string
		status             int
		code               string
	}{
		{"accept xml", "GET", "auth/me", map[string]string{"Authorization": bearer, "Accept": "application/xml"}, "", 406, "not_acceptable"},
		{"json refused by q=0", "GET", "auth/me", map[string]string{"Authorization": bearer, "Accept": "application/json;q=0, text/html"}, "", 406, "not_acceptable"},
		{"accept json", "GET", "auth/me", map[string]string{"Authorization": bearer, "Accept": "application/json"}, "", 200, ""},
		{"accept wildcard", "GET", "auth/me", map[string]string{"Authorization": bearer, "Accept": "text/html, */*;q=0.8"}, "", 200, ""},
		{"accept application/*", "GET", "auth/me", map[string]string{"Authorization": bearer, "Accept": "application/*"}, "", 200, ""},
		{"no accept", "GET", "auth/me", map[string]string{"Authorization": bearer}, "", 200, ""},
		{"yaml spec as yaml", "GET", "openapi.yaml", map[string]string{"Accept": "application/yaml"}, "", 200, ""},
		{"yaml spec as json", "GET", "openapi.yaml", map[string]string{"Accept": "application/json"}, "", 406, "not_acceptable"},
		{"form body", "POST", "auth/login", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, login, 415, "unsupported_media_type"},
		{"text body", "POST", "auth/login", map[string]string{"Content-Type": "text/plain"}, login, 415, "unsupported_media_type"},
		{"no content type", "POST", "auth/login", nil, login, 415, "unsupported_media_type"},
		{"json with charset", "POST", "auth/login", map[string]string{"Content-Type": "application/json; charset=utf-8"}, login, 200, ""},
		{"json body to media upload", "POST", "orgs/00000000-0000-0000-0000-000000000000/media", map[string]string{"Authorization": bearer, "Content-Type": "application/json"}, `{}`, 415, "unsupported_media_type"},
	} {
		status, body := raw(t, env, c.method, c.path, c.header, c.body)
		if status != c.status || (c.code != "" && body["code"] != c.code) {
			t.Errorf("%s: %d %v, want %d %s", c.name, status, body, c.status, c.code)
		}
	}
}

// The rate-limited operations report their quota (IETF httpapi RateLimit-Policy / RateLimit) as
// it is consumed, and on the 429.
func TestRateLimitHeaders(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	ip := env.NewIP()
	var states []string
	for i := 0; i < 4; i++ {
		res := env.Call(http.MethodPost, "auth/register").FromIP(ip).
			JSON(map[string]string{"name": "A", "email": apitest.NewEmail(), "password": apitest.Password}).Do()
		if p := res.Header.Get("RateLimit-Policy"); p != `"register";q=3;w=3600` {
			t.Fatalf("registration %d: RateLimit-Policy %q", i+1, p)
		}
		states = append(states, res.Header.Get("RateLimit"))
	}
	want := []string{`"register";r=2;t=3600`, `"register";r=1;t=3600`, `"register";r=0;t=3600`, `"register";r=0;t=3600`}
	if strings.Join(states, " ") != strings.Join(want, " ") {
		t.Fatalf("RateLimit %q, want %q", states, want)
	}

	u := env.NewUser()
	bad := env.Call(http.MethodPost, "auth/login").FromIP(ip).JSON(map[string]string{"email": u.User.Email, "password": "wrong-password-123"}).Do()
	if bad.Header.Get("RateLimit-Policy") != `"signin_fail";q=5;w=900` || bad.Header.Get("RateLimit") != `"signin_fail";r=4;t=900` {
		t.Fatalf("failed login: %q %q", bad.Header.Get("RateLimit-Policy"), bad.Header.Get("RateLimit"))
	}
	ok := env.Call(http.MethodPost, "auth/login").FromIP(ip).JSON(map[string]string{"email": u.User.Email, "password": apitest.Password}).Do().Expect(http.StatusOK)
	if ok.Header.Get("RateLimit") != `"signin_fail";r=5;t=0` {
		t.Fatalf("login after success: %q", ok.Header.Get("RateLimit"))
	}
	if me := env.Call(http.MethodGet, "auth/me").Token(u.AccessToken).Do(); me.Header.Get("RateLimit-Policy") != "" {
		t.Fatal("an operation without a limit reports one")
	}
}

// Every operation that answers a body documents the 406 the server gives when Accept refuses
// it, and every operation that takes a body the 415 for a body of another media type.
func TestEveryOperationDocumentsNegotiation(t *testing.T) {
	t.Parallel()
	doc, err := httpapi.LoadSpec()
	if err != nil {
		t.Fatal(err)
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			answers := false
			for code, res := range op.Responses.Map() {
				if strings.HasPrefix(code, "2") && res.Value != nil && len(res.Value.Content) > 0 {
					answers = true
				}
			}
			if answers && op.Responses.Status(http.StatusNotAcceptable) == nil {
				t.Errorf("%s %s: no 406 response", method, path)
			}
			if op.RequestBody != nil && op.Responses.Status(http.StatusUnsupportedMediaType) == nil {
				t.Errorf("%s %s: takes a body but documents no 415", method, path)
			}
		}
	}
}
