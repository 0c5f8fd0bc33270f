package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// The flood sends sign-ins with distinct emails from distinct addresses, counts every status,
// and runs beside a probe attack whose report is printed after its own.
func TestBadLoginsFloodUsesDistinctEmailsAndAddresses(t *testing.T) {
	var mu sync.Mutex
	emails, addrs := map[string]bool{}, map[string]bool{}
	probes := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/auth/login":
			var body struct{ Email, Password string }
			_ = json.NewDecoder(r.Body).Decode(&body)
			mu.Lock()
			emails[body.Email] = true
			addrs[r.Header.Get("X-Forwarded-For")] = true
			busy := len(emails)%2 == 0
			mu.Unlock()
			if busy {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			w.WriteHeader(http.StatusUnauthorized)
		case "/v1/orgs/x":
			mu.Lock()
			probes++
			mu.Unlock()
			w.WriteHeader(http.StatusOK)
		}
	}))
	defer srv.Close()

	var out, errOut bytes.Buffer
	err := run([]string{"-base", srv.URL, "-bad-logins", "8", "-url", "/v1/orgs/x", "-rate", "50", "-duration", "300ms", "-json"}, &out, &errOut)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errOut.String())
	}
	var rep struct {
		Mode  string
		Flood struct {
			Requests    uint64
			StatusCodes map[string]uint64 `json:"status_codes"`
		}
		Probe *struct{ Requests uint64 }
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if rep.Mode != "bad-logins" || rep.Flood.Requests == 0 || rep.Probe == nil || rep.Probe.Requests == 0 || probes == 0 {
		t.Fatalf("report %s", out.String())
	}
	if got := rep.Flood.StatusCodes["401"] + rep.Flood.StatusCodes["503"]; got != rep.Flood.Requests {
		t.Fatalf("codes %v for %d requests", rep.Flood.StatusCodes, rep.Flood.Requests)
	}
	if uint64(len(emails)) < rep.Flood.Requests || len(addrs) != len(emails) {
		t.Fatalf("%d requests from %d emails and %d addresses; want all distinct", rep.Flood.Requests, len(emails), len(addrs))
	}
	for a := range addrs {
		if !strings.HasPrefix(a, "10.") {
			t.Fatalf("address %q", a)
		}
	}
}

func TestBadLoginsFlagValidation(t *testing.T) {
	for _, args := range [][]string{
		{"-rss-pid", "1", "-url", "/x"},
		{"-bad-logins", "5", "-saturate", "-url", "/x"},
	} {
		if _, err := parseFlags(args, &bytes.Buffer{}); err == nil {
			t.Errorf("parseFlags(%q) accepted", args)
		}
	}
}
