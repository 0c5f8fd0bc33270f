package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/httpapi"
	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/metrics"
)

// Through the whole server: a client that asks for the spec ten times on one connection (some
// 12 MB of answers, more than the sockets between them hold) and reads none of it loses the
// connection once the server's writes have made no progress for SOUS_WRITE_IDLE_TIMEOUT, and
// the stall is counted. Without the bound the server would wait on it for as long as it stayed
// connected.
func TestStalledClientIsCutOff(t *testing.T) {
	env := apitest.New(t, func(c *config.Config) { c.WriteIdleTimeout = 200 * time.Millisecond })
	stalls := testutil.ToFloat64(metrics.HTTPWriteStalls)
	c := httpapi.DialSmallReceive(t, strings.TrimPrefix(env.URL, "http://"))
	const asks = 10
	for range asks {
		if _, err := fmt.Fprintf(c, "GET /v1/openapi.yaml HTTP/1.1\r\nHost: sous\r\nAccept-Encoding: identity\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); testutil.ToFloat64(metrics.HTTPWriteStalls) <= stalls; {
		if time.Now().After(deadline) {
			t.Fatal("the server is still writing to a client that reads nothing (no stall counted)")
		}
		runtime.Gosched()
	}
	// The connection was closed: what the sockets held, then the end, short of ten answers.
	got, _ := io.Copy(io.Discard, c)
	spec := int64(len(env.Call(http.MethodGet, "/v1/openapi.yaml").Header("Accept-Encoding", "identity").Do().Expect(http.StatusOK).Body))
	if got >= asks*spec {
		t.Fatalf("read %d bytes, all ten answers (%d each): the connection was not cut off", got, spec)
	}
}
