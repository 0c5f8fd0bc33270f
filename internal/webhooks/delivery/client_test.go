package delivery

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var testSecret = []byte("whsec_5f2b1c0e9d8a")

func testEnvelope() Envelope {
	return Envelope{
		ID:    testEvent,
		Event: "temperature.alert",
		OrgID: testOrg,
		At:    time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC),
		Data:  json.RawMessage(`{"siteId":"7d3c","celsius":9.5}`),
	}
}

// received is what a receiver saw of one request.
type received struct {
	method, path string
	header       http.Header
	body         []byte
	signatureOK  bool
}

// receiver records every request and answers status. It checks the signature the way the
// spec tells partners to, with the standard library only and over the raw bytes.
func receiver(t *testing.T, status int) (http.Handler, func() []received) {
	t.Helper()
	got := make(chan received, 16)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("receiver: read body: %v", err)
		}
		mac := hmac.New(sha256.New, testSecret)
		mac.Write(body)
		sig, err := hex.DecodeString(r.Header.Get("x-service-signature"))
		ok := err == nil && hmac.Equal(sig, mac.Sum(nil))
		got <- received{method: r.Method, path: r.URL.Path, header: r.Header.Clone(), body: body, signatureOK: ok}
		w.WriteHeader(status)
	})
	return h, func() []received {
		var all []received
		for {
			select {
			case r := <-got:
				all = append(all, r)
			default:
				return all
			}
		}
	}
}

func TestDeliverSendsSignedRequest(t *testing.T) {
	h, requests := receiver(t, http.StatusNoContent)
	srv := httptest.NewServer(h)
	defer srv.Close()
	env := testEnvelope()
	wantBody, err := env.Body()
	if err != nil {
		t.Fatal(err)
	}

	res := New(Options{AllowPrivate: true}).Deliver(t.Context(), srv.URL+"/hooks/sous", testSecret, env)

	if !res.Delivered || res.Status != http.StatusNoContent || res.Error != "" {
		t.Fatalf("Result = %+v, want delivered 204", res)
	}
	if res.Duration <= 0 {
		t.Errorf("Duration = %v, want > 0", res.Duration)
	}
	reqs := requests()
	if len(reqs) != 1 {
		t.Fatalf("receiver saw %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.method != http.MethodPost || r.path != "/hooks/sous" {
		t.Errorf("request = %s %s, want POST /hooks/sous", r.method, r.path)
	}
	if !r.signatureOK {
		t.Errorf("receiver could not verify signature %q", r.header.Get("x-service-signature"))
	}
	if string(r.body) != string(wantBody) {
		t.Errorf("body =\n%s\nwant\n%s", r.body, wantBody)
	}
	for name, want := range map[string]string{
		"content-type":        "application/json",
		"x-service-event":     "temperature.alert",
		"x-service-signature": Sign(testSecret, wantBody),
		"user-agent":          "Sous-Webhooks/1",
	} {
		if got := r.header.Get(name); got != want {
			t.Errorf("header %s = %q, want %q", name, got, want)
		}
	}
	if got := r.header.Get("accept-encoding"); got != "" {
		t.Errorf("accept-encoding = %q, want none", got)
	}
}

func TestDeliverCustomUserAgent(t *testing.T) {
	h, requests := receiver(t, http.StatusOK)
	srv := httptest.NewServer(h)
	defer srv.Close()
	New(Options{AllowPrivate: true, UserAgent: "Sous-Webhooks/1 (staging)"}).Deliver(t.Context(), srv.URL, testSecret, testEnvelope())
	if reqs := requests(); len(reqs) != 1 || reqs[0].header.Get("user-agent") != "Sous-Webhooks/1 (staging)" {
		t.Errorf("requests = %+v, want one with the custom user-agent", reqs)
	}
}

func TestDeliverStatuses(t *testing.T) {
	tests := []struct {
		status    int
		delivered bool
		err       string
	}{
		{200, true, ""},
		{201, true, ""},
		{202, true, ""},
		{204, true, ""},
		{299, true, ""},
		{301, false, "redirects are not followed (301)"},
		{302, false, "redirects are not followed (302)"},
		{303, false, "redirects are not followed (303)"},
		{307, false, "redirects are not followed (307)"},
		{308, false, "redirects are not followed (308)"},
		{400, false, "receiver responded 400"},
		{401, false, "receiver responded 401"},
		{404, false, "receiver responded 404"},
		{410, false, "receiver responded 410"},
		{429, false, "receiver responded 429"},
		{500, false, "receiver responded 500"},
		{502, false, "receiver responded 502"},
		{503, false, "receiver responded 503"},
	}
	c := New(Options{AllowPrivate: true})
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			var hooks, redirected atomic.Int32
			mux := http.NewServeMux()
			mux.HandleFunc("/hook", func(w http.ResponseWriter, r *http.Request) {
				hooks.Add(1)
				w.Header().Set("location", "/elsewhere")
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, "body the client discards")
			})
			mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) { redirected.Add(1) })
			srv := httptest.NewServer(mux)
			defer srv.Close()

			res := c.Deliver(t.Context(), srv.URL+"/hook", testSecret, testEnvelope())

			if res.Status != tt.status || res.Delivered != tt.delivered || res.Error != tt.err {
				t.Errorf("Result = %+v, want status %d delivered %v error %q", res, tt.status, tt.delivered, tt.err)
			}
			// At most once: no retry on failure, no following of redirects.
			if n := hooks.Load(); n != 1 {
				t.Errorf("receiver called %d times, want 1", n)
			}
			if n := redirected.Load(); n != 0 {
				t.Errorf("redirect target called %d times, want 0", n)
			}
		})
	}
}

func TestDeliverUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()

	res := New(Options{AllowPrivate: true}).Deliver(t.Context(), "http://"+addr+"/", testSecret, testEnvelope())
	if res.Status != 0 || res.Delivered || res.Error != "connection refused" {
		t.Errorf("Result = %+v, want status 0, connection refused", res)
	}
}

func TestDeliverHostNotFound(t *testing.T) {
	c := New(Options{AllowPrivate: true, Resolver: fakeResolver(t, nil)})
	res := c.Deliver(t.Context(), "http://nowhere.example.com/", testSecret, testEnvelope())
	if res.Status != 0 || res.Error != "host nowhere.example.com not found" {
		t.Errorf("Result = %+v, want status 0, host not found", res)
	}
}

func TestDeliverTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)

	const timeout = 200 * time.Millisecond
	res := New(Options{AllowPrivate: true, Timeout: timeout}).Deliver(t.Context(), srv.URL, testSecret, testEnvelope())

	if res.Status != 0 || res.Delivered || res.Error != "timeout after 200ms" {
		t.Errorf("Result = %+v, want status 0, timeout after 200ms", res)
	}
	if res.Duration < timeout || res.Duration > 10*timeout {
		t.Errorf("Duration = %v, want about %v", res.Duration, timeout)
	}
}

func TestDeliverDefaultTimeoutIsEightSeconds(t *testing.T) {
	if c := New(Options{}); c.timeout != 8*time.Second {
		t.Errorf("default timeout = %v, want 8s", c.timeout)
	}
}

func TestDeliverCanceled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	res := New(Options{AllowPrivate: true}).Deliver(ctx, srv.URL, testSecret, testEnvelope())
	if res.Status != 0 || res.Error != "canceled" {
		t.Errorf("Result = %+v, want status 0, canceled", res)
	}
}

func TestDeliverConnectionDroppedIsNotRetried(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		_ = conn.Close()
	}))
	defer srv.Close()

	res := New(Options{AllowPrivate: true}).Deliver(t.Context(), srv.URL, testSecret, testEnvelope())
	if res.Status != 0 || res.Delivered || res.Error != "connection closed without a response" {
		t.Errorf("Result = %+v, want status 0, connection closed", res)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("receiver called %d times, want 1", n)
	}
}

func TestDeliverStopsReadingLargeResponse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat("x", 32<<10))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()

	const timeout = 5 * time.Second
	res := New(Options{AllowPrivate: true, Timeout: timeout, MaxResponseBytes: 1 << 10}).
		Deliver(t.Context(), srv.URL, testSecret, testEnvelope())
	if !res.Delivered || res.Status != 200 {
		t.Errorf("Result = %+v, want delivered 200", res)
	}
	if res.Duration >= timeout/2 {
		t.Errorf("Duration = %v: the endless body was read instead of cut off", res.Duration)
	}
}

func TestDeliverTLS(t *testing.T) {
	h, requests := receiver(t, http.StatusOK)
	srv := httptest.NewTLSServer(h)
	defer srv.Close()
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())

	res := New(Options{AllowPrivate: true, RootCAs: roots}).Deliver(t.Context(), srv.URL, testSecret, testEnvelope())
	if !res.Delivered || res.Status != 200 {
		t.Fatalf("Result = %+v, want delivered 200", res)
	}
	if reqs := requests(); len(reqs) != 1 || !reqs[0].signatureOK {
		t.Errorf("receiver saw %+v, want one verified request", reqs)
	}

	// Without the test CA the certificate must not be trusted.
	res = New(Options{AllowPrivate: true}).Deliver(t.Context(), srv.URL, testSecret, testEnvelope())
	if res.Status != 0 || !strings.HasPrefix(res.Error, "TLS certificate rejected: ") {
		t.Errorf("Result = %+v, want status 0, TLS certificate rejected", res)
	}
}

// TestDeliverRefusesNonPublic drives the production configuration (AllowPrivate false)
// against a TLS receiver on loopback, reached through names a fake DNS server resolves.
// httptest's certificate is valid for example.com, so only the address check can stop the
// delivery.
func TestDeliverRefusesNonPublic(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1) }))
	defer srv.Close()
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	at := func(host string) string { return "https://" + net.JoinHostPort(host, strconv.Itoa(port)) + "/hook" }

	resolver := fakeResolver(t, map[string][]netip.Addr{
		"example.com":          {netip.MustParseAddr("127.0.0.1")},
		"multi.example.com":    {netip.MustParseAddr("10.0.0.5"), netip.MustParseAddr("169.254.169.254")},
		"metadata.example.com": {netip.MustParseAddr("169.254.169.254")},
		"v6.example.com":       {netip.MustParseAddr("::1")},
	})

	// The same setup with AllowPrivate reaches the receiver, so the refusals below are the
	// address check and not a broken fixture.
	dev := New(Options{AllowPrivate: true, Resolver: resolver, RootCAs: roots})
	if res := dev.Deliver(t.Context(), at("example.com"), testSecret, testEnvelope()); !res.Delivered {
		t.Fatalf("with AllowPrivate: Result = %+v, want delivered", res)
	}
	calls.Store(0)

	prod := New(Options{Resolver: resolver, RootCAs: roots})
	// A hostname passes validation at subscription time whatever it resolves to; the
	// connect-time check is what stops it.
	if err := ValidateURL(at("example.com"), false); err != nil {
		t.Fatalf("ValidateURL: %v", err)
	}
	tests := []struct {
		name, url, want string
	}{
		{"hostname resolving to loopback", at("example.com"), "address 127.0.0.1 is not public"},
		{"every resolved address refused", at("multi.example.com"), "address 10.0.0.5 is not public"},
		{"cloud metadata", at("metadata.example.com"), "address 169.254.169.254 is not public"},
		{"IPv6 loopback", at("v6.example.com"), "address ::1 is not public"},
		{"IP literal", at("127.0.0.1"), "url must not point to a private or reserved address (127.0.0.1)"},
		{"localhost", at("localhost"), "url must not point to localhost"},
		{"plain http", "http://example.com:" + strconv.Itoa(port) + "/hook", "url must use https"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := prod.Deliver(t.Context(), tt.url, testSecret, testEnvelope())
			if strings.Contains(res.Error, "address family not supported") {
				t.Skip("no IPv6 in this environment")
			}
			if res.Status != 0 || res.Delivered || res.Error != tt.want {
				t.Errorf("Result = %+v, want status 0, error %q", res, tt.want)
			}
		})
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("receiver called %d times, want 0", n)
	}
}

func TestRefuseNonPublic(t *testing.T) {
	tests := []struct {
		address string
		want    string // empty when allowed
	}{
		{"93.184.215.14:443", ""},
		{"[2606:4700:4700::1111]:443", ""},
		{"[64:ff9b::808:808]:443", ""},
		{"127.0.0.1:443", "address 127.0.0.1 is not public"},
		{"10.1.2.3:8443", "address 10.1.2.3 is not public"},
		{"[::ffff:169.254.169.254]:80", "address ::ffff:169.254.169.254 is not public"},
		{"[fe80::1%eth0]:443", "address fe80::1 is not public"},
		{"[64:ff9b::a00:5]:443", "address 64:ff9b::a00:5 is not public"},
		{"[2002:c0a8:101::1]:443", "address 2002:c0a8:101::1 is not public"},
		{"not-an-address", `cannot check dial address "not-an-address"`},
	}
	for _, tt := range tests {
		t.Run(tt.address, func(t *testing.T) {
			err := refuseNonPublic("tcp", tt.address, nil)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
				t.Errorf("refuseNonPublic(%q) = %q, want %q", tt.address, got, tt.want)
			}
		})
	}
}

func TestDeliverIgnoresEnvironmentProxy(t *testing.T) {
	transport := New(Options{}).http.Transport.(*http.Transport)
	if transport.Proxy != nil {
		t.Error("transport uses a proxy; it would bypass the address checks")
	}
}

func TestDeliverRejectsBadInput(t *testing.T) {
	c := New(Options{AllowPrivate: true})
	if res := c.Deliver(t.Context(), "http://127.0.0.1:1/", nil, testEnvelope()); res.Error != "no signing secret" {
		t.Errorf("empty secret: Result = %+v", res)
	}
	if res := c.Deliver(t.Context(), "http://127.0.0.1:1/", testSecret, Envelope{}); res.Error != "envelope has no event id" {
		t.Errorf("empty envelope: Result = %+v", res)
	}
	if res := c.Deliver(t.Context(), "::", testSecret, testEnvelope()); res.Error != "url is not a valid URL" {
		t.Errorf("bad url: Result = %+v", res)
	}
}
