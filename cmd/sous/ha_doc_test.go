package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/internal/auth"
	"github.com/sous-app/sous/internal/pg/pgtest"
)

// The signing key as docs/operations/high-availability.md makes it: the page's openssl command,
// run as printed, makes a key the server's loader accepts; two replicas on that file accept
// each other's tokens; a replica on a second key (a rotation) refuses the old access token
// with invalid_token while the refresh token still gives a session, and the two keys' replicas
// refuse each other's tokens.
func TestSigningKeyOfTheDocsIsSharedAndRotated(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		missingTool(t, "openssl", "apt-get install openssl")
	}
	t.Parallel()
	command := strings.TrimSpace(docBlock(t, "high-availability.md", "<!-- signing key: run by TestSigningKeyOfTheDocsIsSharedAndRotated (cmd/sous) -->"))
	if strings.Contains(command, "\n") {
		t.Fatalf("the page's key command is more than one line: %q", command)
	}
	makeKey := func() string {
		dir := t.TempDir()
		cmd := exec.Command("sh", "-c", command)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", command, err, out)
		}
		pems, _ := filepath.Glob(filepath.Join(dir, "*.pem"))
		if len(pems) != 1 {
			t.Fatalf("%s made %v, want one .pem file", command, pems)
		}
		if _, err := auth.LoadOrCreateSigningKey(pems[0], false); err != nil {
			t.Fatalf("the server's loader refuses the key the page's command makes: %v", err)
		}
		return pems[0]
	}
	key1, key2 := makeKey(), makeKey()

	db := pgtest.NewURL(t)
	a, _ := startSous(t, "DATABASE_URL="+db, "SOUS_JWT_KEY_FILE="+key1)
	b, _ := startSous(t, "DATABASE_URL="+db, "SOUS_JWT_KEY_FILE="+key1)
	var session struct {
		AccessToken  string `json:"accessToken"`
		RefreshToken string `json:"refreshToken"`
	}
	call(t, "http://"+a+"/v1", "", "POST", "/auth/register", `{"name":"Ana","email":"ana@example.com","password":"walk-in-cooler-pantry-9","orgName":"Harborview"}`, &session)
	if t.Failed() {
		t.FailNow()
	}
	call(t, "http://"+b+"/v1", session.AccessToken, "GET", "/auth/me", "", nil)

	// The rotation: a replica on a new key.
	c, _ := startSous(t, "DATABASE_URL="+db, "SOUS_JWT_KEY_FILE="+key2)
	if code, body := meStatus(t, c, session.AccessToken); code != http.StatusUnauthorized || body["code"] != "invalid_token" {
		t.Fatalf("an access token of the old key on the new key's replica: %d %v", code, body)
	}
	var renewed struct {
		AccessToken string `json:"accessToken"`
	}
	call(t, "http://"+c+"/v1", "", "POST", "/auth/refresh", fmt.Sprintf(`{"refreshToken":%q}`, session.RefreshToken), &renewed)
	call(t, "http://"+c+"/v1", renewed.AccessToken, "GET", "/auth/me", "", nil)
	if code, body := meStatus(t, a, renewed.AccessToken); code != http.StatusUnauthorized || body["code"] != "invalid_token" {
		t.Fatalf("a token of the new key on an old key's replica: %d %v", code, body)
	}
}

func meStatus(t *testing.T, addr, token string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+addr+"/v1/auth/me", nil)
	req.Header.Set("authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(res.Body).Decode(&body)
	return res.StatusCode, body
}

// The load balancer's probes as docs/operations/high-availability.md tables them, with the
// database gone: /readyz answers 503 with its fixed body and /healthz 200, and /readyz is 200
// again once the database is back. The page's HAProxy configuration passes haproxy -c where
// HAProxy is installed.
func TestProbesWhenTheDatabaseIsLost(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		if _, err := os.Stat("/usr/sbin/haproxy"); err == nil {
			bin = "/usr/sbin/haproxy" // outside a non-root user's PATH on Debian
		}
	}
	if bin == "" {
		missingTool(t, "haproxy", "apt-get install haproxy")
	} else {
		cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
		if err := os.WriteFile(cfg, []byte(docBlock(t, "high-availability.md", "<!-- haproxy: checked by TestProbesWhenTheDatabaseIsLost (cmd/sous) with haproxy -c -->")), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(bin, "-c", "-f", cfg).CombinedOutput(); err != nil {
			t.Fatalf("haproxy -c on the page's configuration: %v\n%s", err, out)
		}
	}

	db := pgtest.NewURL(t)
	addr, logs := startSous(t, "DATABASE_URL="+db)
	probe := func(path string) (int, string) {
		res, err := fresh.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, strings.TrimSpace(string(b))
	}
	if code, body := probe("/readyz"); code != http.StatusOK || body != `{"status":"ready"}` {
		t.Fatalf("readyz: %d %s", code, body)
	}

	// The database goes away for this replica: no new connection is allowed and its sessions
	// are ended.
	u, err := url.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	dbName := strings.TrimPrefix(u.Path, "/")
	name := pgx.Identifier{dbName}.Sanitize()
	u.Path = "/postgres" // a database may not refuse connections from itself
	conn, err := pgx.Connect(t.Context(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	allow := func(on bool) {
		if _, err := conn.Exec(context.Background(), fmt.Sprintf("ALTER DATABASE %s ALLOW_CONNECTIONS %t", name, on)); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() {
		allow(true) // whatever happened, so the database can be dropped
		_ = conn.Close(context.Background())
	})
	allow(false)
	if _, err := conn.Exec(t.Context(), "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", dbName); err != nil {
		t.Fatal(err)
	}
	eventually(t, "readyz 503 with the database gone", func() (bool, string) {
		code, body := probe("/readyz")
		return code == http.StatusServiceUnavailable && body == `{"error":"database unavailable","status":"unavailable","statusCode":503}`, fmt.Sprint(code, body)
	})
	if code, body := probe("/healthz"); code != http.StatusOK || body != `{"status":"ok"}` {
		t.Fatalf("healthz with the database gone: %d %s", code, body)
	}

	allow(true)
	eventually(t, "readyz 200 with the database back", func() (bool, string) {
		code, body := probe("/readyz")
		return code == http.StatusOK, fmt.Sprint(code, body, logs())
	})
}
