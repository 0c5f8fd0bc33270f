// Package breaking tests tools/breaking.sh, the gate that fails CI on a breaking change to the
// published contract unless docs/api-changelog.md accepts it with a reason.
package breaking

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gate runs tools/breaking.sh on a contract that removes an operation of the released one.
func gate(t *testing.T, spec, changelog string, args ...string) (string, bool) {
	t.Helper()
	repo, _ := filepath.Abs("../..")
	cmd := exec.CommandContext(t.Context(), filepath.Join(repo, "tools", "breaking.sh"), args...)
	cmd.Env = append(os.Environ(), "BREAKING_SPEC="+spec, "BREAKING_CHANGELOG="+changelog, "BREAKING_BASE_REF=none")
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return string(out), err == nil
}

func TestBreakingChangeFailsUnlessAcceptedWithAReason(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	baseline, err := os.ReadFile(filepath.Join(repo, "openapi", "baseline.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// Remove POST /auth/logout from the released contract.
	text := string(baseline)
	start := strings.Index(text, "\n  /auth/logout:\n")
	end := strings.Index(text[start+1:], "\n  /auth/password:\n")
	if start < 0 || end < 0 {
		t.Fatal("fixture: /auth/logout not found in the baseline")
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "openapi.yaml")
	if err := os.WriteFile(spec, []byte(text[:start]+text[start+1+end:]), 0o644); err != nil {
		t.Fatal(err)
	}
	changelog := filepath.Join(dir, "api-changelog.md")
	write := func(accepted string) {
		doc := "# API changelog\n\n## Releases\n\n- POST /auth/logout removed — reason: not in this section\n\n## Accepted breaking changes\n\n" + accepted + "\n"
		if err := os.WriteFile(changelog, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	write("(none)")
	out, ok := gate(t, spec, changelog)
	if ok || !strings.Contains(out, "/auth/logout") {
		t.Fatalf("a removed operation passed the gate:\n%s", out)
	}

	// The changelog target prints the line to accept; without a reason it accepts nothing.
	lines, _ := gate(t, spec, changelog, "changelog")
	var entry string
	for _, l := range strings.Split(lines, "\n") {
		if strings.Contains(l, "POST /auth/logout") && strings.Contains(l, "reason:") {
			entry = l
		}
	}
	if entry == "" {
		t.Fatalf("changelog printed no entry for the removal:\n%s", lines)
	}
	write(entry)
	if out, ok := gate(t, spec, changelog); ok {
		t.Fatalf("an entry without a reason accepted the break:\n%s", out)
	}

	write(strings.Replace(entry, "reason: …", "reason: logout moved to DELETE /auth/session; clients were told in 1.1", 1))
	if out, ok := gate(t, spec, changelog); !ok {
		t.Fatalf("an accepted break with its reason still fails:\n%s", out)
	}
}

// The committed contract passes the gate against the released one.
func TestCurrentContractPasses(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	if out, ok := gate(t, filepath.Join(repo, "gen", "openapi.yaml"), filepath.Join(repo, "docs", "api-changelog.md")); !ok {
		t.Fatalf("%s", out)
	}
}
