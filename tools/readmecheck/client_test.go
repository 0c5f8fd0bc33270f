package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestTypeScriptClientPackage installs gen/ts from the repository path into a fresh project as
// docs/reference/typescript-client.md shows, compiles a frontend's use of it with tsc and runs it with node against the
// server: registration, a create with Location, a paged list walked through Link, a typed error.
func TestTypeScriptClientPackage(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is required (the tools' npm side needs it too)")
	}
	dir := t.TempDir()
	for _, f := range []string{"main.ts", "refresh.ts", "tsconfig.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "consumer", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The page's example is compiled too (not run: it names a production URL).
	md, err := os.ReadFile(filepath.Join(repo, "docs", "reference", "typescript-client.md"))
	if err != nil {
		t.Fatal(err)
	}
	example, err := sectionBlock("\n"+string(md), "# TypeScript client package", "```ts")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "readme.ts"), []byte(example), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"frontend","private":true,"type":"module"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) []byte {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "SOUS_API="+srv.API)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return out
	}
	// install-links (in .npmrc, as the page says) copies the package, as a registry install
	// would, instead of linking it, also on every later plain `npm install`; openapi-fetch comes
	// from the npm cache that installing the tools filled.
	if err := os.WriteFile(filepath.Join(dir, ".npmrc"), []byte("install-links=true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("npm", "install", "--prefer-offline", "--no-audit", "--no-fund", filepath.Join(repo, "gen", "ts"))
	run("npm", "install", "--prefer-offline", "--no-audit", "--no-fund")
	if fi, err := os.Lstat(filepath.Join(dir, "node_modules", "@sous", "api-client")); err != nil || fi.Mode()&os.ModeSymlink != 0 || !fi.IsDir() {
		t.Fatalf("after a second npm install, the package is not a copied directory: %v %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "openapi-fetch", "package.json")); err != nil {
		t.Fatalf("after a second npm install, openapi-fetch is gone: %v", err)
	}
	run(filepath.Join(repo, "tools", "node_modules", ".bin", "tsc"), "-p", ".")
	out := run("node", filepath.Join("dist", "main.js"))

	var got struct {
		Location string
		Names    []string
		Error    *struct {
			Status int
			Code   string
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node printed %s", out)
	}
	want := []string{"Screen 1", "Screen 2", "Screen 3", "Screen 4", "Screen 5"}
	slices.Sort(got.Names)
	if got.Location != "/v1/auth/me" || !slices.Equal(got.Names, want) || got.Error == nil || got.Error.Status != 404 || got.Error.Code != "not_found" {
		t.Fatalf("client run: %s", out)
	}

	// Refresh on expiry and the device token, against a fake API (refresh.ts says what).
	var refresh struct {
		Results    []any
		Refreshes  int
		Kept       string
		AfterOK    bool `json:"afterOk"`
		PostBodies []string
		StaleCode  string
		Devices    []string
	}
	out = run("node", filepath.Join("dist", "refresh.js"))
	if err := json.Unmarshal(out, &refresh); err != nil {
		t.Fatalf("node printed %s", out)
	}
	body := `{"name":"Harborview"}`
	if fmt.Sprint(refresh.Results) != "[a@example.com a@example.com a@example.com a@example.com a@example.com 200]" ||
		refresh.Refreshes != 2 || refresh.Kept != "r2" || !refresh.AfterOK ||
		!slices.Equal(refresh.PostBodies, []string{body, body}) ||
		refresh.StaleCode != "invalid_refresh_token" || !slices.Equal(refresh.Devices, []string{"sous_dev_x"}) {
		t.Fatalf("refresh run: %s", out)
	}
}

// TestTypeScriptClientCommonJS installs gen/ts into a project `npm init -y` makes (CommonJS, as
// npm makes it by default), require()s the package from plain JavaScript and runs it with node
// against the server, then type-checks and runs a TypeScript use compiled with "module":
// "commonjs" (and type-checks it with "node16", which reads the package's exports map).
func TestTypeScriptClientCommonJS(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is required (the tools' npm side needs it too)")
	}
	dir := t.TempDir()
	run := func(name string, args ...string) []byte {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "SOUS_API="+srv.API)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return out
	}
	run("npm", "init", "-y")
	var pkg struct{ Type string }
	if b, err := os.ReadFile(filepath.Join(dir, "package.json")); err != nil || json.Unmarshal(b, &pkg) != nil {
		t.Fatalf("npm init -y wrote no package.json: %v", err)
	}
	if pkg.Type != "" && pkg.Type != "commonjs" {
		t.Fatalf("npm init -y made a %q project; this test is about CommonJS", pkg.Type)
	}
	for _, f := range []string{"main.js", "typed.ts", "tsconfig.json", "tsconfig.node16.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "commonjs", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".npmrc"), []byte("install-links=true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("npm", "install", "--prefer-offline", "--no-audit", "--no-fund", filepath.Join(repo, "gen", "ts"))

	out := run("node", "main.js")
	var got struct {
		Location string
		Names    []string
		Error    *struct {
			Status int
			Code   string
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node main.js printed %s", out)
	}
	slices.Sort(got.Names)
	if !strings.HasPrefix(got.Location, "/v1/orgs/") || !slices.Equal(got.Names, []string{"Screen 1", "Screen 2", "Screen 3"}) ||
		got.Error == nil || got.Error.Status != 404 || got.Error.Code != "not_found" {
		t.Fatalf("require() run: %s", out)
	}
	// Both entries are what node loads: the CommonJS one for require, with openapi-fetch's own
	// CommonJS build beside it.
	if out := strings.TrimSpace(string(run("node", "-p", `require.resolve("@sous/api-client") + " " + require.resolve("openapi-fetch")`))); !strings.HasSuffix(strings.Fields(out)[0], filepath.Join("dist", "index.cjs")) ||
		!strings.HasSuffix(out, filepath.Join("dist", "index.cjs")) {
		t.Fatalf("require resolves %s", out)
	}

	// The page's CommonJS steps, as shown, in a directory beside a checkout named sous.
	md, err := os.ReadFile(filepath.Join(repo, "docs", "reference", "typescript-client.md"))
	if err != nil {
		t.Fatal(err)
	}
	var steps string
	for _, b := range shellBlocks(string(md)) {
		if strings.Contains(b, "npm init -y") {
			steps = b
		}
	}
	shown := regexp.MustCompile(`node main\.js +# → (.*)`).FindStringSubmatch(steps)
	if shown == nil {
		t.Fatal("typescript-client.md shows no CommonJS steps ending in `node main.js  # → …`")
	}
	beside := t.TempDir()
	if err := os.Symlink(repo, filepath.Join(beside, "sous")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "bash", "-euo", "pipefail", "-c", steps)
	cmd.Dir = beside
	cmd.Env = append(os.Environ(), "API="+srv.API)
	stepsOut, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the page's CommonJS steps: %v\n%s", err, stepsOut)
	}
	if lines := strings.Split(strings.TrimSpace(string(stepsOut)), "\n"); lines[len(lines)-1] != shown[1] {
		t.Fatalf("the page's CommonJS steps printed\n%s\nthe page shows %q", stepsOut, shown[1])
	}

	tsc := filepath.Join(repo, "tools", "node_modules", ".bin", "tsc")
	run(tsc, "-p", "tsconfig.node16.json")
	run(tsc, "-p", ".")
	out = run("node", filepath.Join("dist", "typed.js"))
	if strings.TrimSpace(string(out)) != `{"site":"Main Kitchen","code":"not_found"}` {
		t.Fatalf("typed.ts compiled to CommonJS printed %s", out)
	}
}

// sectionBlock returns the first fenced block opened by fence under the heading.
func sectionBlock(md, heading, fence string) (string, error) {
	i := strings.Index(md, "\n"+heading+"\n")
	if i < 0 {
		return "", fmt.Errorf("the page has no %q", heading)
	}
	rest := md[i+len(heading)+2:]
	if next := strings.Index(rest, "\n# "); next >= 0 {
		rest = rest[:next]
	}
	start := strings.Index(rest, "\n"+fence+"\n")
	if start < 0 {
		return "", fmt.Errorf("the page's %q has no %s block", heading, fence)
	}
	body := rest[start+len(fence)+2:]
	end := strings.Index(body, "\n```")
	if end < 0 {
		return "", fmt.Errorf("the page's %q: unterminated block", heading)
	}
	return body[:end+1], nil
}
