package pg

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// LocalOptions configures StartLocal.
type LocalOptions struct {
	// Dir is the cluster's data directory. It is created and initialised on
	// first use and reused afterwards, so a developer's data survives
	// restarts.
	Dir string
	// Port is the TCP port on 127.0.0.1; 0 picks a free one.
	Port int
	// Logger receives what StartLocal and Stop do; nil means slog.Default().
	Logger *slog.Logger
	// Fast trades durability for speed (no fsync, no full-page writes), for
	// throwaway clusters such as tests. A crash may corrupt such a cluster.
	Fast bool
}

// LocalDatabase is the database StartLocal creates for the application; URL
// points at it.
const LocalDatabase = "sous"

// ErrAlreadyRunning is returned by StartLocal when a live server already owns
// the data directory, e.g. a second `sous serve` on the same Dir.
var ErrAlreadyRunning = errors.New("pg: a PostgreSQL server is already running on this data directory")

// Local is a private PostgreSQL cluster started by StartLocal: a postmaster of
// its own, listening only on 127.0.0.1 and on a unix socket inside its data
// directory, with trust authentication for user postgres.
type Local struct {
	dir    string
	port   int
	bin    binaries
	as     runAs
	logger *slog.Logger
}

// URL returns a connection URL for the LocalDatabase as superuser postgres.
func (l *Local) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", l.port, LocalDatabase)
}

// Dir returns the cluster's absolute data directory.
func (l *Local) Dir() string { return l.dir }

// StartLocal starts a private PostgreSQL cluster in opts.Dir, running initdb
// first if the directory holds no cluster yet, and returns once it accepts
// connections and the LocalDatabase exists. The server keeps running until
// Stop, even if this process exits.
//
// The server binaries are taken from PATH, else from the highest version under
// /usr/lib/postgresql/*/bin, else /usr/local/pgsql/bin. PostgreSQL refuses to
// run as root, so when this process is root every server binary runs as the
// "postgres" system user, which must exist and be able to reach opts.Dir.
func StartLocal(ctx context.Context, opts LocalOptions) (*Local, error) {
	if opts.Dir == "" {
		return nil, errors.New("pg: StartLocal: LocalOptions.Dir is required")
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("pg: StartLocal: %w", err)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	as, err := currentRunAs()
	if err != nil {
		return nil, err
	}
	version := clusterVersion(dir)
	bin, err := findBinaries(version)
	if err != nil {
		return nil, err
	}
	l := &Local{dir: dir, bin: bin, as: as, logger: logger}

	if version == "" {
		if err := l.initdb(ctx, opts.Fast); err != nil {
			return nil, err
		}
	} else if err := l.checkNotRunning(); err != nil {
		return nil, err
	}

	err = l.start(ctx, opts)
	if err == nil {
		err = l.ensureDatabase(ctx)
	}
	if err != nil {
		l.abandon(ctx)
		return nil, err
	}
	return l, nil
}

// abandon stops a server this StartLocal launched before failing (pg_ctl
// timed out or was cancelled while the postmaster kept starting, or a later
// step failed), since the caller gets no *Local to Stop it with. The port
// tells our postmaster from one a concurrent starter launched.
func (l *Local) abandon(ctx context.Context) {
	if pid, port := readPIDFile(l.dir); port == l.port && serverOwnsDir(pid, l.dir) {
		_, _ = stopCluster(context.WithoutCancel(ctx), l.as, l.bin, l.dir, l.logger)
	}
}

// Stop shuts the server down ("fast" mode: open sessions are terminated,
// in-progress transactions rolled back) and waits until it has exited.
// Stopping a server that is not running is not an error.
//
// Cancellation of ctx is ignored: Stop usually runs during shutdown, after
// the context it is handed was cancelled by the very signal that started the
// shutdown, and giving up then would leave the server running. It gives up
// after a minute instead.
func (l *Local) Stop(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	start := time.Now()
	stopped, err := stopCluster(ctx, l.as, l.bin, l.dir, l.logger)
	if stopped {
		l.logger.Info("pg: local PostgreSQL stopped", "dir", l.dir, "duration", time.Since(start))
	}
	return err
}

// StopLocalDir stops whatever server runs on data directory dir, for clusters
// whose starter can no longer call Stop (it crashed or was killed). It is a
// no-op if no server runs there.
func StopLocalDir(ctx context.Context, dir string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("pg: StopLocalDir: %w", err)
	}
	as, err := currentRunAs()
	if err != nil {
		return err
	}
	bin, err := findBinaries(clusterVersion(dir))
	if err != nil {
		return err
	}
	_, err = stopCluster(ctx, as, bin, dir, slog.Default())
	return err
}

func stopCluster(ctx context.Context, as runAs, bin binaries, dir string, logger *slog.Logger) (stopped bool, err error) {
	pid, _ := readPIDFile(dir)
	if !serverOwnsDir(pid, dir) {
		return false, nil
	}
	logger.Info("pg: stopping local PostgreSQL", "dir", dir, "pid", pid)
	out, err := as.command(ctx, bin.pgCtl, "stop", "-D", dir, "-m", "fast", "-w", "-t", "60", "-s").CombinedOutput()
	if err != nil {
		// Lost a race with another stopper: the goal is reached all the same.
		if pid, _ := readPIDFile(dir); serverOwnsDir(pid, dir) {
			return false, fmt.Errorf("pg: pg_ctl stop -D %s: %w: %s", dir, err, strings.TrimSpace(string(out)))
		}
	}
	return true, waitExit(ctx, pid)
}

// waitExit waits for the postmaster process itself to go: pg_ctl returns once
// the PID file is removed, which the postmaster does just before exiting, and
// until it has exited it still holds the port and shared memory.
func waitExit(ctx context.Context, pid int) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for processAlive(pid) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("pg: postmaster (pid %d) still running after pg_ctl stop: %w", pid, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
	return nil
}

func (l *Local) initdb(ctx context.Context, fast bool) error {
	if err := l.as.prepareDataDir(l.dir); err != nil {
		return err
	}
	l.logger.Info("pg: initializing PostgreSQL cluster", "dir", l.dir, "initdb", l.bin.initdb)
	start := time.Now()

	args := []string{"-D", l.dir, "-U", "postgres", "-A", "trust", "-E", "UTF8"}
	if fast {
		args = append(args, "--no-sync")
	}
	// C.UTF-8 sorts like C (fast, stable) but, unlike C, upper()/lower()/ILIKE
	// understand non-ASCII letters, as production's UTF-8 locale does. Not
	// every system has it (macOS), hence the fallback.
	out, err := l.as.command(ctx, l.bin.initdb, append(args, "--locale=C.UTF-8")...).CombinedOutput()
	if err != nil && strings.Contains(string(out), "locale") {
		out, err = l.as.command(ctx, l.bin.initdb, append(args, "--no-locale")...).CombinedOutput()
	}
	if err != nil {
		return fmt.Errorf("pg: initdb -D %s: %w: %s%s", l.dir, err, strings.TrimSpace(string(out)), l.as.hint(l.dir))
	}
	l.logger.Info("pg: PostgreSQL cluster initialized", "dir", l.dir, "duration", time.Since(start))
	return nil
}

// checkNotRunning refuses a data directory that a live server owns, and
// clears a postmaster.pid whose PID still exists but is not that server: an
// unrelated process that reused the PID (common after a container restart)
// or the unreaped zombie of a crashed postmaster. PostgreSQL would refuse to
// start over either. A PID file of a vanished process is left for
// PostgreSQL, which recovers from it and uses it to detect orphaned backends
// still holding shared memory.
func (l *Local) checkNotRunning() error {
	pid, port := readPIDFile(l.dir)
	if pid == 0 {
		return nil
	}
	if serverOwnsDir(pid, l.dir) {
		return fmt.Errorf("%w: %s (pid %d, port %d); stop it (pg_ctl stop -D %s) or use another directory",
			ErrAlreadyRunning, l.dir, pid, port, l.dir)
	}
	if pidExists(pid) {
		l.logger.Info("pg: removing stale postmaster.pid", "dir", l.dir, "pid", pid)
		if err := os.Remove(filepath.Join(l.dir, "postmaster.pid")); err != nil {
			return fmt.Errorf("pg: remove stale postmaster.pid: %w", err)
		}
	}
	return nil
}

// start launches the postmaster through pg_ctl, which detaches it from this
// process so that it outlives us until Stop.
func (l *Local) start(ctx context.Context, opts LocalOptions) error {
	logFile := filepath.Join(l.dir, "server.log")
	// A port that was free when we picked it can be taken before the server
	// binds it, and orphaned backends of a crashed server hold its shared
	// memory for a few moments; both are worth a few retries.
	deadline := time.Now().Add(15 * time.Second)
	for attempt := 1; ; attempt++ {
		port := opts.Port
		if port == 0 {
			p, err := freePort()
			if err != nil {
				return err
			}
			port = p
		}
		l.port = port
		logOffset := fileSize(logFile)

		l.logger.Info("pg: starting local PostgreSQL", "dir", l.dir, "port", port, "fast", opts.Fast)
		begin := time.Now()
		args := []string{"start", "-D", l.dir, "-l", logFile, "-w", "-t", "60", "-s",
			"-p", l.bin.postgres, "-o", serverOptions(l.dir, port, opts.Fast)}
		out, err := l.as.command(ctx, l.bin.pgCtl, args...).CombinedOutput()
		if err == nil {
			if err := l.waitReady(ctx); err != nil {
				return err
			}
			pid, _ := readPIDFile(l.dir)
			l.logger.Info("pg: local PostgreSQL ready", "url", l.URL(), "pid", pid, "duration", time.Since(begin))
			return nil
		}

		serverLog := readFrom(logFile, logOffset)
		retryable := (opts.Port == 0 && strings.Contains(serverLog, "could not bind")) ||
			strings.Contains(serverLog, "is still in use")
		if !retryable || time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("pg: pg_ctl start -D %s: %w: %s\n%s", l.dir, err,
				strings.TrimSpace(string(out)), strings.TrimSpace(serverLog))
		}
		l.logger.Info("pg: start failed, retrying", "attempt", attempt, "reason", lastLine(serverLog))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt) * 100 * time.Millisecond):
		}
	}
}

// serverOptions builds pg_ctl's -o string, which pg_ctl hands to /bin/sh, so
// every argument is shell-quoted.
func serverOptions(dir string, port int, fast bool) string {
	settings := []string{
		"listen_addresses=127.0.0.1",
		"port=" + strconv.Itoa(port),
		// Never the distribution default (/var/run/postgresql): it may not
		// exist or be writable, and would collide with a system server.
		"unix_socket_directories=" + socketDirSetting(dir, port),
	}
	if fast {
		settings = append(settings,
			"fsync=off",
			"synchronous_commit=off",
			"full_page_writes=off",
			// Each test database gets its own pool; parallel test binaries
			// on a many-core machine exceed the default of 100.
			"max_connections=300",
		)
	}
	var b strings.Builder
	for _, s := range settings {
		b.WriteString(" -c ")
		b.WriteString(shellQuote(s))
	}
	return strings.TrimSpace(b.String())
}

// socketDirSetting puts the unix socket in the data directory, or disables
// unix sockets when that path would exceed the kernel's sun_path limit
// (~107 bytes), as deep temp directories on macOS do. TCP is always on.
func socketDirSetting(dir string, port int) string {
	if len(dir)+len("/.s.PGSQL.")+len(strconv.Itoa(port)) > 100 {
		return ""
	}
	// The value is a comma-separated list in which double quotes protect a
	// path containing commas or spaces.
	if strings.ContainsAny(dir, ", \"") {
		return `"` + strings.ReplaceAll(dir, `"`, `""`) + `"`
	}
	return dir
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// waitReady polls until the server accepts a connection; pg_ctl -w already
// waited for the postmaster to report readiness, so this normally succeeds at
// once and exists to turn a subtle failure (e.g. a proxy on the port) into a
// clear error.
func (l *Local) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	url := l.adminURL()
	for {
		conn, err := pgx.Connect(ctx, url)
		if err == nil {
			return conn.Close(ctx)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pg: local PostgreSQL on port %d did not accept connections: %w", l.port, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (l *Local) ensureDatabase(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, l.adminURL())
	if err != nil {
		return fmt.Errorf("pg: connect to local PostgreSQL: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", LocalDatabase).Scan(&exists); err != nil {
		return fmt.Errorf("pg: look up database %s: %w", LocalDatabase, err)
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{LocalDatabase}.Sanitize()); err != nil {
		return fmt.Errorf("pg: create database %s: %w", LocalDatabase, err)
	}
	l.logger.Info("pg: created database", "database", LocalDatabase)
	return nil
}

func (l *Local) adminURL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=5", l.port)
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pg: find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// readFrom returns what was appended to a log file since offset, capped so
// that an error message stays readable.
func readFrom(path string, offset int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(f, 16<<10))
	return string(b)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
