package httpapi

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/sous-app/sous/internal/metrics"
)

// bigBody is what the test handler writes: more than the loopback's socket buffers hold, so a
// client that reads nothing stops the writes.
const bigBody = 64 << 20

// stallServer serves GET /big (bigBody bytes, 32 KiB a write) and GET /small through
// requestScope's deadline of 100 ms and writeDeadlines with idle; big's handler reports what its writes ended
// with on done.
func stallServer(t *testing.T, idle time.Duration) (addr string, done chan error) {
	t.Helper()
	e := echo.New()
	e.Use(requestScope(scopeConfig{general: 100 * time.Millisecond, socketRoute: "/v1/board/ws"}), writeDeadlines(idle))
	done = make(chan error, 1)
	e.GET("/big", func(c echo.Context) error {
		c.Response().Header().Set("Content-Type", "application/octet-stream")
		c.Response().WriteHeader(http.StatusOK)
		chunk := make([]byte, 32<<10)
		var err error
		for n := 0; n < bigBody && err == nil; n += len(chunk) {
			_, err = c.Response().Write(chunk)
		}
		done <- err
		return nil
	})
	e.GET("/small", func(c echo.Context) error { return c.String(http.StatusOK, "ok") })
	srv := httptest.NewUnstartedServer(e)
	srv.Config.ConnState = ClearWriteDeadlineWhenIdle
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), done
}

// dialSmall connects with a small receive buffer, so the server's writes stall as soon as the
// client stops reading.
func dialSmall(t *testing.T, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		if err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		}); err != nil {
			return err
		}
		return serr
	}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// A client that stops reading loses its connection once idle passes without progress, the
// handler's writes end with an error instead of blocking for good, and the stall is counted.
func TestWriteDeadlineCutsOffAStalledClient(t *testing.T) {
	stalls := testutil.ToFloat64(metrics.HTTPWriteStalls)
	addr, done := stallServer(t, 300*time.Millisecond)
	c := dialSmall(t, addr)
	if _, err := fmt.Fprintf(c, "GET /big HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	// The client reads nothing. Without the deadline the handler never returns.
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the handler wrote 64 MiB to a client that read none of it")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the handler is still blocked writing to a client that reads nothing")
	}
	// Counted once the middleware has the handler's answer, just after done.
	for deadline := time.Now().Add(10 * time.Second); testutil.ToFloat64(metrics.HTTPWriteStalls) <= stalls; {
		if time.Now().After(deadline) {
			t.Fatal("the stall was not counted in sous_http_write_stalls_total")
		}
		runtime.Gosched()
	}
}

// A slow client that keeps reading is served the whole answer, though it takes far longer than
// the budget and idle together: the deadline moves with each write.
func TestWriteDeadlineServesASlowReader(t *testing.T) {
	addr, done := stallServer(t, 300*time.Millisecond)
	c := dialSmall(t, addr)
	if _, err := fmt.Fprintf(c, "GET /big HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	start := time.Now()
	var got int64
	buf := make([]byte, 256<<10)
	tick := time.NewTicker(5 * time.Millisecond) // about 50 MB/s: over a second for the body
	defer tick.Stop()
	for {
		n, err := res.Body.Read(buf)
		got += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d bytes: %v", got, err)
		}
		<-tick.C
	}
	if got != bigBody {
		t.Fatalf("read %d bytes, want %d", got, bigBody)
	}
	if err := <-done; err != nil {
		t.Fatalf("the handler's writes failed for a reading client: %v", err)
	}
	if took := time.Since(start); took < 400*time.Millisecond {
		t.Logf("the body took %v, not longer than budget and idle: the test proved less than it says", took)
	}
}

// Once a connection is idle its last answer is written whole, and the deadline is cleared: the
// next request on it, however much later, is answered.
func TestWriteDeadlineClearedOnIdle(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if err := a.SetWriteDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	ClearWriteDeadlineWhenIdle(a, http.StateActive)
	if _, err := a.Write([]byte("x")); err == nil {
		t.Fatal("an active connection's passed deadline was cleared")
	}
	ClearWriteDeadlineWhenIdle(a, http.StateIdle)
	go func() { _, _ = io.ReadFull(b, make([]byte, 1)) }()
	if _, err := a.Write([]byte("x")); err != nil {
		t.Fatalf("an idle connection kept its deadline: %v", err)
	}
}

// A WebSocket upgrade, which requestScope gives no deadline, keeps no write deadline of this
// middleware: it lives for hours.
func TestWriteDeadlineLeavesUpgradesAlone(t *testing.T) {
	e := echo.New()
	e.Use(requestScope(scopeConfig{general: time.Second, socketRoute: "/v1/board/ws"}), writeDeadlines(time.Millisecond))
	var wrapped bool
	e.GET("/v1/board/ws", func(c echo.Context) error {
		_, wrapped = c.Response().Writer.(*progressWriter)
		return c.NoContent(http.StatusNoContent)
	})
	e.GET("/v1/other", func(c echo.Context) error {
		_, wrapped = c.Response().Writer.(*progressWriter)
		return c.NoContent(http.StatusNoContent)
	})
	srv := httptest.NewServer(e)
	defer srv.Close()
	for _, tc := range []struct {
		path    string
		upgrade bool
		want    bool
	}{
		{"/v1/board/ws", false, false},
		{"/v1/other", true, false},
		{"/v1/other", false, true},
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+tc.path, nil)
		if tc.upgrade {
			req.Header.Set("Connection", "Upgrade")
			req.Header.Set("Upgrade", "websocket")
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if wrapped != tc.want {
			t.Errorf("%s (upgrade %v): write deadline %v, want %v", tc.path, tc.upgrade, wrapped, tc.want)
		}
	}
}
