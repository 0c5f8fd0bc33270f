package pg

import (
	"slices"
	"strings"
	"testing"
)

func TestSortVersionsHighestFirst(t *testing.T) {
	got := sortVersions([]string{"9.6", "15", "10", "README", "16"})
	if want := []string{"16", "15", "10", "9.6"}; !slices.Equal(got, want) {
		t.Fatalf("sortVersions = %q, want %q", got, want)
	}
}

func TestSocketDirSetting(t *testing.T) {
	if got := socketDirSetting("/tmp/x", 5432); got != "/tmp/x" {
		t.Errorf("plain dir: %q", got)
	}
	if got := socketDirSetting("/tmp/a b,c", 5432); got != `"/tmp/a b,c"` {
		t.Errorf("dir with space and comma: %q", got)
	}
	// Beyond sun_path's limit the server would fail to start; TCP suffices.
	if got := socketDirSetting("/"+strings.Repeat("d", 100), 5432); got != "" {
		t.Errorf("overlong dir: %q, want unix sockets disabled", got)
	}
}

func TestShellQuote(t *testing.T) {
	if got, want := shellQuote(`it's`), `'it'\''s'`; got != want {
		t.Fatalf("shellQuote = %s, want %s", got, want)
	}
}
