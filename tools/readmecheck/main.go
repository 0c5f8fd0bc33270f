// Command readmecheck runs the README's walk-through against a freshly started server: the
// ```sh blocks marked with <!-- readme-run --> are joined, in order, into one bash script run
// with `set -euo pipefail`, so any failing command or non-2xx answer (every curl uses -f) fails.
//
//	cd tools && go run ./readmecheck            # starts sous itself
//	cd tools && go run ./readmecheck -api http://localhost:8080/v1
//
// Its tests (go test ./readmecheck) run the same check, the TypeScript client package against
// the server, and the CORS browser test.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

func main() {
	repo := flag.String("repo", "..", "the repository root")
	api := flag.String("api", "", "run against this base URL (with /v1) instead of starting a server")
	flag.Parse()
	if err := run(*repo, *api); err != nil {
		fmt.Fprintln(os.Stderr, "readmecheck:", err)
		os.Exit(1)
	}
}

func run(repo, api string) error {
	ctx := context.Background()
	if api == "" {
		work, err := os.MkdirTemp("", "readmecheck")
		if err != nil {
			return err
		}
		defer os.RemoveAll(work)
		srv, err := Start(ctx, Options{Repo: repo, WorkDir: work})
		if err != nil {
			return err
		}
		defer srv.Stop()
		api = srv.API
	}
	out, err := RunREADME(ctx, filepath.Join(repo, "README.md"), api)
	os.Stdout.Write(out)
	return err
}

// RunREADME runs the README's marked blocks against api and returns their combined output.
func RunREADME(ctx context.Context, readme, api string) ([]byte, error) {
	md, err := os.ReadFile(readme)
	if err != nil {
		return nil, err
	}
	blocks, err := Extract(string(md))
	if err != nil {
		return nil, err
	}
	if len(blocks) == 0 {
		return nil, fmt.Errorf("%s has no block marked %s", readme, Marker)
	}
	for _, b := range blocks {
		if err := CheckFailFast(b); err != nil {
			return nil, err
		}
	}
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", Script(blocks))
	cmd.Env = append(os.Environ(), "API="+api)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("the README's walk-through failed: %w", err)
	}
	return out, nil
}
