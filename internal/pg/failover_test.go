package pg_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/pg/pgtest"
)

func TestPoolConfigDefaults(t *testing.T) {
	t.Parallel()
	const base = "postgres://sous@127.0.0.1:5432/sous"
	opts := pg.Options{ConnectTimeout: 2 * time.Second, StatementTimeout: 15 * time.Second}
	for _, tc := range []struct {
		name, url         string
		connect           time.Duration
		statement, idleTx string
		plans             string
	}{
		{"defaults", base, 2 * time.Second, "15000", "15000", "force_custom_plan"},
		{"the URL's connect_timeout wins", base + "?connect_timeout=7", 7 * time.Second, "15000", "15000", "force_custom_plan"},
		{"the URL's statement_timeout wins", base + "?statement_timeout=500", 2 * time.Second, "500", "15000", "force_custom_plan"},
		{"the URL's plan_cache_mode wins", base + "?plan_cache_mode=auto", 2 * time.Second, "15000", "15000", "auto"},
		{"multi-host", "postgres://sous@127.0.0.1:5432,127.0.0.1:5433/sous?target_session_attrs=read-write", 2 * time.Second, "15000", "15000", "force_custom_plan"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := pg.PoolConfig(tc.url, opts)
			if err != nil {
				t.Fatal(err)
			}
			cc := cfg.ConnConfig
			if cc.ConnectTimeout != tc.connect {
				t.Errorf("connect timeout %v, want %v", cc.ConnectTimeout, tc.connect)
			}
			if got := cc.RuntimeParams["statement_timeout"]; got != tc.statement {
				t.Errorf("statement_timeout %q, want %q", got, tc.statement)
			}
			if got := cc.RuntimeParams["idle_in_transaction_session_timeout"]; got != tc.idleTx {
				t.Errorf("idle_in_transaction_session_timeout %q, want %q", got, tc.idleTx)
			}
			if got := cc.RuntimeParams["plan_cache_mode"]; got != tc.plans {
				t.Errorf("plan_cache_mode %q, want %q", got, tc.plans)
			}
			if cfg.PingTimeout != tc.connect {
				t.Errorf("ping timeout %v, want the connect timeout", cfg.PingTimeout)
			}
		})
	}
}

// TestSessionsCarryTheTimeouts reads the settings back from a pooled session.
func TestSessionsCarryTheTimeouts(t *testing.T) {
	t.Parallel()
	pool, err := pg.ConnectWith(t.Context(), pgtest.NewURL(t), pg.Options{StatementTimeout: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var st, idle, plans string
	if err := pool.QueryRow(t.Context(), "SELECT current_setting('statement_timeout'), current_setting('idle_in_transaction_session_timeout'), current_setting('plan_cache_mode')").Scan(&st, &idle, &plans); err != nil {
		t.Fatal(err)
	}
	if st != "1500ms" || idle != "1500ms" || plans != "force_custom_plan" {
		t.Fatalf("statement_timeout %s, idle_in_transaction_session_timeout %s, plan_cache_mode %s; want 1500ms and force_custom_plan", st, idle, plans)
	}
}

// TestConnectSkipsAFrozenHost puts a host that accepts connections but never answers first in a
// multi-host URL: without a connect timeout every new connection would wait on it forever.
func TestConnectSkipsAFrozenHost(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	frozen := pgtest.NewProxy(t, url)
	frozen.Freeze()
	live := pgtest.NewProxy(t, url)
	multi := strings.Replace(live.URL(url), live.Addr(), frozen.Addr()+","+live.Addr(), 1) + "&target_session_attrs=read-write"
	if !strings.Contains(multi, "?") {
		multi = strings.Replace(multi, "&", "?", 1)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	start := time.Now()
	pool, err := pg.ConnectWith(ctx, multi, pg.Options{ConnectTimeout: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("connecting took %v", took)
	}
}

// TestTimedOutConnectionIsNotReused: a query cut short by its deadline on a frozen server leaves
// its connection out of the pool, so the next query, once the server answers, gets a new one.
func TestTimedOutConnectionIsNotReused(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	proxy := pgtest.NewProxy(t, url)
	pool := pgtest.ConnectThrough(t, proxy.URL(url), pg.Options{ConnectTimeout: time.Second})
	pid := func(ctx context.Context) (uint32, error) {
		var p uint32
		err := pool.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&p)
		return p, err
	}
	before, err := pid(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	proxy.Freeze()
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	_, err = pid(ctx)
	cancel()
	if e := pg.Unavailable(err); e == nil || e.Code != pg.CodeUnavailable {
		t.Fatalf("query on a frozen server: %v, classified %+v", err, e)
	}
	// pgx sends the frozen server a cancel request in the background and keeps the pool's slot
	// until that ends; the server never answers, so that is bounded by the connect timeout.
	released := time.Now().Add(3 * time.Second)
	for pool.Stat().TotalConns() > 0 {
		if time.Now().After(released) {
			t.Fatalf("the dead connection still holds its pool slot 3s later")
		}
		time.Sleep(20 * time.Millisecond)
	}
	proxy.Thaw()
	after, err := pid(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if after == before {
		t.Fatalf("the connection whose query timed out (backend %d) was used again", before)
	}
}

func TestUnavailableClassifies(t *testing.T) {
	t.Parallel()
	refused := func() error {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		_, err = pgconn.Connect(t.Context(), "postgres://x@"+addr+"/x?connect_timeout=2")
		return err
	}()
	for _, tc := range []struct {
		name string
		err  error
		code string // "" means not an outage
	}{
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, pg.CodeUnavailable},
		{"cannot connect now", &pgconn.PgError{Code: "57P03"}, pg.CodeUnavailable},
		{"read-only transaction", fmt.Errorf("insert: %w", &pgconn.PgError{Code: "25006"}), pg.CodeUnavailable},
		{"serialization failure", &pgconn.PgError{Code: "40001"}, pg.CodeUnavailable},
		{"deadlock", &pgconn.PgError{Code: "40P01"}, pg.CodeUnavailable},
		{"statement timeout", &pgconn.PgError{Code: "57014"}, pg.CodeUnavailable},
		{"connection exception", &pgconn.PgError{Code: "08006"}, pg.CodeUnavailable},
		{"connection refused", refused, pg.CodeUnavailable},
		{"deadline (pool acquire)", fmt.Errorf("pg: begin transaction: %w", context.DeadlineExceeded), pg.CodeUnavailable},
		{"closed connection", fmt.Errorf("x: %w", pgconn.ErrConnClosed), pg.CodeUnavailable},
		{"commit outcome unknown", fmt.Errorf("pg: commit: %w: %w", pg.ErrOutcomeUnknown, context.DeadlineExceeded), pg.CodeOutcomeUnknown},
		{"unique violation", &pgconn.PgError{Code: "23505"}, ""},
		{"no rows", pgx.ErrNoRows, ""},
		{"a bug", errors.New("boom"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := pg.Unavailable(tc.err)
			switch {
			case tc.code == "" && e != nil:
				t.Fatalf("%v: classified as %s", tc.err, e.Code)
			case tc.code == "":
			case e == nil:
				t.Fatalf("%v: not classified as an outage", tc.err)
			case e.Code != tc.code || e.Kind != apierr.KindUnavailable || e.RetryAfterSeconds() != 1:
				t.Fatalf("%v: got %+v", tc.err, e)
			}
		})
	}
}

// TestInTxRetriesSerializationFailures runs the transaction again after a serialization
// failure or a deadlock, up to three times in all.
func TestInTxRetriesSerializationFailures(t *testing.T) {
	t.Parallel()
	pool := newCounterDB(t)
	for _, tc := range []struct {
		code     string
		failures int
		wantErr  bool
	}{
		{"40001", 1, false},
		{"40P01", 2, false},
		{"40001", 3, true},
		{"23505", 1, true}, // not retried
	} {
		var runs atomic.Int32
		err := pg.InTx(t.Context(), pool, func(tx pgx.Tx) error {
			if int(runs.Add(1)) <= tc.failures {
				return &pgconn.PgError{Code: tc.code}
			}
			return insert(t.Context(), tx)
		})
		if (err != nil) != tc.wantErr {
			t.Fatalf("%s ×%d: err %v", tc.code, tc.failures, err)
		}
		wantRuns := min(tc.failures+1, 3)
		if tc.code == "23505" {
			wantRuns = 1
		}
		if int(runs.Load()) != wantRuns {
			t.Fatalf("%s ×%d: ran %d times, want %d", tc.code, tc.failures, runs.Load(), wantRuns)
		}
	}
}

// TestInTxCommitOutcomeUnknown loses the server while COMMIT is in flight: the caller learns that
// the outcome is unknown, not that the change failed.
func TestInTxCommitOutcomeUnknown(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	proxy := pgtest.NewProxy(t, url)
	pool := pgtest.ConnectThrough(t, proxy.URL(url), pg.Options{ConnectTimeout: time.Second})
	if _, err := pool.Exec(t.Context(), "CREATE TABLE counter (n int NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	err := pg.InTx(ctx, pool, func(tx pgx.Tx) error {
		if err := insert(ctx, tx); err != nil {
			return err
		}
		proxy.Freeze() // COMMIT leaves, its answer never comes back
		return nil
	})
	if !errors.Is(err, pg.ErrOutcomeUnknown) {
		t.Fatalf("err %v, want ErrOutcomeUnknown", err)
	}
	if e := pg.Unavailable(err); e == nil || e.Code != pg.CodeOutcomeUnknown {
		t.Fatalf("classified %+v", e)
	}
	// A deadline that passed before COMMIT was sent is a plain outage: nothing was committed.
	proxy.Thaw()
	done, cancel2 := context.WithCancel(t.Context())
	err = pg.InTx(done, pool, func(tx pgx.Tx) error {
		if err := insert(done, tx); err != nil {
			return err
		}
		cancel2()
		return nil
	})
	if errors.Is(err, pg.ErrOutcomeUnknown) || pg.Unavailable(err) == nil {
		t.Fatalf("commit never sent: err %v", err)
	}
}

// TestFenceFreesConnectionsStuckOnAFrozenServer: a query with no deadline of its own, waiting on
// a server that froze, is released as soon as another connection's failure shows the server is
// gone, instead of holding its pooled connection until the server comes back.
func TestFenceFreesConnectionsStuckOnAFrozenServer(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	proxy := pgtest.NewProxy(t, url)
	pool := pgtest.ConnectThrough(t, proxy.URL(url), pg.Options{ConnectTimeout: 300 * time.Millisecond})
	// Two connections in the pool.
	c1, err := pool.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	c2, err := pool.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	c2.Release()
	proxy.Freeze()
	stuck := make(chan error, 1)
	go func() {
		_, err := c1.Exec(context.Background(), "SELECT 1")
		c1.Release()
		stuck <- err
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	_, err = pool.Exec(ctx, "SELECT 1")
	cancel()
	if err == nil {
		t.Fatal("a query on a frozen server succeeded")
	}
	select {
	case err := <-stuck:
		if pg.Unavailable(err) == nil {
			t.Fatalf("the stuck query ended with %v, not an outage", err)
		}
	case <-time.After(5 * time.Second):
		proxy.Thaw()
		t.Fatal("the query stuck on the frozen server was not released")
	}
	proxy.Thaw()
	eventually(t, 3*time.Second, "a query after the server answers again", func() error {
		_, err := pool.Exec(t.Context(), "SELECT 1")
		return err
	})
}

// TestFrozenPrimaryIsLeftForTheNextHost freezes the first host of a multi-host URL while a query
// with no deadline waits on it and nothing else happens: the query is released once the server
// has left it unanswered and then failed to answer a probe, and new connections go straight to
// the next host instead of spending the connect timeout on the frozen one first.
func TestFrozenPrimaryIsLeftForTheNextHost(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	frozen := pgtest.NewProxy(t, url)
	next := pgtest.NewProxy(t, url)
	multi := withParam(strings.Replace(frozen.URL(url), frozen.Addr(), frozen.Addr()+","+next.Addr(), 1), "target_session_attrs=read-write")
	const connectTimeout = time.Second
	pool := pgtest.ConnectThrough(t, multi, pg.Options{ConnectTimeout: connectTimeout})
	if _, err := pool.Exec(t.Context(), "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	frozen.Freeze()
	defer frozen.Thaw()
	stuck := make(chan error, 1)
	go func() {
		_, err := pool.Exec(context.Background(), "SELECT 1")
		stuck <- err
	}()
	// Unanswered for a second, then a probe unanswered for the connect timeout; and slack for
	// a busy machine.
	select {
	case err := <-stuck:
		if pg.Unavailable(err) == nil {
			t.Fatalf("the query on the frozen server ended with %v, not an outage", err)
		}
	case <-time.After(3*time.Second + connectTimeout):
		t.Fatal("the query still waits on the frozen server")
	}
	ctx, cancel := context.WithTimeout(t.Context(), connectTimeout/2)
	defer cancel()
	if _, err := pool.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatalf("a query within half the connect timeout, with the next host up: %v", err)
	}
}

// eventually runs fn until it succeeds, failing the test if it has not within d. A server that was
// fenced is let back in when it answers a probe, which a request at that very moment may miss.
func eventually(t *testing.T, d time.Duration, what string, fn func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := fn()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still failing after %v: %v", what, d, err)
		}
		<-time.After(10 * time.Millisecond)
	}
}
