package pgtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ory/dockertest/v3"
	"github.com/ory/dockertest/v3/docker"

	"github.com/sous-app/sous/internal/pg"
)

// server is a running PostgreSQL server and how to get rid of it.
type server struct {
	provider string
	url      string
	stop     func(context.Context) error // nil: not ours to stop
}

// startServer picks the first available provider; see the package comment.
func startServer(ctx context.Context) (*server, error) {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return &server{provider: "TEST_DATABASE_URL", url: u}, nil
	}
	srv, err := startDocker(ctx)
	if srv != nil {
		return srv, nil
	}
	if err != nil {
		// A daemon that answers but cannot run the image (offline, no
		// pull rights) should not fail every test when local binaries work.
		fmt.Fprintf(os.Stderr, "pgtest: docker: %v; trying local PostgreSQL binaries\n", err)
	}
	srv, err = startLocal(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w\n(set TEST_DATABASE_URL to an admin URL of a PostgreSQL server, "+
			"start a Docker daemon, or install the PostgreSQL server binaries)", err)
	}
	return srv, nil
}

// The label lets a later run find containers whose test binary was killed
// before it could remove them.
const ownerLabel = "app.sous.pgtest.owner"

// startDocker runs postgres:15 in a container. It returns (nil, nil) when no
// Docker daemon answers, quickly, since that is the normal case on machines
// with local binaries.
func startDocker(ctx context.Context) (*server, error) {
	pool, err := dockertest.NewPool("")
	if err != nil {
		return nil, nil
	}
	pingCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := pool.Client.PingWithContext(pingCtx); err != nil {
		return nil, nil
	}
	host, _ := os.Hostname()
	reapContainers(ctx, pool, host)

	res, err := pool.RunWithOptions(&dockertest.RunOptions{
		Repository: "postgres",
		Tag:        "15",
		Env:        []string{"POSTGRES_HOST_AUTH_METHOD=trust"},
		Cmd: []string{"postgres",
			"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
			"-c", "max_connections=300"},
		Labels: map[string]string{ownerLabel: host + "/" + strconv.Itoa(os.Getpid())},
	}, func(hc *docker.HostConfig) {
		hc.AutoRemove = true
		hc.RestartPolicy = docker.RestartPolicy{Name: "no"}
	})
	if err != nil {
		return nil, fmt.Errorf("run postgres:15: %w", err)
	}
	purge := func(context.Context) error { return pool.Purge(res) }

	u := "postgres://postgres@" + net.JoinHostPort(dockerHost(), res.GetPort("5432/tcp")) + "/postgres?sslmode=disable"
	// The image's entrypoint first runs a private init server without TCP,
	// so a successful TCP connection means the real server is up.
	pool.MaxWait = time.Minute
	if err := pool.Retry(func() error {
		c, err := pgx.Connect(ctx, u)
		if err != nil {
			return err
		}
		return c.Close(ctx)
	}); err != nil {
		_ = purge(ctx)
		return nil, fmt.Errorf("postgres:15 container never accepted connections: %w", err)
	}
	return &server{provider: "docker", url: u, stop: purge}, nil
}

// dockerHost is where published container ports are reachable: the daemon's
// host for a remote tcp:// DOCKER_HOST, otherwise this machine.
func dockerHost() string {
	if u, err := url.Parse(os.Getenv("DOCKER_HOST")); err == nil && u.Scheme == "tcp" && u.Hostname() != "" {
		return u.Hostname()
	}
	return "localhost"
}

func reapContainers(ctx context.Context, pool *dockertest.Pool, host string) {
	list, err := pool.Client.ListContainers(docker.ListContainersOptions{
		All: true, Context: ctx, Filters: map[string][]string{"label": {ownerLabel}},
	})
	if err != nil {
		return
	}
	for _, c := range list {
		h, pidStr, _ := strings.Cut(c.Labels[ownerLabel], "/")
		pid, err := strconv.Atoi(pidStr)
		if h != host || err != nil || processAlive(pid) {
			continue
		}
		_ = pool.Client.RemoveContainer(docker.RemoveContainerOptions{ID: c.ID, Force: true, RemoveVolumes: true, Context: ctx})
	}
}

// Local clusters live in <TMPDIR>/sous-pgtest-*/data, next to owner.pid, the
// PID of the test binary that started it.
const (
	localPrefix = "sous-pgtest-"
	ownerFile   = "owner.pid"
)

// startLocal starts a throwaway cluster from the local server binaries.
func startLocal(ctx context.Context) (*server, error) {
	reapLocal(ctx, os.TempDir())

	root, err := os.MkdirTemp("", localPrefix)
	if err != nil {
		return nil, err
	}
	cleanup := func() { _ = os.RemoveAll(root) }
	// Running as root, the server runs as the postgres user, which must be
	// able to reach the data directory inside.
	if err := os.Chmod(root, 0o755); err != nil {
		cleanup()
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(root, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		cleanup()
		return nil, err
	}

	dataDir := filepath.Join(root, "data")
	local, err := pg.StartLocal(ctx, pg.LocalOptions{
		Dir:    dataDir,
		Fast:   true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		_ = pg.StopLocalDir(context.WithoutCancel(ctx), dataDir)
		cleanup()
		return nil, fmt.Errorf("local PostgreSQL: %w", err)
	}
	return &server{
		provider: "local",
		url:      local.URL(),
		stop: func(ctx context.Context) error {
			err := local.Stop(ctx)
			if rmErr := os.RemoveAll(root); err == nil {
				err = rmErr
			}
			return err
		},
	}, nil
}

// reapLocal stops and removes clusters left in tmp by test binaries that died
// without tearing down (killed, or timed out: the test timeout panics past
// TestMain), so that they do not run until the machine reboots.
func reapLocal(ctx context.Context, tmp string) {
	roots, _ := filepath.Glob(filepath.Join(tmp, localPrefix+"*"))
	for _, root := range roots {
		b, err := os.ReadFile(filepath.Join(root, ownerFile))
		if err != nil {
			continue // still being created, or not ours
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || processAlive(pid) {
			continue
		}
		if err := pg.StopLocalDir(ctx, filepath.Join(root, "data")); err != nil {
			continue
		}
		_ = os.RemoveAll(root)
	}
}

func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	// Signal 0 probes without delivering; where it is unsupported (Windows)
	// the error is not ErrProcessDone and we err on the side of alive.
	return !errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}

// Server is a PostgreSQL server started for a whole test run (see the withpg command), shared
// by every test binary through TEST_DATABASE_URL.
type Server struct{ s *server }

// StartServer starts a throwaway server as a test binary would start its own: a container where
// a Docker daemon answers, else a private cluster from the local server binaries.
func StartServer(ctx context.Context) (*Server, error) {
	s, err := startServer(ctx)
	if err != nil {
		return nil, err
	}
	return &Server{s}, nil
}

// URL is an admin-capable URL of the server, for TEST_DATABASE_URL.
func (s *Server) URL() string { return s.s.url }

// Provider says where the server came from ("docker", "local", "TEST_DATABASE_URL").
func (s *Server) Provider() string { return s.s.provider }

// Stop stops the server and removes its files, if it is ours to stop.
func (s *Server) Stop(ctx context.Context) error {
	if s.s.stop == nil {
		return nil
	}
	return s.s.stop(ctx)
}
