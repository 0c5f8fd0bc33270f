package pg

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

type binaries struct {
	initdb, pgCtl, postgres string
}

// Debian/Ubuntu install the server outside PATH, one directory per major
// version; source builds default to /usr/local/pgsql.
const (
	debianRoot = "/usr/lib/postgresql"
	sourceBin  = "/usr/local/pgsql/bin"
)

// findBinaries locates initdb, pg_ctl and postgres of a single installation.
// An existing cluster can only be run by its own major version, so when
// clusterVersion is known that version's Debian directory is tried first.
func findBinaries(clusterVersion string) (binaries, error) {
	var candidates []binaries
	if clusterVersion != "" {
		candidates = append(candidates, binariesIn(filepath.Join(debianRoot, clusterVersion, "bin")))
	}
	if b, ok := binariesOnPath(); ok {
		candidates = append(candidates, b)
	}
	for _, v := range debianVersions() {
		candidates = append(candidates, binariesIn(filepath.Join(debianRoot, v, "bin")))
	}
	candidates = append(candidates, binariesIn(sourceBin))

	for _, b := range candidates {
		if isExecutable(b.initdb) && isExecutable(b.pgCtl) && isExecutable(b.postgres) {
			return b, nil
		}
	}
	return binaries{}, errors.New("pg: PostgreSQL server binaries (initdb, pg_ctl, postgres) not found on PATH, under " +
		debianRoot + "/<version>/bin or in " + sourceBin + "; install the PostgreSQL server package")
}

func binariesIn(dir string) binaries {
	return binaries{
		initdb:   filepath.Join(dir, "initdb"),
		pgCtl:    filepath.Join(dir, "pg_ctl"),
		postgres: filepath.Join(dir, "postgres"),
	}
}

func binariesOnPath() (binaries, bool) {
	var b binaries
	for _, f := range []struct {
		name string
		dst  *string
	}{{"initdb", &b.initdb}, {"pg_ctl", &b.pgCtl}, {"postgres", &b.postgres}} {
		p, err := exec.LookPath(f.name)
		if err != nil {
			return binaries{}, false
		}
		// pg_ctl is given the postgres path explicitly, and when running as
		// the postgres user a relative PATH entry would resolve elsewhere.
		if p, err = filepath.Abs(p); err != nil {
			return binaries{}, false
		}
		*f.dst = p
	}
	return b, true
}

// debianVersions lists the installed major versions, highest first.
func debianVersions() []string {
	entries, err := os.ReadDir(debianRoot)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return sortVersions(names)
}

// sortVersions drops names that are not versions and orders the rest
// highest first.
func sortVersions(names []string) []string {
	var versions []string
	for _, n := range names {
		if versionKey(n) != nil {
			versions = append(versions, n)
		}
	}
	slices.SortFunc(versions, func(a, b string) int {
		return slices.Compare(versionKey(b), versionKey(a))
	})
	return versions
}

// versionKey parses "15" or "9.6" for numeric comparison (so 10 > 9.6); nil
// for names that are not versions.
func versionKey(s string) []int {
	var key []int
	for _, part := range strings.Split(s, ".") {
		n, err := strconv.Atoi(part)
		if err != nil {
			return nil
		}
		key = append(key, n)
	}
	return key
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// clusterVersion returns the major version recorded in dir's PG_VERSION, or
// "" when dir holds no cluster.
func clusterVersion(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "PG_VERSION"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
