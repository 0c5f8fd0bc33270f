package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is a `sous serve` started for the checks, on a database of its own.
type Server struct {
	API string // base URL with /v1
	// DatabaseURL is the database it serves when TEST_DATABASE_URL made one; empty when it runs
	// its private cluster (which only it may use while it runs).
	DatabaseURL string

	cmd  *exec.Cmd
	drop func()
	log  *os.File
	bin  string
	env  []string
}

// Options configure the started server.
type Options struct {
	Repo        string   // the repository root
	WorkDir     string   // a scratch directory (binary, data directory, log)
	CORSOrigins []string // SOUS_CORS_ORIGINS
	Env         []string // more settings, NAME=value
}

// Start builds cmd/sous and serves it on a free loopback port. With TEST_DATABASE_URL set it
// creates a throwaway database there; otherwise the server starts its own private cluster
// under the scratch directory, as `go run ./cmd/sous` does for a reader.
func Start(ctx context.Context, o Options) (*Server, error) {
	bin := filepath.Join(o.WorkDir, "sous")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/sous")
	build.Dir = o.Repo
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build sous: %v\n%s", err, out)
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	s := &Server{API: "http://" + addr + "/v1", drop: func() {}}
	env := append(os.Environ(),
		"SOUS_ADDR="+addr,
		"SOUS_DATA_DIR="+filepath.Join(o.WorkDir, "data"),
		"SOUS_ACCESS_LOG=false",
		// Every check registers from 127.0.0.1; the spec's 3 per hour would stop them.
		"SOUS_REGISTER_RATE=1000/h",
		"SOUS_CORS_ORIGINS="+strings.Join(o.CORSOrigins, ","),
	)
	env = append(env, o.Env...)
	if admin := os.Getenv("TEST_DATABASE_URL"); admin != "" {
		dbURL, drop, err := createDatabase(ctx, admin)
		if err != nil {
			return nil, err
		}
		s.drop, s.DatabaseURL = drop, dbURL
		env = append(env, "DATABASE_URL="+dbURL)
	} else {
		env = append(env, "DATABASE_URL=")
	}
	if s.log, err = os.Create(filepath.Join(o.WorkDir, "server.log")); err != nil {
		return nil, err
	}
	s.bin, s.env = bin, env
	if err := s.run(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) run(ctx context.Context) error {
	s.cmd = exec.Command(s.bin)
	s.cmd.Env, s.cmd.Stdout, s.cmd.Stderr = s.env, s.log, s.log
	if err := s.cmd.Start(); err != nil {
		return err
	}
	if err := s.waitReady(ctx); err != nil {
		return fmt.Errorf("%w; server log:\n%s", err, s.Log())
	}
	return nil
}

// Down stops the server as Ctrl-C would, keeping its address and database for Up: an outage,
// or the first half of an operator's restart.
func (s *Server) Down() { s.terminate() }

// Up starts the server again after Down, on the same address and database.
func (s *Server) Up(ctx context.Context) error { return s.run(ctx) }

func (s *Server) waitReady(ctx context.Context) error {
	ready := strings.TrimSuffix(s.API, "/v1") + "/readyz"
	deadline := time.Now().Add(2 * time.Minute)
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("sous exited before it was ready: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if res, err := http.Get(ready); err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				go func() { <-exited }()
				return nil
			}
		}
	}
	return errors.New("sous was not ready within 2 minutes")
}

// Binary is the path of the sous it built and serves.
func (s *Server) Binary() string { return s.bin }

// Log returns what the server wrote.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.log.Name())
	return string(b)
}

// Stop stops the server as Ctrl-C would (it drains and stops its private cluster), then drops
// the throwaway database.
func (s *Server) Stop() {
	s.terminate()
	if s.log != nil {
		s.log.Close()
	}
	s.drop()
}

func (s *Server) terminate() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		for i := 0; i < 300 && s.cmd.ProcessState == nil; i++ {
			if err := s.cmd.Process.Signal(syscall.Signal(0)); err != nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// createDatabase makes an empty database on the admin URL's server; the server migrates it.
func createDatabase(ctx context.Context, admin string) (string, func(), error) {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", nil, fmt.Errorf("TEST_DATABASE_URL: %w", err)
	}
	defer conn.Close(ctx)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "readmecheck_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, err
	}
	u, err := url.Parse(admin)
	if err != nil {
		return "", nil, err
	}
	u.Path = "/" + name
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if c, err := pgx.Connect(ctx, admin); err == nil {
			_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			c.Close(ctx)
		}
	}
	return u.String(), drop, nil
}
