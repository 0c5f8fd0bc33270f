package httpapi_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/httpapi"
)

// codeLiteral finds codes written as string literals where an error is built, in case someone
// bypasses the constants of internal/apierr/codes.go.
var codeLiteral = regexp.MustCompile(`(?:WithCode\(|Unavailable\(|Code:\s*)"([a-z0-9_]+)"`)

// codeConstant finds the constants of internal/apierr used anywhere in the server's code.
var codeConstant = regexp.MustCompile(`apierr\.(Code[A-Za-z0-9]+)\b`)

// TestEveryErrorCodeIsInTheSpec holds the spec's ErrorCode enum, the Go registry of codes
// (apierr.Codes), every code literal in the source and the README's table to one list: a client
// generated from the spec knows every code the server can send.
func TestEveryErrorCodeIsInTheSpec(t *testing.T) {
	doc, err := httpapi.LoadSpec()
	if err != nil {
		t.Fatal(err)
	}
	var enum []string
	for _, v := range doc.Components.Schemas["ErrorCode"].Value.Enum {
		enum = append(enum, v.(string))
	}
	desc := doc.Components.Schemas["ErrorCode"].Value.Description
	for _, c := range apierr.Codes {
		if !slices.Contains(enum, c) {
			t.Errorf("code %q of apierr.Codes is missing from the spec's ErrorCode enum", c)
		}
	}
	readme, err := os.ReadFile("../../docs/reference/error-codes.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range enum {
		if !slices.Contains(apierr.Codes, c) {
			t.Errorf("spec code %q is not declared in internal/apierr/codes.go", c)
		}
		if !strings.Contains(desc, "`"+c+"`") {
			t.Errorf("spec code %q has no line in ErrorCode's description", c)
		}
		if !strings.Contains(string(readme), "| `"+c+"` |") {
			t.Errorf("code %q is missing from the error code table (docs/reference/error-codes.md)", c)
		}
	}

	// Every constant the code uses is registered (a constant added to codes.go but left out of
	// Codes would otherwise slip through), and no literal bypasses the registry.
	constants := constantValues(t)
	err = filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "gen" || d.Name() == "tools" || strings.HasPrefix(d.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range codeLiteral.FindAllStringSubmatch(string(src), -1) {
			if !slices.Contains(enum, m[1]) {
				t.Errorf("%s: code %q is not in the spec's enum", path, m[1])
			}
		}
		for _, m := range codeConstant.FindAllStringSubmatch(string(src), -1) {
			v, ok := constants[m[1]]
			if !ok {
				t.Errorf("%s: apierr.%s is not a code constant", path, m[1])
			} else if !slices.Contains(enum, v) {
				t.Errorf("%s: apierr.%s = %q is not in the spec's enum", path, m[1], v)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

var constantDecl = regexp.MustCompile(`(?m)^\s*(Code[A-Za-z0-9]+)\s*=\s*"([a-z0-9_]+)"`)

func constantValues(t *testing.T) map[string]string {
	src, err := os.ReadFile("../apierr/codes.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range constantDecl.FindAllStringSubmatch(string(src), -1) {
		out[m[1]] = m[2]
	}
	if len(out) != len(apierr.Codes) {
		t.Errorf("codes.go declares %d constants, apierr.Codes lists %d", len(out), len(apierr.Codes))
	}
	return out
}
