package pg

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// readPIDFile returns the postmaster PID and port recorded in dir's
// postmaster.pid, or zeros when there is none.
func readPIDFile(dir string) (pid, port int) {
	b, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		return 0, 0
	}
	// Line 1 is the PID, line 4 the port; see pidfile.h in the server source.
	lines := strings.Split(string(b), "\n")
	pid, _ = strconv.Atoi(strings.TrimSpace(lines[0]))
	if len(lines) > 3 {
		port, _ = strconv.Atoi(strings.TrimSpace(lines[3]))
	}
	return pid, port
}

// serverOwnsDir reports whether pid is a live postmaster serving dir. A PID
// recorded by a crashed server may since have been reused by any process,
// including this one, so liveness alone is not enough where the process's
// working directory (which a postmaster sets to its data directory) can be
// checked.
func serverOwnsDir(pid int, dir string) bool {
	if pid <= 0 || pid == os.Getpid() || !processAlive(pid) {
		return false
	}
	cwd, ok := processCwd(pid)
	if !ok {
		return true // cannot tell; assume the worst
	}
	return sameFile(cwd, dir)
}

func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(fa, fb)
}
