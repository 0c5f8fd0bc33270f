// Command sous is the Sous API server and its operator tools.
//
//	sous [serve] [--no-migrate]   serve the API (default)
//	sous migrate                  apply database migrations and exit
//	sous version                  print the version and source revision
//	sous admin plan …             change an organization's plan (see sous admin help)
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "sous:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, args)
	case "migrate":
		return migrate(ctx, args)
	case "admin":
		return admin(ctx, args)
	case "version", "--version":
		fmt.Println(readBuild())
		return nil
	case "help", "-h", "--help":
		fmt.Println(usage)
		return nil
	default:
		return fmt.Errorf("unknown command %q\n\n%s", cmd, usage)
	}
}

const usage = `usage:
  sous [serve] [--no-migrate]   serve the API (embedded PostgreSQL unless DATABASE_URL is set)
  sous migrate                  apply database migrations and exit
  sous version                  print the version and the source revision it was built from
  sous admin help               operator commands (change an organization's plan)

Configuration is read from the environment; see docs/operations/configuration.md.`
