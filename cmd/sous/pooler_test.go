package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sous-app/sous/internal/pg/pgtest"
)

// TestBinaryThroughPgBouncer runs one replica through PgBouncer in transaction mode, as
// docs/operations/scaling.md says to: DATABASE_URL names the pooler, SOUS_DATABASE_DIRECT_URL
// the database (migrations, LISTEN). PgBouncer runs the configuration printed in that page,
// read from it, with only the installation's names, ports and paths replaced (localizeIni).
// The pooler has two server connections, so consecutive
// transactions of one client land on different sessions: a server-side prepared statement, a
// session setting or a session lock relied on across them would fail here. CI installs Debian's
// pgbouncer (.ci/run); without it the test is skipped.
func TestBinaryThroughPgBouncer(t *testing.T) {
	t.Parallel()
	bouncer, err := exec.LookPath("pgbouncer")
	if err != nil {
		if _, err := os.Stat("/usr/sbin/pgbouncer"); err != nil {
			missingTool(t, "pgbouncer", "apt-get install pgbouncer")
		}
		bouncer = "/usr/sbin/pgbouncer"
	}
	direct := pgtest.NewURL(t)
	pooled, admin := startPgBouncer(t, bouncer, direct)

	addr, logs := startSous(t, "DATABASE_URL="+pooled, "SOUS_DATABASE_DIRECT_URL="+direct)
	api := "http://" + addr + "/v1"

	var session struct {
		AccessToken string `json:"accessToken"`
		User        struct {
			Memberships []struct {
				OrgID string `json:"orgId"`
			} `json:"memberships"`
		} `json:"user"`
	}
	call(t, api, "", "POST", "/auth/register", `{"name":"Ana","email":"ana@example.com","password":"walk-in-cooler-pantry-9","orgName":"Harborview"}`, &session)
	if t.Failed() {
		time.Sleep(time.Second) // the log line of the failure may still be on its way
		t.Fatalf("server log:\n%s", logs())
	}
	tok, org := session.AccessToken, session.User.Memberships[0].OrgID
	var site struct{ ID string }
	call(t, api, tok, "POST", "/orgs/"+org+"/sites", `{"name":"Main Kitchen","timezone":"America/New_York"}`, &site)

	// Many requests at once over the two server connections: writes with their audit rows,
	// idempotency keys, lists.
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			call(t, api, tok, "POST", "/orgs/"+org+"/devices", fmt.Sprintf(`{"name":"Screen %d","kind":"wallboard_boh","siteId":"%s"}`, i, site.ID), nil)
			call(t, api, tok, "GET", "/orgs/"+org+"/sites", "", nil)
		})
	}
	wg.Wait()
	var devices []struct{ ID string }
	call(t, api, tok, "GET", "/orgs/"+org+"/devices?limit=500", "", &devices)
	if len(devices) != 16 {
		t.Fatalf("%d devices, want 16", len(devices))
	}
	// The HL7 ingest: an advisory lock and savepoints inside one transaction.
	var ingest struct {
		Results []struct{ Outcome string }
	}
	hl7 := fmt.Sprintf(`{"siteId":%q,"message":"MSH|^~\\&|EPIC|HMC|SOUS|SOUS|20260302083000||ADT^A01|MSG1|P|2.5.1\rPID|1||100234567^^^HMC^MR||DOE^JANE\rPV1|1|I|4W^412^A\r"}`, site.ID)
	call(t, api, tok, "POST", "/orgs/"+org+"/adt/hl7", hl7, &ingest)
	if len(ingest.Results) != 1 || ingest.Results[0].Outcome != "applied" {
		t.Fatalf("ingest: %+v", ingest)
	}

	// A board's socket hears a cast: the hint went by NOTIFY through the pooler and was heard
	// on the direct LISTEN session.
	var code struct{ Code string }
	call(t, api, tok, "POST", "/orgs/"+org+"/devices/"+devices[0].ID+"/pair", "", &code)
	var paired struct{ DeviceToken string }
	call(t, api, "", "POST", "/devices/pair", fmt.Sprintf(`{"code":%q}`, code.Code), &paired)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+addr+"/v1/board/ws?token="+url.QueryEscape(paired.DeviceToken), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	frames := make(chan error, 8)
	go func() {
		for {
			_, _, err := ws.Read(ctx)
			frames <- err
			if err != nil {
				return
			}
		}
	}()
	heard := false
	for attempt := 0; attempt < 10 && !heard; attempt++ {
		call(t, api, tok, "POST", "/orgs/"+org+"/devices/"+devices[0].ID+"/cast", `{"type":"message","text":"Lunch in 10"}`, nil)
		select {
		case err := <-frames:
			if err != nil {
				t.Fatalf("socket: %v", err)
			}
			heard = true
		case <-time.After(2 * time.Second): // the hub may still be connecting its listener
		}
	}
	if !heard {
		t.Fatalf("no hint reached the board through the pooler; server log:\n%s", logs())
	}

	// It all went through PgBouncer.
	conn, err := pgx.Connect(t.Context(), admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(t.Context(), "SHOW STATS")
	if err != nil {
		t.Fatal(err)
	}
	xacts := int64(-1)
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range rows.FieldDescriptions() {
			if f.Name == "total_xact_count" && fmt.Sprint(vals[0]) == "sous" {
				xacts = toInt(vals[i])
			}
		}
	}
	if xacts < 50 {
		t.Fatalf("PgBouncer counted %d transactions for the database; the server did not go through it", xacts)
	}
}

func toInt(v any) int64 {
	switch n := v.(type) {
	case pgtype.Numeric:
		if i, err := n.Int64Value(); err == nil && i.Valid {
			return i.Int64
		}
	case int64:
		return n
	case int32:
		return int64(n)
	case string:
		var i int64
		_, _ = fmt.Sscan(n, &i)
		return i
	}
	return -1
}

// docPgBouncerIni is the PgBouncer configuration of docs/operations/scaling.md: the ```ini
// block after its marker comment, as an operator would paste it.
func docPgBouncerIni(t *testing.T) string {
	t.Helper()
	return docBlock(t, "scaling.md", "<!-- pgbouncer.ini: read and run by TestBinaryThroughPgBouncer (cmd/sous) -->")
}

// docBlock is the fenced code block that follows marker (on the next line) in the operations
// page name, without its fences.
func docBlock(t *testing.T, name, marker string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "operations", name))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), marker+"\n```")
	if !ok {
		t.Fatalf("%s has no code block right after the marker %q", name, marker)
	}
	_, rest, _ = strings.Cut(rest, "\n") // the fence's language
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatalf("%s: the block after %q does not end", name, marker)
	}
	return block
}

// localizeIni replaces, in the doc's configuration, only the values that name an installation:
// each key of set (a "key = value" line of a section), and each key=value of the line of
// database db. Every one must be found exactly once, so a change to the doc that drops one
// fails here rather than running something else.
func localizeIni(t *testing.T, ini, db string, dbParams, set map[string]string) string {
	t.Helper()
	seen := map[string]int{}
	lines := strings.Split(ini, "\n")
	for i, l := range lines {
		key, val, ok := strings.Cut(l, "=")
		if !ok || strings.HasPrefix(strings.TrimSpace(l), ";") || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		key = strings.TrimSpace(key)
		if v, ok := set[key]; ok {
			lines[i] = key + " = " + v
			seen[key]++
			continue
		}
		if key != db {
			continue
		}
		fields := strings.Fields(val)
		for j, f := range fields {
			k, _, _ := strings.Cut(f, "=")
			if v, ok := dbParams[k]; ok {
				fields[j] = k + "=" + v
				seen[db+"."+k]++
			}
		}
		lines[i] = key + " = " + strings.Join(fields, " ")
	}
	for k := range set {
		if seen[k] != 1 {
			t.Fatalf("the doc's pgbouncer.ini sets %s %d times, want once:\n%s", k, seen[k], ini)
		}
	}
	for k := range dbParams {
		if seen[db+"."+k] != 1 {
			t.Fatalf("the doc's pgbouncer.ini names %s's %s %d times, want once:\n%s", db, k, seen[db+"."+k], ini)
		}
	}
	return strings.Join(lines, "\n")
}

// startPgBouncer runs the PgBouncer configuration of docs/operations/scaling.md, with two server
// connections, in front of direct's database, and returns the pooled URL and the admin
// console's. Clients authenticate with a password from the userlist file, as the doc says.
func startPgBouncer(t *testing.T, bin, direct string) (pooled, admin string) {
	t.Helper()
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(u.Host)
	// The password clients give PgBouncer; PgBouncer gives the same one to PostgreSQL if it asks.
	pass, ok := u.User.Password()
	if !ok {
		pass = "pooler-test-password"
	}
	dir, err := os.MkdirTemp("", "pgbouncer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	_ = os.Chmod(dir, 0o755) // readable by the postgres user pgbouncer runs as under root
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listen := l.Addr().(*net.TCPAddr).Port
	l.Close()
	userlist := filepath.Join(dir, "userlist.txt")
	ini := localizeIni(t, docPgBouncerIni(t), "sous",
		map[string]string{"host": host, "port": port, "dbname": strings.TrimPrefix(u.Path, "/")},
		map[string]string{
			"listen_port":       fmt.Sprint(listen),
			"auth_file":         userlist,
			"stats_users":       u.User.Username(),
			"default_pool_size": "2",
		})
	for name, body := range map[string]string{"pgbouncer.ini": ini, "userlist.txt": fmt.Sprintf("%q %q\n", u.User.Username(), pass)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{filepath.Join(dir, "pgbouncer.ini")}
	if me, err := user.Current(); err == nil && me.Uid == "0" {
		args = append([]string{"-u", "postgres"}, args...) // pgbouncer refuses to run as root
	}
	cmd := exec.Command(bin, args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	base := fmt.Sprintf("postgres://%s@127.0.0.1:%d/", url.UserPassword(u.User.Username(), pass), listen)
	for i := 0; ; i++ {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", listen), time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			t.Fatalf("pgbouncer exited on the doc's configuration:\n%s\n%s", ini, out.String())
		default:
		}
		if i == 100 {
			t.Fatalf("pgbouncer did not listen: %s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	return base + "sous?sslmode=disable", base + "pgbouncer?sslmode=disable&default_query_exec_mode=simple_protocol"
}

// startSous runs the binary with env added and returns its address and a reader of its log.
func startSous(t *testing.T, env ...string) (string, func() string) {
	t.Helper()
	cmd := exec.Command(sousBinary(t), "serve")
	cmd.Env = append(append(os.Environ(), "SOUS_ADDR=127.0.0.1:0", "SOUS_DATA_DIR="+t.TempDir(),
		"SOUS_ACCESS_LOG=false", "SOUS_REGISTER_RATE=1000/h"), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var log strings.Builder
	cmd.Stderr = &lockedWriter{mu: &mu, b: &log}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			var line map[string]any
			if json.Unmarshal(sc.Bytes(), &line) == nil && line["msg"] == "serving" {
				a, _ := line["addr"].(string)
				addr <- a
			}
		}
		close(addr)
	}()
	logs := func() string {
		mu.Lock()
		defer mu.Unlock()
		return log.String()
	}
	select {
	case a, ok := <-addr:
		if !ok {
			t.Fatalf("sous exited before serving:\n%s", logs())
		}
		return a, logs
	case <-time.After(2 * time.Minute):
		t.Fatalf("sous did not serve within 2 minutes:\n%s", logs())
	}
	return "", logs
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// call sends one JSON request and decodes a 2xx answer into out; anything else fails the test.
func call(t *testing.T, api, token, method, path, body string, out any) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, api+path, strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return
	}
	if body != "" {
		req.Header.Set("content-type", "application/json")
	}
	if token != "" {
		req.Header.Set("authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return
	}
	defer res.Body.Close()
	if res.StatusCode/100 != 2 {
		var e map[string]any
		_ = json.NewDecoder(res.Body).Decode(&e)
		t.Errorf("%s %s: %d %v", method, path, res.StatusCode, e)
		return
	}
	if out != nil {
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			t.Error(err)
		}
	}
}
