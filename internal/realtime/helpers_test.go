package realtime_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/pg/pgtest"
	"github.com/sous-app/sous/internal/realtime"
)

// patience bounds every wait for something that should happen; it is only
// ever reached when a test fails.
const patience = 10 * time.Second

// replicas returns two pools on one fresh database, standing for two
// replicas of the server.
func replicas(tb testing.TB) (a, b *pgxpool.Pool) {
	tb.Helper()
	url := pgtest.NewURL(tb)
	return connect(tb, url), connect(tb, url)
}

func connect(tb testing.TB, url string) *pgxpool.Pool {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	pool, err := pg.Connect(ctx, url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	return pool
}

// startHub runs a hub until the test ends (or stop is called) and returns
// once it listens.
func startHub(tb testing.TB, pool *pgxpool.Pool) (hub *realtime.Hub, stop func()) {
	tb.Helper()
	hub = realtime.NewHub(pool, slog.New(slog.NewTextHandler(tb.Output(), nil)))
	ctx, cancel := context.WithCancel(context.Background())
	var runErr error
	done := make(chan struct{})
	go func() {
		runErr = hub.Run(ctx)
		close(done)
	}()
	stop = sync.OnceFunc(func() {
		cancel()
		<-done
		if runErr != nil {
			tb.Errorf("Hub.Run: %v", runErr)
		}
	})
	tb.Cleanup(stop)

	select {
	case <-hub.Ready():
	case <-done:
		tb.Fatalf("Hub.Run returned before listening: %v", runErr)
	case <-time.After(patience):
		tb.Fatal("hub not listening")
	}
	return hub, stop
}

func commit(tb testing.TB, pool *pgxpool.Pool, fn func(ctx context.Context, tx pgx.Tx) error) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if err := pg.InTx(ctx, pool, func(tx pgx.Tx) error { return fn(ctx, tx) }); err != nil {
		tb.Fatal(err)
	}
}

func notify(tb testing.TB, pool *pgxpool.Pool, devices ...uuid.UUID) {
	tb.Helper()
	commit(tb, pool, func(ctx context.Context, tx pgx.Tx) error {
		return realtime.Notify(ctx, tx, devices...)
	})
}

func waitHint(tb testing.TB, hints <-chan struct{}, what string) {
	tb.Helper()
	select {
	case _, ok := <-hints:
		if !ok {
			tb.Fatalf("%s: subscription closed instead of hinted", what)
		}
	case <-time.After(patience):
		tb.Fatalf("%s: no hint within %v", what, patience)
	}
}

func noHint(tb testing.TB, hints <-chan struct{}, what string) {
	tb.Helper()
	select {
	case <-hints:
		tb.Fatalf("%s: unexpected hint", what)
	default:
	}
}

// socketServer serves ServeSocket for ?device=&org= and reports what each
// call returned. The real route would authenticate a device token instead.
type socketServer struct {
	*httptest.Server
	results chan error
}

func serveSockets(tb testing.TB, hub *realtime.Hub, opts realtime.SocketOptions) *socketServer {
	tb.Helper()
	s := &socketServer{results: make(chan error, 64)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		device, err1 := uuid.Parse(q.Get("device"))
		org, err2 := uuid.Parse(q.Get("org"))
		if err1 != nil || err2 != nil {
			http.Error(w, "bad ids", http.StatusBadRequest)
			return
		}
		err := realtime.ServeSocket(w, r, hub, device, org, opts)
		select {
		case s.results <- err:
		default: // nobody is checking this many
		}
	}))
	tb.Cleanup(s.Close)
	return s
}

// dial opens a device's socket. When it returns, the device is subscribed.
func (s *socketServer) dial(tb testing.TB, device, org uuid.UUID) *websocket.Conn {
	tb.Helper()
	return s.dialWith(tb, device, org, nil)
}

func (s *socketServer) dialWith(tb testing.TB, device, org uuid.UUID, opts *websocket.DialOptions) *websocket.Conn {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	url := "ws" + strings.TrimPrefix(s.URL, "http") + "/?device=" + device.String() + "&org=" + org.String()
	conn, _, err := websocket.Dial(ctx, url, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.CloseNow() })
	return conn
}

func (s *socketServer) result(tb testing.TB) error {
	tb.Helper()
	select {
	case err := <-s.results:
		return err
	case <-time.After(patience):
		tb.Fatal("ServeSocket did not return")
		return nil
	}
}

// readFrame waits for one frame and checks that it is an empty text frame.
func readFrame(tb testing.TB, conn *websocket.Conn) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	typ, data, err := conn.Read(ctx)
	if err != nil {
		tb.Fatalf("read frame: %v", err)
	}
	if typ != websocket.MessageText || len(data) != 0 {
		tb.Fatalf("frame = %v %q, want an empty text frame", typ, data)
	}
}

// readClose waits for the server to close the socket and returns the status.
func readClose(tb testing.TB, conn *websocket.Conn) websocket.StatusCode {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	for {
		_, _, err := conn.Read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				tb.Fatal("socket not closed")
			}
			return websocket.CloseStatus(err)
		}
	}
}
