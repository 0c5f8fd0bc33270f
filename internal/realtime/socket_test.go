package realtime_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

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
