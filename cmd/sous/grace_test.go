package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/sous-app/sous/internal/pg/pgtest"
)

// startLogged starts the binary's serve with env and returns a function that waits for a log
// line with the given message (every line is read, so the server never blocks on its pipe).
func startLogged(t *testing.T, env ...string) (cmd *exec.Cmd, waitLog func(msg string) map[string]any, exited <-chan error) {
	t.Helper()
	return startBinaryLogged(t, sousBinary(t), env...)
}

// startBinaryLogged is startLogged with a binary of the test's own.
func startBinaryLogged(t *testing.T, bin string, env ...string) (cmd *exec.Cmd, waitLog func(msg string) map[string]any, exited <-chan error) {
	t.Helper()
	cmd = exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-done
		}
	})
	lines := make(chan map[string]any, 1024)
	go func() {
		defer close(lines)
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			var line map[string]any
			if json.Unmarshal(s.Bytes(), &line) == nil {
				select {
				case lines <- line:
				default: // nobody is waiting for this many lines
				}
			}
		}
	}()
	waitLog = func(msg string) map[string]any {
		t.Helper()
		for line := range lines {
			if line["msg"] == msg {
				return line
			}
		}
		t.Fatalf("the server ended before logging %q; stderr: %s", msg, stderr.String())
		return nil
	}
	return cmd, waitLog, done
}

// fresh makes every request on a new connection, so each one proves the listener still accepts.
var fresh = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

func getStatus(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := fresh.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// On SIGTERM the server answers /readyz 503 at once and keeps serving for SOUS_SHUTDOWN_GRACE:
// every request sent in that time, on a new connection, is answered 2xx; then it drains and
// exits 0. Metrics are served on their own listener only.
func TestBinaryKeepsServingThroughTheGraceAfterSIGTERM(t *testing.T) {
	t.Parallel()
	cmd, waitLog, exited := startLogged(t, "DATABASE_URL="+pgtest.NewURL(t), "SOUS_ADDR=127.0.0.1:0",
		"SOUS_DATA_DIR="+t.TempDir(), "SOUS_ACCESS_LOG=false", "SOUS_METRICS_ADDR=127.0.0.1:0",
		// Long enough for the requests below on a loaded machine; the test never waits it out
		// except for the exit at the end.
		"SOUS_SHUTDOWN_GRACE=4s")
	metricsAddr, _ := waitLog("metrics listening")["addr"].(string)
	addr, _ := waitLog("serving")["addr"].(string)
	api := "http://" + addr

	if code, body := getStatus(t, "http://"+metricsAddr+"/metrics"); code != 200 || !strings.Contains(body, "sous_build_info{") ||
		!strings.Contains(body, `http_server_request_duration_seconds_bucket{http_request_method="GET",http_response_status_code="200",http_route="/v1/auth/me",operation="getMe",le="0.005"} 0`) {
		t.Fatalf("metrics listener: %d\n%.2000s", code, body)
	}
	if code, _ := getStatus(t, api+"/metrics"); code != http.StatusNotFound {
		t.Fatalf("the API port answers /metrics with %d", code)
	}
	if code, _ := getStatus(t, api+"/readyz"); code != http.StatusOK {
		t.Fatalf("readyz before SIGTERM: %d", code)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitLog("shutting down: not ready, still serving during the grace")
	if code, _ := getStatus(t, api+"/readyz"); code != http.StatusServiceUnavailable {
		t.Fatalf("readyz during the grace: %d", code)
	}
	for i := range 20 {
		for _, path := range []string{"/healthz", "/v1/openapi.json"} {
			if code, body := getStatus(t, api+path); code < 200 || code > 299 {
				t.Fatalf("request %d to %s during the grace: %d %s", i, path, code, body)
			}
		}
	}
	waitLog("shutting down: closing device sockets, draining requests and webhook deliveries")
	if err := <-exited; err != nil {
		t.Fatalf("exit: %v", err)
	}
}
