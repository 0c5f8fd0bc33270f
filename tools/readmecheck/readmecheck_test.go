package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// One server for every test of the package, started like a reader starts it, with the page
// servers of the browser test already listening so their origins can be allowed.
var (
	srv     *Server
	repo    string
	allowed *httptest.Server // a frontend's origin, in SOUS_CORS_ORIGINS
	foreign *httptest.Server // another origin, not allowed
)

func TestMain(m *testing.M) {
	os.Exit(func() int {
		var err error
		if repo, err = filepath.Abs("../.."); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		allowed, foreign = httptest.NewServer(http.HandlerFunc(servePage)), httptest.NewServer(http.HandlerFunc(servePage))
		defer allowed.Close()
		defer foreign.Close()
		work, err := os.MkdirTemp("", "readmecheck")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(work)
		srv, err = Start(context.Background(), Options{Repo: repo, WorkDir: work, CORSOrigins: []string{allowed.URL}})
		if err != nil {
			fmt.Fprintln(os.Stderr, "start sous:", err)
			return 1
		}
		defer srv.Stop()
		defer stopHostedPages()
		return m.Run()
	}())
}

// TestWalkthroughs runs the README's first session and every guide after it, as a reader who
// pastes them one after another would.
func TestWalkthroughs(t *testing.T) {
	env, err := WalkthroughEnv(repo, srv)
	if err != nil {
		t.Fatal(err)
	}
	out, err := RunWalkthroughs(t.Context(), repo, srv.API, env...)
	if err != nil {
		t.Fatalf("%v\n%s\nserver log:\n%s", err, out, srv.Log())
	}
}

// TestEveryGuideRuns: every guide file is in GuideOrder, and the guide index lists the guides
// in that order. The guides of indexLater may run before the index names them.
func TestEveryGuideRuns(t *testing.T) {
	docs, err := Documents(repo)
	if err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(repo, GuidesDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	at := -1
	for _, doc := range docs[1:] {
		name := strings.TrimPrefix(doc, GuidesDir+"/")
		i := strings.Index(string(index), "]("+name+")")
		if i < 0 && slices.Contains(indexLater, name) {
			t.Logf("%s/README.md does not link %s yet", GuidesDir, name)
			continue
		}
		if i < 0 {
			t.Errorf("%s/README.md does not link %s", GuidesDir, name)
			continue
		}
		if i < at {
			t.Errorf("%s/README.md lists %s out of the walk-through's order (GuideOrder)", GuidesDir, name)
		}
		at = i
	}
}

// indexLater are guides listed in GuideOrder whose line in the index comes with them.
var indexLater = []string{"sensors.md", "hosted-pages.md", "clinical-fhir.md"}

func TestAGuideNotInTheOrderFails(t *testing.T) {
	dir := t.TempDir()
	guides := filepath.Join(dir, GuidesDir)
	if err := os.MkdirAll(guides, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"README.md", "stock.md", "zebra.md"} {
		if err := os.WriteFile(filepath.Join(guides, f), []byte("# x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Documents(dir); err == nil || !strings.Contains(err.Error(), "zebra.md") {
		t.Fatalf("an unlisted guide passed: %v", err)
	}
	if err := os.Remove(filepath.Join(guides, "zebra.md")); err != nil {
		t.Fatal(err)
	}
	docs, err := Documents(dir)
	if err != nil || strings.Join(docs, ",") != "README.md,docs/guides/stock.md" {
		t.Fatalf("documents %v, %v", docs, err)
	}
}

func TestExtractTakesOnlyMarkedShellBlocks(t *testing.T) {
	md := "# x\n```sh\ngo run ./cmd/sous\n```\n<!-- readme-run -->\n```sh\necho one\n```\ntext\n<!-- readme-run -->\n\n```sh\necho two\n```\n```go\nfunc main() {}\n```\n"
	blocks, err := Extract(md)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || blocks[0].Text != "echo one\n" || blocks[1].Text != "echo two\n" || blocks[0].Line != 6 {
		t.Fatalf("blocks %+v", blocks)
	}
	for _, bad := range []string{"<!-- readme-run -->\n```go\nx\n```\n", "<!-- readme-run -->\ntext\n```sh\nx\n```\n", "<!-- readme-run -->\n```sh\nx\n"} {
		if _, err := Extract(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestEveryCurlFailsOnAnError(t *testing.T) {
	for text, ok := range map[string]bool{
		"curl -fsS $API/x\n":                         true,
		"X=$(curl --fail $API/x | jq .)\n":           true,
		"curl -s $API/x\n":                           false,
		"X=$(curl -s \"$API/x\" \\\n  -f)\n":         true,
		"# curl -s in a comment\n":                   true,
		"curl -sS \"$API/x\" -H 'x: y' | jq -r .a\n": false,
	} {
		if err := CheckFailFast(Block{Line: 1, Text: text}); (err == nil) != ok {
			t.Errorf("%q: %v", text, err)
		}
	}
	// The walk-through itself fails on a non-2xx: a wrong token stops it.
	script := Script([]Block{{Line: 1, Text: `curl -fsS "$API/auth/me" -H "authorization: Bearer nope"` + "\n"}, {Line: 2, Text: "echo reached\n"}})
	out, err := runScript(t, script)
	if err == nil || strings.Contains(out, "reached") {
		t.Fatalf("a 401 did not stop the script: %s", out)
	}
}
