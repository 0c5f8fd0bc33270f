// Command sous is the Sous API server and its operator tools.
//
//	sous [serve] [--no-migrate]   serve the API (default)
//	sous migrate                  apply database migrations and exit
//	sous version                  print the version and source revision
//	sous admin plan …             change an organization's plan (see sous admin help)
//	sous foods import --sr28 DIR  import USDA's Standard Reference (see sous foods help)
//	sous help [command]           list the commands, or one command's usage and flags
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
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

// command is one subcommand, as help lists it.
type command struct {
	name    string
	args    string // after "sous <name>"
	summary string // one line, for the list
	detail  string // a paragraph, for the command's own help
	flags   func(*flag.FlagSet)
}

var commands = []command{
	{name: "serve", args: "[--no-migrate]", summary: "serve the API (the default command)",
		detail: "Applies the embedded migrations (unless --no-migrate) and serves the API on SOUS_ADDR (default :8080).\n" +
			"With no DATABASE_URL it starts a private PostgreSQL cluster of its own under SOUS_DATA_DIR (./.sous).\n" +
			"SIGINT or SIGTERM drains the requests in flight and stops.",
		flags: func(fs *flag.FlagSet) { serveFlags(fs) }},
	{name: "migrate", summary: "apply the embedded database migrations and exit",
		detail: "Applies the migrations to DATABASE_URL (or to the private cluster when it is unset) and exits.",
		flags:  func(*flag.FlagSet) {}},
	{name: "version", summary: "print the version and the source revision it was built from",
		detail: "Prints the version and the commit the binary was built from, with its time and whether the\n" +
			"checkout had uncommitted changes. Under go run, which stamps no revision, it asks git in the checkout.",
		flags: func(*flag.FlagSet) {}},
	{name: "admin", args: "plan --org <id> --tier <free|pro|enterprise> [--trial-ends <RFC3339>]",
		summary: "operator commands: change an organization's plan (sous admin help)"},
	{name: "foods", args: "import --sr28 <dir>",
		summary: "operator commands: import USDA's Standard Reference foods (sous foods help)"},
	{name: "help", args: "[command]", summary: "list the commands, or print one command's usage and flags",
		detail: "Lists the commands; with a command's name, prints its usage, description and flags, as\n" +
			"`sous <command> --help` does. `sous --help` and `sous -h` list the commands too.",
		flags: func(*flag.FlagSet) {}},
}

func run(ctx context.Context, args []string) error {
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	} else if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		cmd, args = "help", nil
	}
	switch cmd {
	case "serve":
		return serve(ctx, args)
	case "migrate":
		return migrate(ctx, args)
	case "admin":
		return admin(ctx, args)
	case "foods":
		return foodsCommand(ctx, args)
	case "version":
		if done, err := parseFlags(flag.NewFlagSet("version", flag.ContinueOnError), args); done || err != nil {
			return err
		}
		fmt.Println(readBuild())
		return nil
	case "--version", "-version":
		fmt.Println(readBuild())
		return nil
	case "help":
		if len(args) == 0 {
			fmt.Print(usage())
			return nil
		}
		name := args[0]
		if name == "-h" || name == "-help" || name == "--help" {
			name = "help"
		}
		help, ok := commandHelp(name)
		if !ok {
			return fmt.Errorf("no command %q\n\n%s", args[0], usage())
		}
		fmt.Print(help)
		return nil
	default:
		return fmt.Errorf("unknown command %q\n\n%s", cmd, usage())
	}
}

// usage lists the commands.
func usage() string {
	var b strings.Builder
	b.WriteString("Sous: the food-service operations API server and its operator tools.\n\nusage: sous [command] [flags]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-9s %s\n", c.name, c.summary)
	}
	b.WriteString("\nWithout a command, sous serves. `sous <command> --help` (or `sous help <command>`) prints a\n" +
		"command's usage and flags. Configuration is read from the environment (DATABASE_URL, SOUS_ADDR, …);\n" +
		"see docs/operations/configuration.md.\n")
	return b.String()
}

// commandHelp is one command's usage, description and flags.
func commandHelp(name string) (string, bool) {
	if name == "admin" {
		return adminUsage + "\n", true
	}
	if name == "foods" {
		return foodsUsage + "\n", true
	}
	for _, c := range commands {
		if c.name != name || c.flags == nil {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "usage: sous %s", c.name)
		if c.args != "" {
			b.WriteString(" " + c.args)
		}
		fmt.Fprintf(&b, "\n\n%s\n", c.detail)
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		c.flags(fs)
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			b.WriteString("\nflags:\n")
			fs.SetOutput(&b)
			fs.PrintDefaults()
		}
		return b.String(), true
	}
	return "", false
}

// parseFlags parses a command's flags. -h or --help prints the command's help to stdout and
// reports done (the command then exits 0 without doing anything); a bad flag is an error that
// carries the command's help.
func parseFlags(fs *flag.FlagSet, args []string) (done bool, err error) {
	fs.SetOutput(io.Discard)
	help, _ := commandHelp(fs.Name())
	err = fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Print(help)
		return true, nil
	case err != nil:
		return true, fmt.Errorf("%w\n\n%s", err, help)
	case fs.NArg() > 0:
		return true, fmt.Errorf("unexpected argument %q\n\n%s", fs.Arg(0), help)
	}
	return false, nil
}
