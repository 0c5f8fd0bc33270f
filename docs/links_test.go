package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	link       = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	inlineCode = regexp.MustCompile("`[^`\n]*`")
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*)$`)
	notSlug    = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// TestRelativeLinksResolve: every relative link of every Markdown file of the repository names
// a file that exists and, when it has a #fragment, a heading of that file (GitHub's anchors).
func TestRelativeLinksResolve(t *testing.T) {
	root := ".."
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		a := map[string]bool{}
		if b, err := os.ReadFile(path); err == nil {
			seen := map[string]int{}
			for _, l := range proseLines(string(b)) {
				m := heading.FindStringSubmatch(l)
				if m == nil {
					continue
				}
				s := slug(m[1])
				if n := seen[s]; n > 0 {
					a[s+"-"+strconv.Itoa(n)] = true
				} else {
					a[s] = true
				}
				seen[s]++
			}
		}
		anchors[path] = a
		return a
	}
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for n, l := range proseLines(string(b)) {
			for _, m := range link.FindAllStringSubmatch(inlineCode.ReplaceAllString(l, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				file, frag, _ := strings.Cut(target, "#")
				dest := path
				if file != "" {
					dest = filepath.Join(filepath.Dir(path), file)
					if _, err := os.Stat(dest); err != nil {
						t.Errorf("%s:%d: %s: no such file", path, n+1, target)
						continue
					}
				}
				if frag != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[frag] {
					t.Errorf("%s:%d: %s: no heading with that anchor in %s", path, n+1, target, dest)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d relative links found: is the walk reading the repository?", checked)
	}
}

// proseLines returns the lines of a Markdown text with fenced code blocks blanked out, so their
// line numbers stay.
func proseLines(md string) []string {
	lines := strings.Split(md, "\n")
	fence := ""
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		switch {
		case fence == "" && strings.HasPrefix(trimmed, "```"):
			fence = "```"
			lines[i] = ""
		case fence != "" && trimmed == fence:
			fence = ""
			lines[i] = ""
		case fence != "":
			lines[i] = ""
		}
	}
	return lines
}

// slug is GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
func slug(h string) string {
	return strings.ReplaceAll(notSlug.ReplaceAllString(strings.ToLower(strings.TrimSpace(h)), ""), " ", "-")
}

func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"Catching up: the event feed": "catching-up-the-event-feed",
		"Browser apps (CORS)":         "browser-apps-cors",
		"`sous version`":              "sous-version",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
}
