package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// runBinary runs the built sous with args and returns its stdout, stderr and exit code. The
// database named does not exist, so a command that tried to do its work would fail.
func runBinary(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(sousBinary(t), args...)
	cmd.Env = append(os.Environ(), "DATABASE_URL=postgres://nobody@127.0.0.1:1/none", "SOUS_ADDR=127.0.0.1:0", "SOUS_DATA_DIR="+t.TempDir())
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// `sous --help`, `sous -h` and `sous help` list every command with its one line, and exit 0.
func TestHelpListsTheCommands(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--help"}, {"-h"}, {"-help"}, {"help"}} {
		out, errOut, code := runBinary(t, args...)
		if code != 0 || errOut != "" {
			t.Fatalf("sous %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
		}
		for _, name := range []string{"serve", "migrate", "version", "admin", "foods", "help"} {
			c, ok := findCommand(name)
			if !ok {
				t.Fatalf("no command %s in the table", name)
			}
			if !strings.Contains(out, "  "+name+" ") || !strings.Contains(out, c.summary) {
				t.Errorf("sous %s does not list %s (%q):\n%s", strings.Join(args, " "), name, c.summary, out)
			}
		}
		if strings.Contains(out, "flag:") || strings.Contains(out, "no-migrate") {
			t.Errorf("sous %s printed serve's flags instead of the commands:\n%s", strings.Join(args, " "), out)
		}
	}
}

// Every command answers --help, -h and `sous help <command>` with its usage, on stdout, exit 0,
// without doing anything (the database does not exist).
func TestEveryCommandHasHelp(t *testing.T) {
	t.Parallel()
	for _, c := range commands {
		var first string
		for _, args := range [][]string{{c.name, "--help"}, {c.name, "-h"}, {"help", c.name}} {
			out, errOut, code := runBinary(t, args...)
			if code != 0 || errOut != "" {
				t.Fatalf("sous %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
			}
			if !strings.HasPrefix(out, "usage:") || !strings.Contains(out, "sous "+c.name) {
				t.Errorf("sous %s printed no usage of %s:\n%s", strings.Join(args, " "), c.name, out)
			}
			if first == "" {
				first = out
			} else if out != first {
				t.Errorf("sous %s differs from sous %s --help:\n%s\n----\n%s", strings.Join(args, " "), c.name, out, first)
			}
		}
	}
	if out, _, code := runBinary(t, "serve", "--help"); code != 0 || !strings.Contains(out, "-no-migrate") {
		t.Errorf("sous serve --help: exit %d, no --no-migrate flag:\n%s", code, out)
	}
	if out, _, code := runBinary(t, "admin", "plan", "--help"); code != 0 || !strings.Contains(out, "--tier") {
		t.Errorf("sous admin plan --help: exit %d:\n%s", code, out)
	}
	if out, _, code := runBinary(t, "foods", "import", "--help"); code != 0 || !strings.Contains(out, "--sr28") {
		t.Errorf("sous foods import --help: exit %d:\n%s", code, out)
	}
}

// A command or flag that does not exist fails (exit 1) and shows the usage on stderr.
func TestUnknownCommandsAndFlagsFail(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bogus"}, `unknown command "bogus"`},
		{[]string{"help", "bogus"}, `no command "bogus"`},
		{[]string{"serve", "--bogus"}, "usage: sous serve"},
		{[]string{"version", "extra"}, "usage: sous version"},
		{[]string{"foods", "import"}, "--sr28 must name the directory"},
		{[]string{"foods", "bogus"}, `unknown foods command "bogus"`},
	} {
		out, errOut, code := runBinary(t, c.args...)
		if code != 1 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("sous %s: exit %d, stdout %q, stderr %q; want exit 1 and %q", strings.Join(c.args, " "), code, out, errOut, c.want)
		}
	}
}

func findCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}
