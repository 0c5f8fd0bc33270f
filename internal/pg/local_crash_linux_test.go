package pg_test

import (
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLocalRestartAfterCrash kills the postmaster outright, leaving its
// postmaster.pid (and briefly its orphaned backends), as a power cut or OOM
// kill would, and expects the next start to recover.
func TestLocalRestartAfterCrash(t *testing.T) {
	t.Parallel()
	dir := localDir(t)
	l := startLocal(t, dir)
	exec(t, l.URL(), "CREATE TABLE pantry (n int); INSERT INTO pantry VALUES (7)")
	// Fast mode commits asynchronously; a checkpoint after the commit makes
	// the row durable against the crash below.
	exec(t, l.URL(), "CHECKPOINT")

	pid := postmasterPID(t, dir)
	killAndWait(t, pid)

	l = startLocal(t, dir)
	if got := query[int](t, l.URL(), "SELECT n FROM pantry"); got != 7 {
		t.Fatalf("pantry = %d after crash recovery, want 7", got)
	}
	if err := l.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// killAndWait SIGKILLs a process that is not our child and blocks until it
// has exited, using a pidfd rather than polling.
func killAndWait(t *testing.T, pid int) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatalf("pidfd_open(%d): %v", pid, err)
	}
	defer unix.Close(fd)
	if err := unix.PidfdSendSignal(fd, syscall.SIGKILL, nil, 0); err != nil {
		t.Fatalf("kill postmaster: %v", err)
	}
	for {
		_, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, -1)
		if err != unix.EINTR {
			if err != nil {
				t.Fatal(err)
			}
			return
		}
	}
}
