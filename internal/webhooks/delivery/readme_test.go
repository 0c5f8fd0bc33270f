package delivery_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The webhooks guide's receivers are the code that is compiled: the Go one here (receiver_example_test.go,
// run by ExampleVerify) and the TypeScript one by the TypeScript check (tools/ts). A guide edit
// that is not made to the compiled file, or the other way round, fails here.
func TestReadmeShowsTheCompiledReceivers(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	guide := read(t, filepath.Join(root, "docs", "guides", "webhooks.md"))
	start := strings.Index(guide, "\n## Verifying a delivery\n")
	if start < 0 {
		t.Fatal("docs/guides/webhooks.md has no \"Verifying a delivery\" section")
	}
	section := guide[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}

	for _, c := range []struct{ lang, file, from string }{
		{"go", "receiver_example_test.go", "import ("},
		{"ts", filepath.Join(root, "tools", "ts", "webhook-receiver.ts"), "import "},
	} {
		block := fenced(t, section, c.lang)
		src := read(t, c.file)
		i := strings.Index(src, c.from)
		if i < 0 {
			t.Fatalf("%s has no %q", c.file, c.from)
		}
		if want := strings.TrimSpace(src[i:]); block != want {
			t.Errorf("the guide's %s receiver differs from %s (from %q on):\n--- guide\n%s\n--- %s\n%s", c.lang, c.file, c.from, block, c.file, want)
		}
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fenced returns the body of the section's only ```lang block.
func fenced(t *testing.T, section, lang string) string {
	t.Helper()
	open := "```" + lang + "\n"
	if strings.Count(section, open) != 1 {
		t.Fatalf("the guide's verifying section has %d %s blocks, want 1", strings.Count(section, open), lang)
	}
	body := section[strings.Index(section, open)+len(open):]
	end := strings.Index(body, "\n```")
	if end < 0 {
		t.Fatalf("unterminated %s block", lang)
	}
	return strings.TrimSpace(body[:end])
}
