package main

import (
	"os/exec"
	"strings"
	"testing"
)

// `sous version` names the version and, when the binary was built from a git checkout (go build
// stamps a clone; not a git worktree, whose .git is a file, nor go run), the commit.
func TestVersionNamesTheRevision(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(sousBinary(t), "version").CombinedOutput()
	if err != nil {
		t.Fatalf("sous version: %v\n%s", err, out)
	}
	line := strings.TrimSpace(string(out))
	if !strings.HasPrefix(line, "sous ") {
		t.Fatalf("sous version printed %q", line)
	}
	stamped, _ := exec.Command("go", "version", "-m", sousBinary(t)).Output()
	if !strings.Contains(string(stamped), "vcs.revision=") {
		if !strings.Contains(line, "revision unknown") {
			t.Fatalf("an unstamped binary claims a revision: %q", line)
		}
		return
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("git is not available to compare the revision")
	}
	if !strings.Contains(line, "revision "+strings.TrimSpace(string(head))) {
		t.Fatalf("sous version %q, HEAD %s", line, head)
	}
}

func TestBuildLine(t *testing.T) {
	for b, want := range map[build]string{
		{Version: "1.4.0", Revision: "abc", Time: "2026-11-27T03:00:00Z"}:         "sous 1.4.0, revision abc (2026-11-27T03:00:00Z)",
		{Version: "(devel)", Revision: "abc", Modified: true}:                     "sous (devel), revision abc (with uncommitted changes)",
		{Version: "(devel)", Revision: "abc", Time: "2026-11-27", Modified: true}: "sous (devel), revision abc (2026-11-27, with uncommitted changes)",
		{Version: "(devel)"}: "sous (devel), revision unknown (built without version control information, e.g. by go run)",
	} {
		if got := b.String(); got != want {
			t.Errorf("%+v: %q, want %q", b, got, want)
		}
	}
}
