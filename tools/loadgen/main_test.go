package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/coder/websocket"
)

// authServer mimics the API's auth endpoints: register conflicts once the
// account exists, login returns the token inside an envelope.
type authServer struct {
	mu         sync.Mutex
	users      map[string]string
	registered atomic.Int64
	loggedIn   atomic.Int64
	authorized atomic.Int64
	device     atomic.Int64
}

func newAuthServer(t *testing.T) (*authServer, *httptest.Server) {
	t.Helper()
	a := &authServer{users: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/auth/register", func(w http.ResponseWriter, r *http.Request) {
		var b struct{ Name, Email, Password string }
		if json.NewDecoder(r.Body).Decode(&b) != nil || b.Name == "" || b.Email == "" || b.Password == "" {
			http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		if _, ok := a.users[b.Email]; ok {
			http.Error(w, `{"error":"email taken"}`, http.StatusConflict)
			return
		}
		a.users[b.Email] = b.Password
		a.registered.Add(1)
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"user":{"id":"u1"},"accessToken":"tok","refreshToken":"r"}`)
	})
	mux.HandleFunc("POST /v1/auth/login", func(w http.ResponseWriter, r *http.Request) {
		var b struct{ Email, Password string }
		json.NewDecoder(r.Body).Decode(&b)
		a.mu.Lock()
		ok := a.users[b.Email] == b.Password && b.Password != ""
		a.mu.Unlock()
		if !ok {
			http.Error(w, `{"error":"invalid credentials"}`, http.StatusUnauthorized)
			return
		}
		a.loggedIn.Add(1)
		io.WriteString(w, `{"data":{"accessToken":"tok"}}`)
	})
	mux.HandleFunc("GET /v1/auth/me", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		a.authorized.Add(1)
		if r.Header.Get("x-device-token") == "dev-1" {
			a.device.Add(1)
		}
		io.WriteString(w, `{"id":"u1"}`)
	})
	mux.HandleFunc("GET /v1/ws", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		c.Write(r.Context(), websocket.MessageText, []byte(`{"type":"hello"}`))
		for {
			if _, _, err := c.Read(r.Context()); err != nil {
				return
			}
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return a, srv
}

func TestRunEndToEndWithLoginJSON(t *testing.T) {
	a, srv := newAuthServer(t)
	var out, errOut bytes.Buffer
	err := run([]string{
		"-base", srv.URL, "-login", "bench@example.com:correct-horse-battery", "-device-token", "dev-1",
		"-url", "/v1/auth/me", "-rate", "100", "-duration", "200ms", "-json",
		"-ws-url", "/v1/ws", "-ws-conns", "3",
	}, &out, &errOut)
	if err != nil {
		t.Fatalf("run: %v\nstderr: %s", err, errOut.String())
	}
	var rep struct {
		Requests     int     `json:"requests"`
		SuccessRatio float64 `json:"success_ratio"`
		WebSocket    struct {
			Opened         int `json:"opened"`
			StillConnected int `json:"still_connected"`
		} `json:"websocket"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out.String())
	}
	if rep.Requests != 20 || rep.SuccessRatio != 1 {
		t.Fatalf("report %+v", rep)
	}
	if a.registered.Load() != 1 || a.authorized.Load() != 20 || a.device.Load() != 20 {
		t.Fatalf("registered=%d authorized=%d with device token=%d", a.registered.Load(), a.authorized.Load(), a.device.Load())
	}
	if rep.WebSocket.Opened != 3 || rep.WebSocket.StillConnected != 3 {
		t.Fatalf("websocket %+v", rep.WebSocket)
	}
	if !strings.Contains(errOut.String(), "registered as bench@example.com") {
		t.Fatalf("stderr %q", errOut.String())
	}

	// Second run against the same server: register conflicts, login works.
	out.Reset()
	errOut.Reset()
	err = run([]string{"-base", srv.URL, "-login", "bench@example.com:correct-horse-battery",
		"-url", srv.URL + "/v1/auth/me", "-rate", "50", "-duration", "100ms"}, &out, &errOut)
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	if a.loggedIn.Load() != 1 || !strings.Contains(errOut.String(), "logged in") {
		t.Fatalf("login fallback not used: logins=%d stderr=%q", a.loggedIn.Load(), errOut.String())
	}
	if !strings.Contains(out.String(), "100.00% (5/5, expecting 2xx)") {
		t.Fatalf("table output:\n%s", out.String())
	}
}

func TestObtainTokenReportsBothFailures(t *testing.T) {
	_, srv := newAuthServer(t)
	// Register the account with one password, then log in with another.
	if _, _, err := obtainToken(t.Context(), srv.URL, "a@example.com", "right", "", 0); err != nil {
		t.Fatal(err)
	}
	_, _, err := obtainToken(t.Context(), srv.URL, "a@example.com", "wrong", "", 0)
	if err == nil || !strings.Contains(err.Error(), "HTTP 401") || !strings.Contains(err.Error(), "register: HTTP 409") {
		t.Fatalf("error %v should carry both statuses", err)
	}
}

func TestFindAccessToken(t *testing.T) {
	for body, want := range map[string]string{
		`{"accessToken":"a"}`:                  "a",
		`{"data":{"accessToken":"b"}}`:         "b",
		`{"tokens":{"accessToken":"c"},"x":1}`: "c",
		`{"token":"d"}`:                        "",
		`not json`:                             "",
		`{"accessToken":42}`:                   "",
	} {
		if got := findAccessToken([]byte(body)); got != want {
			t.Errorf("findAccessToken(%s) = %q, want %q", body, got, want)
		}
	}
}

func TestRequireLoopback(t *testing.T) {
	for _, ok := range []string{"http://127.0.0.1:8080/x", "http://localhost:1", "ws://[::1]:8080/ws", "http://127.9.9.9"} {
		if err := requireLoopback(ok); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
	// Literal addresses only: nothing here resolves names or sends traffic.
	for _, bad := range []string{"http://10.0.0.1/", "http://192.168.1.10:8080", "https://8.8.8.8", "http:///nohost"} {
		if err := requireLoopback(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestRunRefusesRemoteTargets(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run([]string{"-url", "http://10.1.2.3/v1/menu", "-rate", "1", "-duration", "1s"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "-allow-remote") {
		t.Fatalf("err %v", err)
	}
}

func TestFlagValidation(t *testing.T) {
	for _, args := range [][]string{
		{"-rate", "-1", "-url", "/x"},
		{"-body", "a", "-body-file", "b", "-url", "/x"},
		{"-ws-conns", "5", "-url", "/x"},
		{"-header", "nocolon", "-url", "/x"},
		{"-expect-status", "abc", "-url", "/x"},
		{"-login", "nopassword", "-url", "/x"},
		{},
	} {
		if err := run(args, io.Discard, io.Discard); err == nil {
			t.Errorf("run(%q) accepted", args)
		}
	}
	o, err := parseFlags([]string{"-rate", "0", "-url", "/x"}, io.Discard)
	if err != nil || !o.saturate {
		t.Fatalf("-rate 0 should mean saturate: %+v %v", o, err)
	}
}

func TestParseHeadersAndResolve(t *testing.T) {
	h, err := parseHeaders([]string{"X-A: 1", "x-a:2", "Accept:  application/json "})
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Values("X-A"); len(got) != 2 || got[1] != "2" || h.Get("Accept") != "application/json" {
		t.Fatalf("headers %v", h)
	}
	if got := resolve("http://127.0.0.1:8080/", "/v1/ws", true); got != "ws://127.0.0.1:8080/v1/ws" {
		t.Fatal(got)
	}
	if got := resolve("https://h", "/x", true); got != "wss://h/x" {
		t.Fatal(got)
	}
	if got := resolve("http://b", "http://c/d", false); got != "http://c/d" {
		t.Fatal(got)
	}
}
