package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/pg/pgtest"
)

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

// sousBinary builds the real binary once per test run (removed by TestMain's cleanup).
func sousBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "sous-bin-"); buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "sous")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func removeBinary() {
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
}

// A malformed setting stops the binary before it serves anything, naming the variable.
func TestBinaryRefusesMalformedSettings(t *testing.T) {
	t.Parallel()
	bin := sousBinary(t)
	for _, c := range []struct{ name, value string }{
		{"SOUS_HL7_BODY_LIMIT", "4 megs"},
		{"SOUS_BODY_LIMIT", "0"},
		{"SOUS_TRUSTED_PROXIES", "10.0.0.0/40"},
		{"SOUS_PUBLIC_URL", "api.example.com"},
	} {
		cmd := exec.Command(bin, "serve")
		// A database that does not exist: the check must come before any attempt to use it.
		cmd.Env = append(os.Environ(), "DATABASE_URL=postgres://nobody@127.0.0.1:1/none", "SOUS_ADDR=127.0.0.1:0",
			"SOUS_DATA_DIR="+t.TempDir(), c.name+"="+c.value)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() == 0 {
			t.Fatalf("%s=%q: exit %v", c.name, c.value, err)
		}
		if want := fmt.Sprintf("%s=%q", c.name, c.value); !strings.Contains(stderr.String(), want) {
			t.Fatalf("stderr %q does not name %s", stderr.String(), want)
		}
	}
}

// SIGTERM drains: a request in flight when the signal arrives completes, and the process exits 0.
// The request is held open deterministically by its client: it announces a body with
// Expect: 100-continue, the server's "100 Continue" proves the handler is reading it, and the
// rest of the body is sent only after the server has stopped accepting connections.
func TestBinaryDrainsInFlightRequestsOnSIGTERM(t *testing.T) {
	t.Parallel()
	bin := sousBinary(t)
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+pgtest.NewURL(t), "SOUS_ADDR=127.0.0.1:0",
		"SOUS_DATA_DIR="+t.TempDir(), "SOUS_ACCESS_LOG=false", "SOUS_SHUTDOWN_GRACE=0s")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	logs := bufio.NewScanner(stdout)
	waitLog := func(msg string) map[string]any {
		t.Helper()
		for logs.Scan() {
			var line map[string]any
			if json.Unmarshal(logs.Bytes(), &line) == nil && line["msg"] == msg {
				return line
			}
		}
		t.Fatalf("the server ended before logging %q; stderr: %s", msg, stderr.String())
		return nil
	}
	serving := waitLog("serving")
	addr, _ := serving["addr"].(string)
	// The startup line names what is running.
	if v, _ := serving["version"].(string); v == "" || serving["revision"] == nil {
		t.Errorf("the serving line names no version and revision: %v", serving)
	}
	// Drain the rest of the log so the server never blocks on a full pipe.
	shuttingDown := make(chan struct{})
	go func() {
		var once sync.Once
		for logs.Scan() {
			if strings.Contains(logs.Text(), `"shutting down`) {
				once.Do(func() { close(shuttingDown) })
			}
		}
	}()

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(60 * time.Second))
	body := `{"email":"nobody@example.com","password":"walk-in-cooler-pantry-9"}`
	half := len(body) / 2
	fmt.Fprintf(conn, "POST /v1/auth/login HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n%s", addr, len(body), body[:half])
	r := bufio.NewReader(conn)
	status, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 100") {
		t.Fatalf("before the body: %q %v", status, err)
	}
	if blank, err := r.ReadString('\n'); err != nil || blank != "\r\n" {
		t.Fatalf("after 100 Continue: %q %v", blank, err)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-shuttingDown
	// Shutdown closes the listener first: once a new connection is refused, the server is
	// draining, with our request still open.
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			break
		}
		c.Close()
	}
	if _, err := io.WriteString(conn, body[half:]); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("the request in flight got no answer: %v", err)
	}
	answer, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized || !strings.Contains(string(answer), `"statusCode":401`) {
		t.Fatalf("in-flight login answered %d: %s", res.StatusCode, answer)
	}
	if err := <-exited; err != nil {
		t.Fatalf("exit: %v; stderr: %s", err, stderr.String())
	}
}
