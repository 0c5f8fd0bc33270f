// Command withpg runs a command against one throwaway PostgreSQL server that it starts first
// and removes afterwards, with TEST_DATABASE_URL naming it:
//
//	go run ./internal/pg/pgtest/withpg -- go test ./...
//
// Without it every test binary of `go test ./...` starts a server of its own (an initdb, a
// start, a migrated template: seconds each, for every package); with it they share one, and
// the template is migrated once for the whole run. The server comes from the same place
// pgtest's would (a Docker daemon that answers, else the local server binaries). When
// TEST_DATABASE_URL is already set, the command runs against that server and nothing is
// started.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/sous-app/sous/internal/pg/pgtest"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: withpg [--] command [args...]")
		os.Exit(2)
	}
	os.Exit(run(args))
}

func run(args []string) int {
	if os.Getenv("TEST_DATABASE_URL") != "" {
		return command(args, os.Environ())
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	srv, err := pgtest.StartServer(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "withpg:", err)
		return 1
	}
	defer func() {
		if err := srv.Stop(context.WithoutCancel(ctx)); err != nil {
			fmt.Fprintln(os.Stderr, "withpg: stop:", err)
		}
	}()
	fmt.Fprintf(os.Stderr, "withpg: one %s PostgreSQL server for the run\n", srv.Provider())
	return command(args, append(os.Environ(), "TEST_DATABASE_URL="+srv.URL()))
}

// command runs args with env and returns its exit code. An interrupt reaches the child through
// the process group, as it would without this wrapper; the wrapper waits for it to exit, then
// removes the server.
func command(args, env []string) int {
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		if code := exit.ExitCode(); code > 0 {
			return code
		}
		return 1
	default:
		fmt.Fprintln(os.Stderr, "withpg:", err)
		return 1
	}
}
