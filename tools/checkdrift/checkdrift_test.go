// Package checkdrift tests tools/check-drift.sh, the drift check `task check` runs.
package checkdrift

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// run executes the drift check with a fake git that prints out and exits with code.
func run(t *testing.T, out string, code int) (string, error) {
	t.Helper()
	bin := t.TempDir()
	fake := "#!/bin/sh\nprintf '%s' '" + out + "'\nexit " + string(rune('0'+code)) + "\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("../check-drift.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", script)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	res, err := cmd.CombinedOutput()
	return string(res), err
}

func TestDriftCheck(t *testing.T) {
	t.Parallel()
	if out, err := run(t, "", 0); err != nil || !strings.Contains(out, "No drift.") {
		t.Fatalf("clean tree: %v %q", err, out)
	}
	if out, err := run(t, " M gen/openapi.yaml", 0); err == nil || strings.Contains(out, "No drift.") {
		t.Fatalf("changed file: %v %q", err, out)
	}
	// git itself fails (not a repository, exit 128 in real life): the check fails.
	if out, err := run(t, "", 1); err == nil || strings.Contains(out, "No drift.") || !strings.Contains(out, "git status failed") {
		t.Fatalf("failing git: %v %q", err, out)
	}
}
