package main

import (
	"fmt"
	"runtime/debug"
)

// version is the release this binary is, set at release builds with
// -ldflags "-X main.version=1.4.0"; otherwise the module version Go recorded ("(devel)" for a
// build from a checkout).
var version = ""

// build is what the binary knows of its own making: the version, and the source revision Go's
// build stamps from the checkout it was built in (go build records it; go run does not).
type build struct {
	Version  string
	Revision string // the commit, "" when unknown
	Time     string // the commit's time (RFC 3339), "" when unknown
	Modified bool   // the checkout had uncommitted changes
}

func readBuild() build {
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

// String is the line `sous version` prints: "sous (devel), revision 1a2b3c… (2026-11-27T03:00:00Z, modified)".
func (b build) String() string {
	s := "sous " + b.Version
	if b.Revision == "" {
		return s + ", revision unknown (built without version control information, e.g. by go run)"
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
