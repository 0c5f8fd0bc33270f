package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/pg/pgtest"
)

// checkoutHead is the commit checked out where the tests run, or "" outside a git checkout.
func checkoutHead(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		return ""
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(head))
}

// `sous version` names the version and the commit: stamped by go build, or (a binary without
// version control information, built from a checkout) asked of git in that checkout.
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
	head := checkoutHead(t)
	if head == "" {
		t.Skip("not in a git checkout: nothing to compare the revision with")
	}
	if !strings.Contains(line, "revision "+head) {
		t.Fatalf("sous version %q, HEAD %s", line, head)
	}
}

// The README's way, `go run ./cmd/sous`, stamps no revision; `sous version` names it anyway.
func TestGoRunVersionNamesTheRevision(t *testing.T) {
	t.Parallel()
	head := checkoutHead(t)
	if head == "" {
		t.Skip("not in a git checkout")
	}
	out, err := exec.CommandContext(t.Context(), "go", "run", ".", "version").CombinedOutput()
	if err != nil {
		t.Fatalf("go run . version: %v\n%s", err, out)
	}
	if line := strings.TrimSpace(string(out)); !strings.Contains(line, "revision "+head) {
		t.Fatalf("go run . version printed %q; HEAD is %s", line, head)
	}
}

// A binary without version control information (as go run builds it) names the checkout's
// revision in sous_build_info and in its "serving" log line.
func TestUnstampedBinaryMetricNamesTheRevision(t *testing.T) {
	t.Parallel()
	head := checkoutHead(t)
	if head == "" {
		t.Skip("not in a git checkout")
	}
	bin := filepath.Join(t.TempDir(), "sous")
	if out, err := exec.Command("go", "build", "-buildvcs=false", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if info, _ := exec.Command("go", "version", "-m", bin).Output(); strings.Contains(string(info), "vcs.revision") {
		t.Fatalf("-buildvcs=false stamped a revision:\n%s", info)
	}
	_, waitLog, _ := startBinaryLogged(t, bin, "DATABASE_URL="+pgtest.NewURL(t), "SOUS_ADDR=127.0.0.1:0",
		"SOUS_DATA_DIR="+t.TempDir(), "SOUS_ACCESS_LOG=false", "SOUS_METRICS_ADDR=127.0.0.1:0")
	metricsAddr, _ := waitLog("metrics listening")["addr"].(string)
	if rev := waitLog("serving")["revision"]; rev != head {
		t.Errorf("the serving line names revision %v; HEAD is %s", rev, head)
	}
	code, body := getStatus(t, "http://"+metricsAddr+"/metrics")
	var info string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "sous_build_info{") {
			info = l
		}
	}
	if code != 200 || !strings.Contains(info, `revision="`+head+`"`) {
		t.Fatalf("sous_build_info %q (status %d); HEAD is %s", info, code, head)
	}
}

// gitBuild reads what go build would have stamped: the commit, its time, uncommitted changes.
func TestGitBuildReadsTheCheckout(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=Ana", "-c", "user.email=ana@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE=2026-03-02T14:00:00+01:00", "GIT_AUTHOR_DATE=2026-03-02T14:00:00+01:00")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if _, ok := gitBuild(dir); ok {
		t.Fatal("a directory outside any checkout has a revision")
	}
	git("init", "-q")
	if _, ok := gitBuild(dir); ok {
		t.Fatal("a checkout without a commit has a revision")
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "first")
	head := git("rev-parse", "HEAD")
	sub := filepath.Join(dir, "cmd", "sous")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	// An empty directory is no change to git; the build is read from a folder inside the tree.
	b, ok := gitBuild(sub)
	want := build{Revision: head, Time: time.Date(2026, 3, 2, 13, 0, 0, 0, time.UTC).Format(time.RFC3339)}
	if !ok || b != want {
		t.Fatalf("clean checkout: %+v %v, want %+v", b, ok, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main // changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want.Modified = true
	if b, ok := gitBuild(sub); !ok || b != want {
		t.Fatalf("changed checkout: %+v %v, want %+v", b, ok, want)
	}
	if got := want.String(); got != "sous , revision "+head+" (2026-03-02T13:00:00Z, with uncommitted changes)" {
		t.Fatalf("line %q", got)
	}
}

func TestBuildLine(t *testing.T) {
	for b, want := range map[build]string{
		{Version: "1.4.0", Revision: "abc", Time: "2026-11-27T03:00:00Z"}:         "sous 1.4.0, revision abc (2026-11-27T03:00:00Z)",
		{Version: "(devel)", Revision: "abc", Modified: true}:                     "sous (devel), revision abc (with uncommitted changes)",
		{Version: "(devel)", Revision: "abc", Time: "2026-11-27", Modified: true}: "sous (devel), revision abc (2026-11-27, with uncommitted changes)",
		{Version: "(devel)"}: "sous (devel), revision unknown (built without version control information, away from its checkout)",
	} {
		if got := b.String(); got != want {
			t.Errorf("%+v: %q, want %q", b, got, want)
		}
	}
}
