// Command readmecheck runs the walk-throughs against a freshly started server: the ```sh blocks
// marked with <!-- readme-run --> in the README and in every guide under docs/guides (in the
// order of GuideOrder) are joined into one bash script run with `set -euo pipefail`, so any
// failing command or non-2xx answer (every curl uses -f) fails.
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
	var srv *Server
	if api == "" {
		work, err := os.MkdirTemp("", "readmecheck")
		if err != nil {
			return err
		}
		defer os.RemoveAll(work)
		srv, err = Start(ctx, Options{Repo: repo, WorkDir: work})
		if err != nil {
			return err
		}
		defer srv.Stop()
		api = srv.API
	}
	env, err := WalkthroughEnv(repo, srv)
	if err != nil {
		return err
	}
	out, err := RunWalkthroughs(ctx, repo, api, env...)
	os.Stdout.Write(out)
	return err
}

// WalkthroughEnv is what the walk-throughs are told besides API, for the nutrition guide's
// import of USDA's files (`sous foods import`): SR28, where the files are ($SOUS_SR28_DIR, else
// ../shared/usda/sr28 beside the repository; the guide skips the import when they are absent),
// and, for a server started here, SOUS (the binary it serves) and DATABASE_URL (its database;
// empty for a private cluster, which the running server alone may use, so the import is skipped).
// Against a server of the caller's (srv nil), SOUS and DATABASE_URL are the caller's own.
func WalkthroughEnv(repo string, srv *Server) ([]string, error) {
	sr28 := os.Getenv("SOUS_SR28_DIR")
	if sr28 == "" {
		sr28 = filepath.Join(repo, "..", "shared", "usda", "sr28")
	}
	sr28, err := filepath.Abs(sr28)
	if err != nil {
		return nil, err
	}
	env := []string{"SR28=" + sr28}
	if srv != nil {
		env = append(env, "SOUS="+srv.Binary(), "DATABASE_URL="+srv.DatabaseURL)
	}
	return env, nil
}

// RunWalkthroughs runs the marked blocks of the README and the guides against api, as one
// script, and returns its combined output. env is added to the script's environment.
func RunWalkthroughs(ctx context.Context, repo, api string, env ...string) ([]byte, error) {
	blocks, err := Blocks(repo)
	if err != nil {
		return nil, err
	}
	// The walk-throughs save what they download (a PDF, a CSV) in the current directory, as a
	// reader's shell would: here that is a scratch directory, so a run changes no tracked file.
	dir, err := os.MkdirTemp("", "readmecheck-walkthrough")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", Script(blocks))
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), env...), "API="+api)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("the walk-through failed (the last '==' line above says where): %w", err)
	}
	return out, nil
}
