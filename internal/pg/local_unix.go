//go:build unix

package pg

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// runAs says which OS user the server binaries run as: the current one, or
// "postgres" when we are root, since PostgreSQL refuses to run as root.
type runAs struct {
	cred *syscall.Credential // nil: run as ourselves
	name string
}

func currentRunAs() (runAs, error) {
	if os.Geteuid() != 0 {
		return runAs{}, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return runAs{}, fmt.Errorf("pg: running as root, so PostgreSQL must run as system user postgres, but: %w "+
			"(create it, e.g. useradd --system postgres, or run as an unprivileged user)", err)
	}
	uid, errU := strconv.ParseUint(u.Uid, 10, 32)
	gid, errG := strconv.ParseUint(u.Gid, 10, 32)
	if errU != nil || errG != nil {
		return runAs{}, fmt.Errorf("pg: user postgres has non-numeric uid/gid %q/%q", u.Uid, u.Gid)
	}
	// An empty (non-nil) group list drops root's supplementary groups.
	return runAs{
		cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}},
		name: u.Username,
	}, nil
}

// command prepares a server binary to run without a shell, as the right user,
// with the caller's PG* variables removed: PGDATA, PGPORT, PGOPTIONS and
// friends would silently redirect or reconfigure pg_ctl and postgres.
func (r runAs) command(ctx context.Context, path string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, path, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	// Our working directory may be unreadable to the postgres user (e.g.
	// under /root), which makes the tools fail resolving their own paths.
	cmd.Dir = "/"
	if r.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
	}
	return cmd
}

// prepareDataDir creates dir with the 0700 mode PostgreSQL insists on, owned
// by the user the server will run as. Parents get 0755 so that user can
// reach it.
func (r runAs) prepareDataDir(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("pg: create parent of data directory: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("pg: create data directory: %w", err)
	}
	if r.cred == nil {
		return nil
	}
	if err := os.Chown(dir, int(r.cred.Uid), int(r.cred.Gid)); err != nil {
		return fmt.Errorf("pg: chown data directory to %s: %w", r.name, err)
	}
	return nil
}

// hint explains the usual cause of initdb failing when we are root.
func (r runAs) hint(dir string) string {
	if r.cred == nil {
		return ""
	}
	return fmt.Sprintf("\n(the server runs as system user %s, which must own %s and be able to search every parent directory)", r.name, dir)
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	// A zombie still answers signals but is dead for our purposes; seen when
	// a crashed postmaster's parent is not a reaping init (containers).
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			return false
		}
	}
	return true
}

// pidExists reports whether any process, zombies included, has pid: the test
// PostgreSQL applies to its lock file.
func pidExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// processCwd returns pid's working directory where the OS exposes it (Linux
// /proc); ok is false where it cannot be known.
func processCwd(pid int) (cwd string, ok bool) {
	cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	return cwd, err == nil
}

// ReachableByServer reports whether the user the server binaries would run as (postgres, when we
// are root) can traverse every existing ancestor of dir. Root's home directory is the usual
// reason it cannot.
func ReachableByServer(dir string) (bool, error) {
	r, err := currentRunAs()
	if err != nil || r.cred == nil {
		return err == nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false, err
	}
	for p := filepath.Dir(abs); ; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err == nil {
			st, ok := fi.Sys().(*syscall.Stat_t)
			mode := fi.Mode().Perm()
			switch {
			case !ok:
			case st.Uid == r.cred.Uid && mode&0o100 != 0:
			case st.Gid == r.cred.Gid && mode&0o010 != 0:
			case mode&0o001 != 0:
			default:
				return false, nil
			}
		}
		if p == filepath.Dir(p) {
			return true, nil
		}
	}
}
