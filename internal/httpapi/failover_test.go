package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

const admitA01 = "MSH|^~\\&|EPIC|HMC|SOUS|SOUS|20260302083000||ADT^A01|%s|P|2.5.1\rEVN|A01|20260302083000\rPID|1||100234567^^^HMC^MR||DOE^JANE||19800412|F\rPV1|1|I|4W^412^A\r"

func shortDeadlines(c *config.Config) {
	c.RequestTimeout = 700 * time.Millisecond
	c.HL7RequestTimeout = 900 * time.Millisecond
}

// outageCalls are requests of each kind a failover meets: a read and a write with a session, the
// HL7 ingest, a device authenticated by its token (a credential that could not be checked must
// not answer 401), and the signed-in user.
func outageCalls(env *apitest.Env) []func() *apitest.Request {
	owner, org := env.NewOwner("Harborview Kitchens")
	site := env.Site(owner.AccessToken, org, "Main kitchen")
	_, deviceToken := env.PairDevice(owner.AccessToken, org, site, "wallboard_boh")
	orgs := "orgs/" + org.String()
	return []func() *apitest.Request{
		func() *apitest.Request { return env.Call(http.MethodGet, orgs).Token(owner.AccessToken) },
		func() *apitest.Request {
			return env.Call(http.MethodPost, orgs+"/sites").Token(owner.AccessToken).
				JSON(map[string]string{"name": "Annex", "timezone": "America/Chicago"})
		},
		func() *apitest.Request {
			return env.Call(http.MethodPost, orgs+"/adt/hl7").Token(owner.AccessToken).
				JSON(map[string]any{"siteId": site, "message": strings.Replace(admitA01, "%s", "MSG"+time.Now().Format("150405.000000"), 1)})
		},
		func() *apitest.Request { return env.Call(http.MethodGet, "device/state").DeviceToken(deviceToken) },
		func() *apitest.Request { return env.Call(http.MethodGet, "auth/me").Token(owner.AccessToken) },
	}
}

func expectOutage(t *testing.T, res *apitest.Response, within time.Duration, took time.Duration) {
	t.Helper()
	e := res.ExpectError(http.StatusServiceUnavailable, "")
	if e.Code != "database_unavailable" || res.Header.Get("Retry-After") != "1" {
		t.Fatalf("code %q, Retry-After %q; want database_unavailable, 1", e.Code, res.Header.Get("Retry-After"))
	}
	if took > within {
		t.Fatalf("answered after %v, want within %v", took, within)
	}
}

func expectNotReady(t *testing.T, env *apitest.Env) {
	t.Helper()
	res := env.Call(http.MethodGet, "/readyz").Do().Expect(http.StatusServiceUnavailable)
	var body struct {
		Error string `json:"error"`
	}
	res.Decode(&body)
	if body.Error != "database unavailable" {
		t.Fatalf("readyz says %q; want only \"database unavailable\"", body.Error)
	}
}

// TestDatabaseOutages acts out what a failover does to the connections: the primary freezes (its
// port answers, nothing else does) or goes away. Every request answers 503 with Retry-After
// within its deadline, readiness says only "database unavailable", and once the database is back
// the same server serves again without a restart.
func TestDatabaseOutages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fault func(p interface {
			Freeze()
			Close()
		})
	}{
		{"frozen primary", func(p interface {
			Freeze()
			Close()
		}) {
			p.Freeze()
		}},
		{"lost primary", func(p interface {
			Freeze()
			Close()
		}) {
			p.Close()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env, proxy, _ := apitest.NewBehindProxy(t, shortDeadlines)
			calls := outageCalls(env)
			for _, call := range calls {
				if res := call().Do(); res.Status >= 300 {
					t.Fatalf("before the outage: %d %s", res.Status, res.Body)
				}
			}
			tc.fault(proxy)
			for _, call := range calls {
				start := time.Now()
				res := call().Do()
				// The deadline plus the time to close the connection it cut short.
				expectOutage(t, res, 3*time.Second, time.Since(start))
			}
			expectNotReady(t, env)
			proxy.Thaw()
			// The server is let back in when it answers a probe of the pool's fence, which a
			// request at that very moment may just miss.
			recovered := time.Now().Add(3 * time.Second)
			for env.Call(http.MethodGet, "/readyz").Do().Status != http.StatusOK {
				if time.Now().After(recovered) {
					t.Fatal("still not ready 3s after the outage")
				}
				<-time.After(10 * time.Millisecond)
			}
			for _, call := range calls {
				if res := call().Do(); res.Status >= 300 {
					t.Fatalf("after the outage: %d %s", res.Status, res.Body)
				}
			}
		})
	}
}

// TestReadOnlyDatabase connects the server to a session that cannot write, as a standby is
// (25006): writes answer 503, reads still work, and readiness reports the replica unready.
func TestReadOnlyDatabase(t *testing.T) {
	t.Parallel()
	env, _, direct := apitest.NewBehindProxy(t, shortDeadlines)
	owner, org := env.NewOwner("Harborview Kitchens")
	orgs := "orgs/" + org.String()
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	setReadOnly := func(on bool) {
		conn, err := pgx.Connect(t.Context(), direct)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		stmt := "ALTER DATABASE " + pgx.Identifier{strings.TrimPrefix(u.Path, "/")}.Sanitize() + " RESET default_transaction_read_only"
		if on {
			stmt = "ALTER DATABASE " + pgx.Identifier{strings.TrimPrefix(u.Path, "/")}.Sanitize() + " SET default_transaction_read_only = on"
		}
		if _, err := conn.Exec(t.Context(), "SET default_transaction_read_only = off"); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(t.Context(), stmt); err != nil {
			t.Fatal(err)
		}
		env.Pool.Reset() // new sessions read the database's defaults
	}
	write := func() *apitest.Response {
		return env.Call(http.MethodPost, orgs+"/sites").Token(owner.AccessToken).
			JSON(map[string]string{"name": "Annex", "timezone": "America/Chicago"}).Do()
	}
	setReadOnly(true)
	start := time.Now()
	expectOutage(t, write(), 3*time.Second, time.Since(start))
	env.Call(http.MethodGet, orgs).Token(owner.AccessToken).Do().Expect(http.StatusOK)
	expectNotReady(t, env)
	setReadOnly(false)
	write().Expect(http.StatusCreated)
	env.Call(http.MethodGet, "/readyz").Do().Expect(http.StatusOK)
}
