//go:build unix

package pg_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/internal/pg"
)

// localDir returns a data directory path whose parent the postgres user can
// reach when the tests run as root (t.TempDir is private to root). The space
// in it checks the quoting of paths passed through pg_ctl's shell.
func localDir(t *testing.T) string {
	t.Helper()
	root, err := os.MkdirTemp("", "sous-pg local-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "data")
}

func startLocal(t *testing.T, dir string) *pg.Local {
	t.Helper()
	l, err := pg.StartLocal(t.Context(), pg.LocalOptions{
		Dir:    dir,
		Fast:   true,
		Logger: slog.New(slog.NewTextHandler(t.Output(), nil)),
	})
	if err != nil {
		t.Fatalf("StartLocal: %v", err)
	}
	// Whatever happens to the test, leave no server behind.
	t.Cleanup(func() { _ = l.Stop(context.Background()) })
	return l
}

func query[T any](t *testing.T, url, sql string) T {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	defer conn.Close(context.Background())
	var v T
	if err := conn.QueryRow(t.Context(), sql).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

func exec(t *testing.T, url, sql string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func postmasterPID(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// requireStopped checks the server is really gone: its PID file removed, its
// port refusing connections and its process exited.
func requireStopped(t *testing.T, dir, url string, pid int) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "postmaster.pid")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("postmaster.pid still present after Stop (stat: %v)", err)
	}
	if conn, err := pgx.Connect(t.Context(), url); err == nil {
		conn.Close(context.Background())
		t.Errorf("server at %s still accepts connections after Stop", url)
	}
	if processRunning(pid) {
		t.Errorf("postmaster pid %d still running after Stop", pid)
	}
}

// processRunning is false for exited processes, including zombies: the
// stopped postmaster is not our child, and the init process of a container
// may be slow to reap it.
func processRunning(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return runtime.GOOS != "linux"
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

func TestLocalLifecycle(t *testing.T) {
	t.Parallel()
	dir := localDir(t)

	l := startLocal(t, dir)
	url := l.URL()
	if got := query[string](t, url, "SELECT current_database()"); got != pg.LocalDatabase {
		t.Fatalf("URL connects to %q, want %q", got, pg.LocalDatabase)
	}
	if got := query[string](t, url, "SELECT upper('crème brûlée')"); got != "CRÈME BRÛLÉE" {
		t.Errorf("upper() = %q: cluster locale does not understand non-ASCII letters", got)
	}
	exec(t, url, "CREATE TABLE pantry (n int); INSERT INTO pantry VALUES (42)")

	t.Run("second start on a running directory is refused", func(t *testing.T) {
		_, err := pg.StartLocal(t.Context(), pg.LocalOptions{Dir: dir, Fast: true, Logger: slog.New(slog.DiscardHandler)})
		if !errors.Is(err, pg.ErrAlreadyRunning) {
			t.Fatalf("StartLocal on a running directory: %v, want ErrAlreadyRunning", err)
		}
		if got := query[int](t, url, "SELECT n FROM pantry"); got != 42 {
			t.Fatal("the refused start disturbed the running server")
		}
	})

	pid := postmasterPID(t, dir)
	if err := l.Stop(t.Context()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	requireStopped(t, dir, url, pid)
	if err := l.Stop(t.Context()); err != nil {
		t.Fatalf("second Stop: %v", err)
	}

	t.Run("restart keeps data", func(t *testing.T) {
		l := startLocal(t, dir)
		if got := query[int](t, l.URL(), "SELECT n FROM pantry"); got != 42 {
			t.Fatalf("pantry = %d after restart, want 42", got)
		}
		pid := postmasterPID(t, dir)
		if err := l.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
		requireStopped(t, dir, l.URL(), pid)
	})

	t.Run("stale postmaster.pid of a reused PID", func(t *testing.T) {
		// After a container restart the recorded PID often belongs to an
		// unrelated live process, e.g. the new sous process itself.
		stale := strconv.Itoa(os.Getpid()) + "\n" + dir + "\n1700000000\n5432\n" + dir + "\n127.0.0.1\n  1234  5678\nready   \n"
		if err := os.WriteFile(filepath.Join(dir, "postmaster.pid"), []byte(stale), 0o600); err != nil {
			t.Fatal(err)
		}
		l := startLocal(t, dir)
		if got := query[int](t, l.URL(), "SELECT n FROM pantry"); got != 42 {
			t.Fatalf("pantry = %d, want 42", got)
		}
		if err := l.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
}

func TestStartLocalRequiresDir(t *testing.T) {
	t.Parallel()
	if _, err := pg.StartLocal(t.Context(), pg.LocalOptions{}); err == nil {
		t.Fatal("StartLocal without Dir succeeded")
	}
}
