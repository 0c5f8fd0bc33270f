// Command failover runs Sous against a real pg_auto_failover formation (a monitor and two
// PostgreSQL nodes with synchronous replication, all on loopback under a temporary directory)
// and fails the primary over three ways while site writes, HL7 batches and a wallboard's socket
// keep going:
//
//   - planned failover: pg_autoctl perform failover;
//   - node loss: the primary's keeper and postmaster killed (SIGKILL), then restarted to rejoin;
//   - frozen primary: the primary's processes stopped (SIGSTOP), resumed once the standby took over.
//
// For each it checks that the one Sous process recovers by itself within 5 seconds of the
// promotion, answers nothing but 2xx and 503 meanwhile, loses no acknowledged write (every site
// created and every HL7 message applied is in the database afterwards), and that the board
// socket hears a hint after the recovery. It prints one line per scenario and exits non-zero if
// any check failed. Everything it starts, it stops by process (group) id; it sends traffic only
// to loopback. `task failover` installs pg_auto_failover and runs it:
//
//	go run -C tools ./failover [-scenarios planned,loss,freeze] [-keep]
//
// Run as root it runs PostgreSQL as the postgres user.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "failover:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s failover: %s\n", time.Now().Format("15:04:05.0"), fmt.Sprintf(format, args...))
}

type scenario struct {
	name  string
	fault func(ctx context.Context, f *formation, primary *node) error
	heal  func(ctx context.Context, f *formation, primary *node) error
}

var scenarios = []scenario{
	{
		name: "planned",
		fault: func(ctx context.Context, f *formation, _ *node) error {
			p, err := f.start("perform-failover", "perform", "failover", "--pgdata", filepath.Join(f.dir, "monitor"))
			if err != nil {
				return err
			}
			performing = p
			return nil
		},
		heal: func(ctx context.Context, _ *formation, _ *node) error {
			select {
			case <-performing.done:
			case <-ctx.Done():
				performing.stop(time.Second)
			}
			return nil
		},
	},
	{
		name: "node loss",
		fault: func(ctx context.Context, _ *formation, primary *node) error {
			primary.proc.signalAll(syscall.SIGKILL)
			<-primary.proc.done
			return nil
		},
		heal: func(ctx context.Context, f *formation, primary *node) error { return f.restart(primary) },
	},
	{
		name: "frozen primary",
		fault: func(ctx context.Context, _ *formation, primary *node) error {
			frozen = primary.proc.cmd.Process.Pid
			signalTree(frozen, syscall.SIGSTOP)
			return nil
		},
		heal: func(ctx context.Context, _ *formation, primary *node) error {
			signalTree(frozen, syscall.SIGCONT)
			return nil
		},
	},
}

// frozen is the keeper whose tree the frozen-primary scenario stopped.
var frozen int

// performing is the running `pg_autoctl perform failover` of the planned scenario.
var performing *proc

func run(args []string) error {
	fs := flag.NewFlagSet("failover", flag.ContinueOnError)
	repo := fs.String("repo", "..", "the repository root (where cmd/sous is)")
	pgbin := fs.String("pgbin", "", "PostgreSQL's bin directory (default: the newest under /usr/lib/postgresql)")
	which := fs.String("scenarios", "planned,node loss,frozen primary", "comma-separated scenarios to run, in order")
	keep := fs.Bool("keep", false, "keep the temporary directory (logs, data) at the end")
	limit := fs.Duration("timeout", 7*time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *pgbin == "" {
		var err error
		if *pgbin, err = findPgBin(); err != nil {
			return err
		}
	}
	var chosen []scenario
	for _, name := range strings.Split(*which, ",") {
		i := slices.IndexFunc(scenarios, func(s scenario) bool { return s.name == strings.TrimSpace(name) })
		if i < 0 {
			return fmt.Errorf("unknown scenario %q", name)
		}
		chosen = append(chosen, scenarios[i])
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *limit)
	defer cancel()

	started := time.Now()
	f, err := newFormation(*pgbin, logf)
	if err != nil {
		return err
	}
	failed := true
	defer func() { f.stopAll(*keep || failed) }()
	logf("creating a monitor and two nodes under %s", f.dir)
	if err := f.create(ctx); err != nil {
		return err
	}
	logf("formation ready after %s; starting Sous on %s", secs(time.Since(started)), f.URL("sous"))

	sous, base, err := startSous(ctx, f, *repo)
	if err != nil {
		return err
	}
	defer sous.stop(30 * time.Second)

	tr := newTraffic(base)
	if err := tr.setup(ctx); err != nil {
		return err
	}
	trafficCtx, stopTraffic := context.WithCancel(ctx)
	trafficDone := make(chan struct{})
	go func() { tr.run(trafficCtx, 2, 20*time.Millisecond); close(trafficDone) }()
	defer func() { stopTraffic(); <-trafficDone }()
	sleep(ctx, 3*time.Second)

	var results []*result
	for _, sc := range chosen {
		r, err := runScenario(ctx, f, tr, sc)
		if err != nil {
			return fmt.Errorf("%s: %w", sc.name, err)
		}
		select {
		case <-sous.done:
			r.problems = append(r.problems, "the Sous process exited")
		default:
		}
		fmt.Println(r.line())
		results = append(results, r)
	}
	stopTraffic()
	<-trafficDone
	failed = false
	for _, r := range results {
		if len(r.problems) > 0 {
			failed = true
		}
	}
	fmt.Printf("failover: %d scenarios in %s, %s\n", len(results), secs(time.Since(started)), map[bool]string{true: "FAILED", false: "all passed"}[failed])
	if failed {
		return errors.New("a scenario failed")
	}
	return nil
}

func findPgBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return vb - va
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "pg_autoctl")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("pg_autoctl"); err == nil && len(dirs) > 0 {
		_ = p
		return dirs[0], nil
	}
	return "", errors.New("pg_autoctl not found: install postgresql-NN-auto-failover (task failover does)")
}

// startSous builds the server and starts it on the formation's multi-host URL.
func startSous(ctx context.Context, f *formation, repo string) (*proc, string, error) {
	bin := filepath.Join(f.dir, "sous")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/sous")
	build.Dir = repo
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return nil, "", fmt.Errorf("build sous: %w", err)
	}
	ports, err := freePorts(1)
	if err != nil {
		return nil, "", err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", ports[0])
	log, err := os.Create(filepath.Join(f.dir, "sous.log"))
	if err != nil {
		return nil, "", err
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(),
		"DATABASE_URL="+f.URL("sous"),
		"SOUS_ADDR="+addr,
		"SOUS_DATA_DIR="+filepath.Join(f.dir, "sous-data"),
		"SOUS_ACCESS_LOG=false",
		"SOUS_LOG_LEVEL=warn",
	)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	p := &proc{name: "sous", cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); log.Close(); close(p.done) }()
	base := "http://" + addr
	err = waitFor(ctx, 60*time.Second, "Sous to be ready", func(ctx context.Context) (bool, error) {
		select {
		case <-p.done:
			return false, fmt.Errorf("sous exited: see %s", log.Name())
		default:
		}
		res, err := http.Get(base + "/readyz")
		if err != nil {
			return false, nil
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		p.stop(5 * time.Second)
		return nil, "", err
	}
	return p, base, nil
}

func runScenario(ctx context.Context, f *formation, tr *traffic, sc scenario) (*result, error) {
	if err := f.settle(ctx, 90*time.Second); err != nil {
		return nil, err
	}
	primary, err := f.primary(ctx)
	if err != nil {
		return nil, err
	}
	standby := f.other(primary)
	start := time.Now()
	sleep(ctx, 2*time.Second) // steady traffic before the fault
	logf("%s: fault on %s", sc.name, primary.name)
	fault := time.Now()
	if err := sc.fault(ctx, f, primary); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, 90*time.Second, standby.name+" to take writes", func(ctx context.Context) (bool, error) {
		ok, _ := f.writable(ctx, standby)
		return ok, nil
	}); err != nil {
		return nil, err
	}
	promoted := time.Now()
	logf("%s: %s takes writes, %s after the fault", sc.name, standby.name, secs(promoted.Sub(fault)))

	// Give the writes time to come back, then look for a hint on the board socket: cast until
	// one arrives (the hub may still be reconnecting to the new primary).
	_ = waitFor(ctx, 15*time.Second, "a write after the promotion", func(context.Context) (bool, error) {
		for _, s := range tr.between(promoted, time.Now()) {
			if s.ok() && s.kind != kindCast {
				return true, nil
			}
		}
		return false, nil
	})
	hint := time.Duration(-1)
	_ = waitFor(ctx, 60*time.Second, "a hint on the board socket", func(ctx context.Context) (bool, error) {
		s := tr.cast(ctx)
		if !s.ok() {
			return false, nil
		}
		wait, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		for wait.Err() == nil {
			if at, ok := tr.frameAfter(s.start); ok {
				hint = at.Sub(promoted)
				return true, nil
			}
			sleep(wait, 20*time.Millisecond)
		}
		return false, nil
	})

	healed := time.Now()
	if err := sc.heal(ctx, f, primary); err != nil {
		return nil, err
	}
	if err := f.settle(ctx, 120*time.Second); err != nil {
		return nil, err
	}
	sleep(ctx, time.Second)
	end := time.Now()

	r := &result{name: sc.name, promoted: promoted.Sub(fault), hint: hint}
	r.outage, r.recovery, r.byKind = analyze(tr.between(start, end), fault, promoted, healed)
	lost, err := lostWrites(ctx, f, tr)
	if err != nil {
		return nil, err
	}
	r.lost = lost
	r.check()
	return r, nil
}

// lostWrites counts the acknowledged sites and HL7 messages the primary does not hold.
func lostWrites(ctx context.Context, f *formation, tr *traffic) (int, error) {
	primary, err := f.primary(ctx)
	if err != nil {
		return 0, err
	}
	conn, err := pgx.Connect(ctx, nodeURL(primary.port, "sous"))
	if err != nil {
		return 0, err
	}
	defer conn.Close(context.Background())
	sites, hl7 := tr.acknowledged()
	stored := func(query string) (map[string]bool, error) {
		rows, err := conn.Query(ctx, query, tr.org)
		if err != nil {
			return nil, err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		m := make(map[string]bool, len(ids))
		for _, id := range ids {
			m[id] = true
		}
		return m, err
	}
	haveSites, err := stored(`SELECT id::text FROM sites WHERE org_id = $1`)
	if err != nil {
		return 0, err
	}
	haveHL7, err := stored(`SELECT control_id FROM hl7_messages WHERE org_id = $1 AND outcome = 'applied'`)
	if err != nil {
		return 0, err
	}
	lost := append(missing(sites, haveSites), missing(hl7, haveHL7)...)
	if len(lost) > 0 {
		logf("lost: %v", lost[:min(len(lost), 10)])
	}
	return len(lost), nil
}
