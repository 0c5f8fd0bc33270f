package httpapi_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// The next page's Link is built from the configured public URL: a client that sends
// Host: evil.example gets no link to evil.example.
func TestLinkUsesThePublicURLNotTheHostHeader(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, publicURL string }{
		{"default", ""}, // apitest's default: the address the test reaches the server at
		{"configured", "https://api.sous.example/kitchen"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env := apitest.New(t, func(cfg *config.Config) { cfg.PublicURL = c.publicURL })
			want := c.publicURL
			if want == "" {
				want = env.URL
			}
			owner, orgID := env.NewOwner("Harborview Kitchens")
			siteID := env.Site(owner.AccessToken, orgID, "Main")
			for _, name := range []string{"Hot line", "Cold line"} {
				env.Call(http.MethodPost, "orgs/"+orgID.String()+"/devices").Token(owner.AccessToken).
					JSON(map[string]any{"name": name, "kind": "wallboard_boh", "siteId": siteID}).Do().Expect(http.StatusCreated)
			}
			res := env.Call(http.MethodGet, "orgs/"+orgID.String()+"/devices?limit=1").Token(owner.AccessToken).
				Header("Host", "evil.example").Header("X-Forwarded-Host", "evil.example").Do().Expect(http.StatusOK)
			link := res.Header.Get("Link")
			if !strings.HasPrefix(link, "<"+want+"/v1/orgs/"+orgID.String()+"/devices?") || strings.Contains(link, "evil") {
				t.Fatalf("Link %q, want it under %s", link, want)
			}
		})
	}
}

// Every response says nosniff and, unless the handler deliberately allows caching, no-store:
// tokens, patients and errors alike. The docs page may not be framed.
func TestDefaultResponseHeaders(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	siteID := env.Site(owner.AccessToken, orgID, "Main")
	_, deviceToken := env.PairDevice(owner.AccessToken, orgID, siteID, "wallboard_boh")
	ip := env.NewIP()

	cases := []struct {
		name         string
		res          *apitest.Response
		cacheControl string
	}{
		{"token", env.Call(http.MethodPost, "auth/login").FromIP(ip).
			JSON(map[string]string{"email": owner.User.Email, "password": apitest.Password}).Do().Expect(http.StatusOK), "no-store"},
		{"refresh", env.Call(http.MethodPost, "auth/refresh").FromIP(ip).
			JSON(map[string]string{"refreshToken": owner.RefreshToken}).Do().Expect(http.StatusOK), "no-store"},
		{"me", env.Call(http.MethodGet, "auth/me").Token(owner.AccessToken).Do().Expect(http.StatusOK), "no-store"},
		{"census", env.Call(http.MethodGet, "orgs/"+orgID.String()+"/census").Token(owner.AccessToken).Do().Expect(http.StatusOK), "no-store"},
		{"members", env.Call(http.MethodGet, "orgs/"+orgID.String()+"/members").Token(owner.AccessToken).Do().Expect(http.StatusOK), "no-store"},
		{"error", env.Call(http.MethodGet, "orgs/"+orgID.String()+"/patients/"+orgID.String()).Token(owner.AccessToken).Do().Expect(http.StatusNotFound), "no-store"},
		{"unknown route", env.Call(http.MethodGet, "nowhere").Do().Expect(http.StatusNotFound), "no-store"},
		{"device state (its own ETag caching)", env.Call(http.MethodGet, "device/state").DeviceToken(deviceToken).Do().Expect(http.StatusOK), "private, no-cache"},
		{"docs script", env.Call(http.MethodGet, "/docs/redoc.standalone.js").Do().Expect(http.StatusOK), "public, max-age=86400"},
	}
	for _, c := range cases {
		if got := c.res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q", c.name, got)
		}
		if got := c.res.Header.Get("Cache-Control"); got != c.cacheControl {
			t.Errorf("%s: Cache-Control %q, want %q", c.name, got, c.cacheControl)
		}
	}
	docs := env.Call(http.MethodGet, "/docs").Do().Expect(http.StatusOK)
	if csp := docs.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("/docs CSP %q", csp)
	}
	if csp := cases[0].res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("API CSP %q", csp)
	}
}

// Requests that net/http refuses before Echo sees them answer the API's JSON error shape.
func TestMalformedRequestsAnswerJSON(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	u, err := url.Parse(env.URL)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		request string
		status  int
		code    string
	}{
		{"NUL in a header", "GET /v1/auth/me HTTP/1.1\r\nHost: x\r\nX-Note: a\x00b\r\n\r\n", 400, "malformed_request"},
		{"no Host", "GET /v1/auth/me HTTP/1.1\r\n\r\n", 400, "malformed_request"},
		{"garbage request line", "BLAH\r\n\r\n", 400, "malformed_request"},
		{"header block too large", "GET /v1/auth/me HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", http.DefaultMaxHeaderBytes+8192) + "\r\n\r\n", 431, "headers_too_large"},
		{"unknown transfer coding", "POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: rot13\r\n\r\n", 501, "unsupported_protocol"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", u.Host)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			// The large request may be cut short by the server's answer; the answer still comes.
			go func() { _, _ = io.WriteString(conn, c.request) }()
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			var e struct {
				Error      string `json:"error"`
				StatusCode int    `json:"statusCode"`
				Code       string `json:"code"`
			}
			if err := json.Unmarshal(body, &e); err != nil {
				t.Fatalf("%d %s: not JSON: %q", res.StatusCode, res.Header.Get("Content-Type"), body)
			}
			if res.StatusCode != c.status || e.StatusCode != c.status || e.Code != c.code || e.Error == "" ||
				res.Header.Get("Content-Type") != "application/json" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Fatalf("%d %v %s", res.StatusCode, res.Header, body)
			}
			if res.ContentLength != int64(len(body)) {
				t.Fatalf("Content-Length %d for %d bytes", res.ContentLength, len(body))
			}
		})
	}
}

// A well-formed request on the same listener is untouched by the rewriting: its own headers
// (Date, Content-Length) and body arrive as the handler wrote them.
func TestWellFormedResponsesPassThroughTheListener(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	res := env.Call(http.MethodGet, "nowhere").Do().Expect(http.StatusNotFound)
	if res.Header.Get("Date") == "" || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("%v", res.Header)
	}
	e := res.Err()
	if e.StatusCode != 404 {
		t.Fatal(fmt.Sprint(e))
	}
}
