package main

import (
	"os"
	"os/exec"
	"testing"
)

func runScript(t *testing.T, script string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "bash", "-euo", "pipefail", "-c", script)
	cmd.Env = append(os.Environ(), "API="+srv.API)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
