package main

import (
	"os"
	"testing"
)

// missingTool skips a test whose real peer (pgbouncer, prometheus, haproxy, openssl) is not
// installed, so plain `go test ./...` runs anywhere; under the README's test command
// (SOUS_TEST_REQUIRE_TOOLS=1, set by tools/test.sh after installing them) it fails instead, so
// a test that should have run cannot pass by skipping.
func missingTool(t *testing.T, tool, install string) {
	t.Helper()
	if os.Getenv("SOUS_TEST_REQUIRE_TOOLS") != "" {
		t.Fatalf("%s is not installed (%s), and SOUS_TEST_REQUIRE_TOOLS is set", tool, install)
	}
	t.Skipf("%s is not installed (%s); the README's test command installs it", tool, install)
}
