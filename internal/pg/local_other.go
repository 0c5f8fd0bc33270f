//go:build !unix

package pg

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// runAs is trivial where there is no root to step down from.
type runAs struct{}

func currentRunAs() (runAs, error) { return runAs{}, nil }

func (runAs) command(ctx context.Context, path string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, path, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(strings.ToUpper(kv), "PG") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	return cmd
}

func (runAs) prepareDataDir(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("pg: create parent of data directory: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return fmt.Errorf("pg: create data directory: %w", err)
	}
	return nil
}

func (runAs) hint(string) string { return "" }

func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}

func pidExists(pid int) bool { return processAlive(pid) }

func processCwd(int) (string, bool) { return "", false }

// ReachableByServer is always true where the server runs as the current user.
func ReachableByServer(string) (bool, error) { return true, nil }
