package realtime_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/realtime"
)

func TestSocketHintAndRevoke(t *testing.T) {
	poolA, poolB := replicas(t)
	startHub(t, poolA)
	hubB, _ := startHub(t, poolB)
	srv := serveSockets(t, hubB, realtime.SocketOptions{})

	device, org := uuid.New(), uuid.New()
	conn := srv.dial(t, device, org)
	bystander := srv.dial(t, uuid.New(), org)

	notify(t, poolA, device)
	readFrame(t, conn)

	commit(t, poolA, func(ctx context.Context, tx pgx.Tx) error {
		return realtime.NotifyOrg(ctx, tx, org)
	})
	readFrame(t, conn)
	readFrame(t, bystander)

	commit(t, poolA, func(ctx context.Context, tx pgx.Tx) error {
		return realtime.DisconnectDevice(ctx, tx, device)
	})
	if got := readClose(t, conn); got != realtime.StatusRevoked {
		t.Fatalf("close status = %v, want %v", got, realtime.StatusRevoked)
	}
	if err := srv.result(t); !errors.Is(err, realtime.ErrRevoked) {
		t.Fatalf("ServeSocket = %v, want ErrRevoked", err)
	}

	// Revoking one device leaves the others connected.
	notify(t, poolA, uuid.New(), device) // device: no subscriber left, no panic
	commit(t, poolA, func(ctx context.Context, tx pgx.Tx) error {
		return realtime.NotifyOrg(ctx, tx, org)
	})
	readFrame(t, bystander)
}

func TestSocketClosesWhenClientGoesAway(t *testing.T) {
	pool, _ := replicas(t)
	hub, _ := startHub(t, pool)
	srv := serveSockets(t, hub, realtime.SocketOptions{})

	conn := srv.dial(t, uuid.New(), uuid.New())
	if err := conn.Close(websocket.StatusNormalClosure, ""); err != nil {
		t.Fatal(err)
	}
	if err := srv.result(t); err != nil {
		t.Fatalf("ServeSocket = %v, want nil", err)
	}
}

func TestSocketClosesUnresponsiveClient(t *testing.T) {
	pool, _ := replicas(t)
	hub, _ := startHub(t, pool)
	srv := serveSockets(t, hub, realtime.SocketOptions{
		PingInterval: 20 * time.Millisecond,
		PongTimeout:  50 * time.Millisecond,
	})

	// A coder/websocket client answers pings only while reading; this one
	// never reads, like a frozen device.
	srv.dial(t, uuid.New(), uuid.New())
	if err := srv.result(t); err == nil {
		t.Fatal("ServeSocket = nil, want an error about the missing pong")
	}
}

func TestSocketKeepsResponsiveClient(t *testing.T) {
	pool, _ := replicas(t)
	hub, _ := startHub(t, pool)
	srv := serveSockets(t, hub, realtime.SocketOptions{
		PingInterval: 5 * time.Millisecond,
		PongTimeout:  patience,
	})

	pings := make(chan struct{}, 1)
	device := uuid.New()
	conn := srv.dialWith(t, device, uuid.New(), &websocket.DialOptions{
		OnPingReceived: func(context.Context, []byte) bool {
			select {
			case pings <- struct{}{}:
			default:
			}
			return true
		},
	})
	frames := make(chan error, 1)
	go func() {
		// Reading is what makes this client answer pings.
		typ, data, err := conn.Read(context.Background())
		if err == nil && (typ != websocket.MessageText || len(data) != 0) {
			err = errors.New("not an empty text frame")
		}
		frames <- err
	}()

	for range 5 {
		waitHint(t, pings, "ping")
	}
	notify(t, pool, device)
	select {
	case err := <-frames:
		if err != nil {
			t.Fatalf("read frame after pings: %v", err)
		}
	case <-time.After(patience):
		t.Fatal("no frame")
	}
	select {
	case err := <-srv.results:
		t.Fatalf("ServeSocket returned %v while the client answered pings", err)
	default:
	}
}

func TestSocketClosesWhenHubStops(t *testing.T) {
	pool, _ := replicas(t)
	hub, stop := startHub(t, pool)
	srv := serveSockets(t, hub, realtime.SocketOptions{})

	conn := srv.dial(t, uuid.New(), uuid.New())
	stop()
	if got := readClose(t, conn); got != websocket.StatusGoingAway {
		t.Fatalf("close status = %v, want %v", got, websocket.StatusGoingAway)
	}
	if err := srv.result(t); err != nil {
		t.Fatalf("ServeSocket = %v, want nil", err)
	}
}

// A revocation that commits after the caller authenticated the device but before the socket
// subscribed would go unheard; Admit runs once the subscription is in place, so a revocation
// landing while (or after) it checks is still heard and closes the socket.
func TestSocketHearsARevocationCommittedDuringAdmission(t *testing.T) {
	pool, _ := replicas(t)
	hub, _ := startHub(t, pool)
	device := uuid.New()
	srv := serveSockets(t, hub, realtime.SocketOptions{Admit: func(ctx context.Context) error {
		// The handler's goroutine may not stop the test: a failure here refuses the socket,
		// which the dial below reports.
		return pg.InTx(ctx, pool, func(tx pgx.Tx) error { return realtime.DisconnectDevice(ctx, tx, device) })
	}})

	conn := srv.dial(t, device, uuid.New())
	if got := readClose(t, conn); got != realtime.StatusRevoked {
		t.Fatalf("close status = %v, want %v", got, realtime.StatusRevoked)
	}
	if err := srv.result(t); !errors.Is(err, realtime.ErrRevoked) {
		t.Fatalf("ServeSocket = %v, want ErrRevoked", err)
	}
}

// An Admit error refuses the connection: nothing is written (the caller answers), and the
// subscription is gone.
func TestSocketRefusedByAdmit(t *testing.T) {
	pool, _ := replicas(t)
	hub, _ := startHub(t, pool)
	refused := errors.New("token no longer valid")
	srv := serveSockets(t, hub, realtime.SocketOptions{Admit: func(context.Context) error { return refused }})
	device := uuid.New()

	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/?device=" + device.String() + "&org=" + uuid.NewString()
	if conn, res, err := websocket.Dial(ctx, url, nil); err == nil {
		conn.CloseNow()
		t.Fatal("upgraded despite the refusal")
	} else if res == nil || res.StatusCode == http.StatusSwitchingProtocols {
		t.Fatalf("dial: %v, response %v", err, res)
	}
	if err := srv.result(t); !errors.Is(err, refused) {
		t.Fatalf("ServeSocket = %v, want the Admit error", err)
	}
	if n := hub.Subscribers(device); n != 0 {
		t.Fatalf("%d subscriptions of the refused device left behind", n)
	}
}

// NextChange makes the socket send a frame when time alone changes the state, with no hint; and
// frames caused by time are at least a second apart, whatever NextChange answers.
func TestSocketWakesWhenTimeChangesTheState(t *testing.T) {
	pool, _ := replicas(t)
	hub, _ := startHub(t, pool)
	srv := serveSockets(t, hub, realtime.SocketOptions{
		NextChange: func(context.Context) time.Duration { return time.Millisecond }, // a clock that never moves
	})

	conn := srv.dial(t, uuid.New(), uuid.New())
	readFrame(t, conn)
	first := time.Now()
	readFrame(t, conn)
	if gap := time.Since(first); gap < 900*time.Millisecond {
		t.Fatalf("second frame %v after the first, want about a second", gap)
	}
}
