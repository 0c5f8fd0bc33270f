package pg_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/pg/pgtest"
)

func TestConnectPoolSize(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	for _, tc := range []struct {
		url  string
		want int32
	}{
		{url, int32(4 * runtime.GOMAXPROCS(0))},
		{withParam(url, "pool_max_conns=3"), 3},
	} {
		pool, err := pg.Connect(t.Context(), tc.url)
		if err != nil {
			t.Fatalf("Connect(%s): %v", tc.url, err)
		}
		if got := pool.Config().MaxConns; got != tc.want {
			t.Errorf("Connect(%s): MaxConns = %d, want %d", tc.url, got, tc.want)
		}
		pool.Close()
	}
}

func TestConnectFailsFastWithoutServer(t *testing.T) {
	t.Parallel()
	// Port 1 is never a PostgreSQL server; the ping must surface that.
	if pool, err := pg.Connect(t.Context(), "postgres://postgres@127.0.0.1:1/x?sslmode=disable&connect_timeout=2"); err == nil {
		pool.Close()
		t.Fatal("Connect succeeded without a server")
	}
}

// withParam adds a query parameter to a connection URL, whether or not it already has a query.
func withParam(url, kv string) string {
	if strings.Contains(url, "?") {
		return url + "&" + kv
	}
	return url + "?" + kv
}
