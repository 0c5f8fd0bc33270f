package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// formation is a pg_auto_failover monitor and two PostgreSQL nodes on loopback, under one
// temporary directory. Every process it starts runs in a process group of its own, so stopping
// a node (or freezing it) reaches its keeper and its postmaster with every backend.
type formation struct {
	dir     string
	pgbin   string
	cred    *syscall.Credential // the postgres user's, when run as root
	monitor *proc
	mport   int
	nodes   []*node
	logf    func(format string, args ...any)
}

type node struct {
	name string
	port int
	proc *proc
}

// proc is one started process group.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
}

func newFormation(pgbin string, logf func(string, ...any)) (*formation, error) {
	dir, err := os.MkdirTemp("", "sous-failover-")
	if err != nil {
		return nil, err
	}
	f := &formation{dir: dir, pgbin: pgbin, logf: logf}
	if os.Geteuid() == 0 {
		// initdb and postgres refuse to run as root.
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root needs a postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		f.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
	}
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	f.mport = ports[0]
	f.nodes = []*node{{name: "node1", port: ports[1]}, {name: "node2", port: ports[2]}}
	return f, nil
}

// freePorts returns loopback ports nothing listens on now, outside the kernel's ephemeral range:
// a port the kernel handed out (":0") is one any outgoing connection may take again in the seconds
// before the node or the server binds it.
func freePorts(n int) ([]int, error) {
	lo, hi := ephemeralRange()
	spanLo, spanN := 10000, lo-10000
	if lo <= 12000 {
		spanLo, spanN = hi+1, 65535-hi
	}
	seen := map[int]bool{}
	var ports []int
	for tries := 0; len(ports) < n; tries++ {
		if tries > 1000 {
			return nil, fmt.Errorf("no free port in %d..%d", spanLo, spanLo+spanN-1)
		}
		p := spanLo + rand.IntN(spanN)
		if seen[p] {
			continue
		}
		seen[p] = true
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue
		}
		ln.Close()
		ports = append(ports, p)
	}
	return ports, nil
}

// ephemeralRange is the kernel's range for outgoing connections' local ports.
func ephemeralRange() (lo, hi int) {
	lo, hi = 32768, 60999
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return lo, hi
	}
	f := strings.Fields(string(b))
	if len(f) == 2 {
		l, err1 := strconv.Atoi(f[0])
		h, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil && l > 0 && h >= l {
			return l, h
		}
	}
	return lo, hi
}

func (f *formation) monitorURL() string {
	return fmt.Sprintf("postgres://autoctl_node@127.0.0.1:%d/pg_auto_failover?sslmode=disable", f.mport)
}

// URL is the multi-host connection string Sous is given: both nodes, the writable one chosen.
func (f *formation) URL(db string) string {
	hosts := make([]string, len(f.nodes))
	for i, n := range f.nodes {
		hosts[i] = fmt.Sprintf("127.0.0.1:%d", n.port)
	}
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable&target_session_attrs=read-write", strings.Join(hosts, ","), db)
}

func nodeURL(port int, db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable&connect_timeout=2", port, db)
}

// start runs pg_autoctl with args in a new process group, logging to a file of the temp dir.
func (f *formation) start(name string, args ...string) (*proc, error) {
	log, err := os.OpenFile(filepath.Join(f.dir, name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(f.pgbin, "pg_autoctl"), args...)
	if _, err := os.Stat(cmd.Path); err != nil {
		cmd = exec.Command("pg_autoctl", args...)
	}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Dir = f.dir
	cmd.Env = []string{
		"PATH=" + f.pgbin + ":/usr/bin:/bin",
		"HOME=" + f.dir,
		"XDG_CONFIG_HOME=" + filepath.Join(f.dir, "config"),
		"XDG_DATA_HOME=" + filepath.Join(f.dir, "data"),
		"XDG_RUNTIME_DIR=" + filepath.Join(f.dir, "run"),
		"LANG=C.UTF-8",
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: f.cred}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); log.Close(); close(p.done) }()
	return p, nil
}

// signal sends sig to the process group.
func (p *proc) signal(sig syscall.Signal) error {
	return syscall.Kill(-p.cmd.Process.Pid, sig)
}

// signalAll sends sig to the process group and to every process descended from it (PostgreSQL
// backends), as a machine that froze or died would take them all.
func (p *proc) signalAll(sig syscall.Signal) {
	signalTree(p.cmd.Process.Pid, sig)
}

// stop asks the group to stop (pg_autoctl stops its postgres), then kills what is left.
func (p *proc) stop(grace time.Duration) {
	p.signalAll(syscall.SIGCONT) // a frozen process would never handle the TERM
	_ = p.signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
	}
	p.signalAll(syscall.SIGKILL)
	<-p.done
}

func (f *formation) create(ctx context.Context) error {
	for _, sub := range []string{"config", "data", "run"} {
		if err := f.mkdir(filepath.Join(f.dir, sub)); err != nil {
			return err
		}
	}
	var err error
	f.monitor, err = f.start("monitor", "create", "monitor", "--pgdata", filepath.Join(f.dir, "monitor"),
		"--pgport", strconv.Itoa(f.mport), "--hostname", "127.0.0.1", "--listen", "127.0.0.1",
		"--auth", "trust", "--no-ssl", "--run")
	if err != nil {
		return err
	}
	if err := waitFor(ctx, 60*time.Second, "the monitor", func(ctx context.Context) (bool, error) {
		_, err := f.states(ctx)
		return err == nil, nil
	}); err != nil {
		return err
	}
	// Failovers at the speed of the test: health checks every second, a node unhealthy after
	// four, and a demoted primary given five seconds (pg_auto_failover's defaults are minutes in
	// total; production keeps them).
	if err := f.exec(ctx, f.mport, "pg_auto_failover",
		"ALTER SYSTEM SET pgautofailover.health_check_period = 1000",
		"ALTER SYSTEM SET pgautofailover.health_check_timeout = 1000",
		"ALTER SYSTEM SET pgautofailover.health_check_max_retries = 1",
		"ALTER SYSTEM SET pgautofailover.health_check_retry_delay = 500",
		"ALTER SYSTEM SET pgautofailover.node_considered_unhealthy_timeout = 4000",
		"ALTER SYSTEM SET pgautofailover.primary_demote_timeout = 5000",
		"SELECT pg_reload_conf()",
	); err != nil {
		return err
	}
	for _, n := range f.nodes {
		n.proc, err = f.start(n.name, "create", "postgres", "--pgdata", filepath.Join(f.dir, n.name),
			"--pgport", strconv.Itoa(n.port), "--hostname", "127.0.0.1", "--listen", "127.0.0.1",
			"--name", n.name, "--auth", "trust", "--no-ssl", "--dbname", "sous",
			"--monitor", f.monitorURL(), "--run")
		if err != nil {
			return err
		}
		if err := f.settle(ctx, 120*time.Second); err != nil {
			return fmt.Errorf("%s: %w", n.name, err)
		}
	}
	return nil
}

func (f *formation) mkdir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if f.cred != nil {
		return os.Chown(dir, int(f.cred.Uid), int(f.cred.Gid))
	}
	return nil
}

// restart runs the keeper of a node that was killed; it rejoins as a standby.
func (f *formation) restart(n *node) error {
	var err error
	n.proc, err = f.start(n.name, "run", "--pgdata", filepath.Join(f.dir, n.name))
	return err
}

type nodeState struct {
	name, reported, goal string
}

func (f *formation) states(ctx context.Context) ([]nodeState, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, nodeURL(f.mport, "pg_auto_failover"))
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, `SELECT nodename, reportedstate::text, goalstate::text FROM pgautofailover.node ORDER BY nodeid`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (nodeState, error) {
		var s nodeState
		err := r.Scan(&s.name, &s.reported, &s.goal)
		return s, err
	})
}

// settle waits until every node that joined has reached its goal, with one primary and the
// rest secondaries. A standby's base backup waits for a checkpoint on the primary, which by
// default is spread over minutes: asking for one now and then makes it immediate.
func (f *formation) settle(ctx context.Context, timeout time.Duration) error {
	var last []nodeState
	var lastCheckpoint time.Time
	err := waitFor(ctx, timeout, "the formation to settle", func(ctx context.Context) (bool, error) {
		s, err := f.states(ctx)
		if err != nil {
			return false, nil
		}
		last = s
		primaries, secondaries := 0, 0
		for _, n := range s {
			switch {
			case n.reported != n.goal:
			case n.reported == "primary" || (n.reported == "single" && len(s) == 1):
				primaries++
			case n.reported == "secondary":
				secondaries++
			}
		}
		if primaries == 1 && primaries+secondaries == len(s) {
			return true, nil
		}
		if time.Since(lastCheckpoint) > 2*time.Second {
			lastCheckpoint = time.Now()
			for _, n := range f.nodes {
				if w, _ := f.writable(ctx, n); w {
					_ = f.exec(ctx, n.port, "postgres", "CHECKPOINT")
				}
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("%w (states %v)", err, last)
	}
	return nil
}

// primary is the node whose reported state is primary (or single).
func (f *formation) primary(ctx context.Context) (*node, error) {
	s, err := f.states(ctx)
	if err != nil {
		return nil, err
	}
	for _, st := range s {
		if st.reported == "primary" || st.reported == "single" || st.reported == "wait_primary" {
			for _, n := range f.nodes {
				if n.name == st.name {
					return n, nil
				}
			}
		}
	}
	return nil, fmt.Errorf("no primary among %v", s)
}

func (f *formation) other(n *node) *node {
	i := slices.Index(f.nodes, n)
	return f.nodes[(i+1)%len(f.nodes)]
}

// writable reports whether n takes writes now: out of recovery, not read-only, and a write
// commits within a second (a new primary that still waits for a synchronous standby would
// hold it).
func (f *formation) writable(ctx context.Context, n *node) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, nodeURL(n.port, "postgres")+"&target_session_attrs=read-write")
	if err != nil {
		return false, err
	}
	defer conn.Close(context.Background())
	// A commit that waits for a synchronous standby answers only when the client's deadline
	// passes (statement_timeout would release it with a mere warning).
	wctx, wcancel := context.WithTimeout(ctx, time.Second)
	defer wcancel()
	_, err = conn.Exec(wctx, `CREATE TABLE IF NOT EXISTS failover_probe (at timestamptz NOT NULL);
		INSERT INTO failover_probe VALUES (now())`)
	return err == nil, err
}

func (f *formation) exec(ctx context.Context, port int, db string, stmts ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, nodeURL(port, db))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// stopAll stops the nodes, then the monitor, each by its process group, and removes the
// temporary directory.
func (f *formation) stopAll(keep bool) {
	for _, n := range f.nodes {
		if n.proc != nil {
			n.proc.stop(15 * time.Second)
		}
	}
	if f.monitor != nil {
		f.monitor.stop(15 * time.Second)
	}
	if keep {
		f.logf("logs kept in %s", f.dir)
		return
	}
	_ = os.RemoveAll(f.dir)
}

// waitFor polls cond every 100 ms until it is true, ctx ends or timeout passes.
func waitFor(ctx context.Context, timeout time.Duration, what string, cond func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		ok, err := cond(ctx)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, errors.Join(ctx.Err()))
		case <-time.After(100 * time.Millisecond):
		}
	}
}
