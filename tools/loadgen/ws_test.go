package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// wsServer pushes frames on connect, then either listens until the client
// closes or, with hangUp, closes from its side.
func wsServer(t *testing.T, frames int, hangUp bool) *httptest.Server {
	t.Helper()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		for i := range frames {
			if err := c.Write(r.Context(), websocket.MessageText, []byte(strings.Repeat("x", i+1))); err != nil {
				return
			}
		}
		if hangUp {
			c.Close(websocket.StatusGoingAway, "restarting")
			return
		}
		for {
			if _, _, err := c.Read(r.Context()); err != nil {
				return
			}
		}
	}))
}

func authHeader() http.Header {
	h := http.Header{}
	h.Set("Authorization", "Bearer tok")
	return h
}

// waitFor polls instead of sleeping a fixed time, so the test is as fast as
// the machine allows and only fails if the condition never holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestWSHoldsConnectionsAndCountsFrames(t *testing.T) {
	srv := wsServer(t, 3, false)
	defer srv.Close()

	h := startWS(context.Background(), wsConfig{URL: resolve(srv.URL, "/ws", true), Conns: 20, Header: authHeader(), DialConcurrency: 4})
	waitFor(t, "60 frames", func() bool { return h.snapshot().Frames == 60 })
	rep := h.stop()

	if rep.Requested != 20 || rep.Opened != 20 || rep.DialFailed != 0 {
		t.Fatalf("dial counts %+v", rep)
	}
	if rep.StillConnected != 20 || rep.Dropped != 0 {
		t.Fatalf("held %d, dropped %d", rep.StillConnected, rep.Dropped)
	}
	if rep.Frames != 60 || rep.Bytes != 20*(1+2+3) {
		t.Fatalf("frames %d bytes %d", rep.Frames, rep.Bytes)
	}
	if rep.Connect.Max <= 0 || len(rep.Errors) != 0 {
		t.Fatalf("connect %+v errors %+v", rep.Connect, rep.Errors)
	}
	if !strings.HasPrefix(rep.URL, "ws://") {
		t.Fatalf("URL %q should have been turned into ws://", rep.URL)
	}
}

func TestWSCountsServerDrops(t *testing.T) {
	srv := wsServer(t, 1, true)
	defer srv.Close()

	h := startWS(context.Background(), wsConfig{URL: "ws" + strings.TrimPrefix(srv.URL, "http"), Conns: 3, Header: authHeader()})
	waitFor(t, "3 drops", func() bool { return h.snapshot().Dropped == 3 })
	rep := h.stop()
	if rep.StillConnected != 0 || rep.Frames != 3 {
		t.Fatalf("%+v", rep)
	}
	if len(rep.Errors) != 1 || rep.Errors[0].Count != 3 || !strings.Contains(rep.Errors[0].Error, "closed by server") {
		t.Fatalf("errors %+v", rep.Errors)
	}
}

func TestWSReportsHandshakeFailures(t *testing.T) {
	srv := wsServer(t, 0, false)
	defer srv.Close()

	h := startWS(context.Background(), wsConfig{URL: "ws" + strings.TrimPrefix(srv.URL, "http"), Conns: 2, Header: http.Header{}})
	rep := h.stop()
	if rep.Opened != 0 || rep.DialFailed != 2 {
		t.Fatalf("%+v", rep)
	}
	if len(rep.Errors) != 1 || rep.Errors[0].Error != "handshake: HTTP 401 Unauthorized" {
		t.Fatalf("errors %+v", rep.Errors)
	}
}
