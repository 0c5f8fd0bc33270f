package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
)

// version is the release this binary is, set at release builds with
// -ldflags "-X main.version=1.4.0"; otherwise the module version Go recorded ("(devel)" for a
// build from a checkout).
var version = ""

// build is what the binary knows of its own making: the version, and the source revision. go
// build stamps the revision from the checkout it builds in; go run (the README's way) stamps
// nothing, so then the checkout the binary was compiled from is asked (see gitBuild).
type build struct {
	Version  string
	Revision string // the commit, "" when unknown
	Time     string // the commit's time (RFC 3339), "" when unknown
	Modified bool   // the checkout had uncommitted changes
}

// readBuild is the build, worked out once per process.
var readBuild = sync.OnceValue(func() build {
	b := stampedBuild()
	// Only a build from a checkout (module version "(devel)") is asked about: a binary built
	// from the module cache names its version already.
	if info, ok := debug.ReadBuildInfo(); b.Revision == "" && ok && (info.Main.Version == "(devel)" || info.Main.Version == "") {
		if g, ok := gitBuild(sourceDir()); ok {
			b.Revision, b.Time, b.Modified = g.Revision, g.Time, g.Modified
		}
	}
	return b
})

// stampedBuild is what Go recorded in the binary.
func stampedBuild() build {
	b := build{Version: version}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		if b.Version == "" {
			b.Version = "unknown"
		}
		return b
	}
	if b.Version == "" {
		b.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// sourceDir is the directory this file was compiled from ("" when the build trimmed paths): a
// binary that go run has just built from a checkout runs beside that checkout, whatever the
// working directory.
func sourceDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	return filepath.Dir(file)
}

// gitBuild asks git, when it is installed and dir is inside a work tree, for the commit checked
// out there, its time and whether the tree has uncommitted changes: what go build would have
// stamped. Each question has a short deadline; any failure means "unknown".
func gitBuild(dir string) (build, bool) {
	if dir == "" {
		return build{}, false
	}
	if _, err := exec.LookPath("git"); err != nil {
		return build{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "-c", "log.showsignature=false"}, args...)...)
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	head, err := git("show", "-s", "--format=%H %ct", "HEAD")
	if err != nil {
		return build{}, false
	}
	rev, unix, ok := strings.Cut(head, " ")
	if !ok || len(rev) < 40 {
		return build{}, false
	}
	b := build{Revision: rev}
	if secs, err := strconv.ParseInt(unix, 10, 64); err == nil {
		b.Time = time.Unix(secs, 0).UTC().Format(time.RFC3339)
	}
	status, err := git("status", "--porcelain")
	if err != nil {
		return build{}, false
	}
	b.Modified = status != ""
	return b, true
}

// String is the line `sous version` prints: "sous (devel), revision 1a2b3c… (2026-11-27T03:00:00Z, modified)".
func (b build) String() string {
	s := "sous " + b.Version
	if b.Revision == "" {
		return s + ", revision unknown (built without version control information, away from its checkout)"
	}
	s += ", revision " + b.Revision
	switch {
	case b.Time != "" && b.Modified:
		s += fmt.Sprintf(" (%s, with uncommitted changes)", b.Time)
	case b.Time != "":
		s += fmt.Sprintf(" (%s)", b.Time)
	case b.Modified:
		s += " (with uncommitted changes)"
	}
	return s
}
