//go:build unix

package pgtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// These tests run this test binary again as a helper process that starts a
// local cluster through Main, then ends in various ways, and check that no
// PostgreSQL is left running afterwards.

const helperEnv = "PGTEST_HELPER_MODE"

// TestHelperHoldServer is the helper process, not a test of its own.
func TestHelperHoldServer(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper process for the teardown tests")
	}
	NewURL(t)
	roots, _ := filepath.Glob(filepath.Join(os.TempDir(), localPrefix+"*"))
	pid := 0
	if len(roots) == 1 {
		b, _ := os.ReadFile(filepath.Join(roots[0], "data", "postmaster.pid"))
		pid, _ = strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	}
	fmt.Printf("HELPER provider=%s roots=%s pid=%d\n", shared.provider, strings.Join(roots, ","), pid)
	if mode == "hold" {
		_, _ = io.Copy(io.Discard, os.Stdin) // until the parent kills us
	}
}

type helper struct {
	cmd     *exec.Cmd
	tmp     string // the helper's TMPDIR
	root    string // its cluster's directory
	pid     int    // its postmaster
	out     *lineWriter
	done    chan struct{}
	waitErr error
}

// wait returns the helper's exit status once it has exited.
func (h *helper) wait() error {
	<-h.done
	return h.waitErr
}

func startHelper(t *testing.T, mode string) *helper {
	t.Helper()
	tmp, err := os.MkdirTemp("", "sous-teardown-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(tmp) })
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldServer$", "-test.count=1", "-test.timeout=2m")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TEST_DATABASE_URL=") && !strings.HasPrefix(kv, "TMPDIR=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	// A private TMPDIR keeps the helper's cluster apart from every other
	// test binary's.
	cmd.Env = append(cmd.Env, helperEnv+"="+mode, "TMPDIR="+tmp)
	out := &lineWriter{prefix: "HELPER ", found: make(chan string, 1)}
	cmd.Stdout, cmd.Stderr = out, out
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close() })
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &helper{cmd: cmd, tmp: tmp, out: out, done: make(chan struct{})}
	go func() {
		h.waitErr = cmd.Wait()
		close(h.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = h.wait()
		reapLocal(t.Context(), tmp)
	})

	var line string
	select {
	case line = <-out.found:
	case <-h.done:
		t.Fatalf("helper exited before reporting:\n%s", out)
	}
	for field := range strings.FieldsSeq(strings.TrimPrefix(line, "HELPER ")) {
		k, v, _ := strings.Cut(field, "=")
		switch k {
		case "provider":
			if v != "local" {
				t.Skipf("helper used the %s provider; these tests concern local clusters", v)
			}
		case "roots":
			h.root = v
		case "pid":
			h.pid, _ = strconv.Atoi(v)
		}
	}
	if h.pid == 0 || filepath.Dir(h.root) != tmp {
		t.Fatalf("helper reported %q", line)
	}
	if !postmasterRunning(h.pid) {
		t.Fatalf("helper's postmaster %d not running", h.pid)
	}
	return h
}

func (h *helper) requireGone(t *testing.T) {
	t.Helper()
	if postmasterRunning(h.pid) {
		t.Errorf("postmaster %d still running", h.pid)
	}
	if _, err := os.Stat(h.root); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cluster directory %s not removed (stat: %v)", h.root, err)
	}
}

func TestMainStopsServerAfterTests(t *testing.T) {
	t.Parallel()
	h := startHelper(t, "exit")
	if err := h.wait(); err != nil {
		t.Fatalf("helper: %v\n%s", err, h.out)
	}
	h.requireGone(t)
}

func TestMainStopsServerOnSIGTERM(t *testing.T) {
	t.Parallel()
	h := startHelper(t, "hold")
	if err := h.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := h.wait(); err == nil {
		t.Fatal("helper exited 0 after SIGTERM, want a failure status")
	}
	h.requireGone(t)
}

// A binary killed outright (or panicking on -timeout) cannot tear down; the
// next binary to start a local cluster must clean up after it.
func TestOrphanedClusterIsReapedByNextRun(t *testing.T) {
	t.Parallel()
	h := startHelper(t, "hold")
	if err := h.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = h.wait()
	if !postmasterRunning(h.pid) {
		t.Fatal("postmaster died with its test binary; nothing to reap")
	}
	reapLocal(t.Context(), h.tmp)
	h.requireGone(t)
}

// postmasterRunning treats zombies as gone: a stopped postmaster is not our
// child, and a container's init may be slow to reap it.
func postmasterRunning(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !errors.Is(err, os.ErrNotExist) || !isDir("/proc/self")
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// lineWriter collects a process's output and hands over the first line
// starting with prefix.
type lineWriter struct {
	prefix string
	found  chan string
	mu     sync.Mutex
	buf    bytes.Buffer
	sent   bool
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.sent {
		for line := range strings.Lines(w.buf.String()) {
			if strings.HasPrefix(line, w.prefix) && strings.HasSuffix(line, "\n") {
				w.found <- strings.TrimSpace(line)
				w.sent = true
				break
			}
		}
	}
	return len(p), nil
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
