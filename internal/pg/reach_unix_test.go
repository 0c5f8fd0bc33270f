//go:build unix

package pg

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReachableByServer(t *testing.T) {
	if os.Geteuid() != 0 {
		ok, err := ReachableByServer(t.TempDir())
		if err != nil || !ok {
			t.Fatalf("as an ordinary user the server runs as us: %v %v", ok, err)
		}
		return
	}
	private := filepath.Join(t.TempDir(), "private") // t.TempDir's parent is 0700, root's own
	open := filepath.Join(os.TempDir(), "sous-reach-test")
	if err := os.MkdirAll(open, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(open) })
	if err := os.Chmod(filepath.Dir(private), 0o700); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]bool{
		filepath.Join(private, "pgdata"): false,
		filepath.Join(open, "pgdata"):    true,
	} {
		if got, err := ReachableByServer(dir); err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", dir, got, err, want)
		}
	}
}
