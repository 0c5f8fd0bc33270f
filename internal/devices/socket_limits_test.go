package devices_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

func withSockets(l config.SocketLimits) apitest.Option {
	return func(c *config.Config) { c.Sockets = l }
}

// dialFrom opens the device WebSocket from client address ip (through the trusted proxy's
// X-Forwarded-For); on a refusal it returns the response instead.
func dialFrom(t *testing.T, env *apitest.Env, token, ip string) (*websocket.Conn, *http.Response) {
	t.Helper()
	<-env.Hub.Ready()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	conn, res, err := websocket.Dial(ctx, wsURL(env, token), &websocket.DialOptions{
		HTTPHeader: http.Header{"X-Forwarded-For": {ip}},
	})
	if err != nil {
		if res == nil {
			t.Errorf("dial: %v", err)
		}
		return nil, res
	}
	t.Cleanup(func() { conn.CloseNow() })
	return conn, nil
}

// upgrade asks for the WebSocket through the spec-validating client: a refusal answers JSON
// before any upgrade, which the spec documents.
func upgrade(env *apitest.Env, token, ip string) *apitest.Response {
	return env.Call(http.MethodGet, "board/ws?token="+token).FromIP(ip).
		Header("Connection", "Upgrade").Header("Upgrade", "websocket").
		Header("Sec-WebSocket-Version", "13").Header("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==").Do()
}

// refusedConnectionCloses sends a refused upgrade over a raw connection and checks that the
// server closes it after answering: a replica at its limits keeps no descriptor for the
// refused client.
func refusedConnectionCloses(t *testing.T, env *apitest.Env, token string) {
	t.Helper()
	u, err := url.Parse(env.URL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", u.Host, patience)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(patience)); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "GET /v1/board/ws?token=%s HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"+
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nX-Forwarded-For: %s\r\n\r\n", token, u.Host, env.NewIP())
	r := bufio.NewReader(conn)
	res, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode < 400 || !res.Close {
		t.Fatalf("refused upgrade answered %d, close %v; want a refusal that closes the connection", res.StatusCode, res.Close)
	}
	if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
		t.Fatalf("connection still open after the refusal: %v", err)
	}
}

func expectRetryAfter(t *testing.T, h http.Header) {
	t.Helper()
	if n, err := strconv.Atoi(h.Get("Retry-After")); err != nil || n < 1 {
		t.Fatalf("Retry-After %q, want whole seconds", h.Get("Retry-After"))
	}
}

// outcome reads one frame or close from each socket after a hint to all of them: a socket
// still open gets the frame, a replaced one its close. Counts both, checking the close code.
func outcome(t *testing.T, conns []*websocket.Conn) (open, replaced int) {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), patience)
			defer cancel()
			_, _, err := c.Read(ctx)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				open++
			case websocket.CloseStatus(err) == 4001:
				replaced++
			default:
				t.Errorf("socket neither hinted nor replaced: %v", err)
			}
		})
	}
	wg.Wait()
	return open, replaced
}

func ledgerRows(t *testing.T, env *apitest.Env, deviceID uuid.UUID) int {
	t.Helper()
	var n int
	if err := env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM realtime_sockets WHERE device_id = $1`, deviceID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A device holds at most 2 sockets: a third connection wins and the oldest closes with 4001,
// while the other keeps hearing hints.
func TestSocketNewestConnectionOfADeviceWins(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	id, token := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "wallboard_boh")

	first := dial(t, env, token)
	second := dial(t, env, token)
	third := dial(t, env, token)
	if status := closedWith(t, first); status != 4001 {
		t.Fatalf("oldest socket closed with %d, want 4001", status)
	}
	env.Call(http.MethodPost, devicePath(k.orgID, id, "cast")).Token(k.owner.AccessToken).
		JSON(map[string]any{"type": "message", "text": "86 the salmon"}).Do().Expect(http.StatusOK)
	frame(t, second, "second socket")
	frame(t, third, "newest socket")
	if n := ledgerRows(t, env, id); n != 2 {
		t.Fatalf("%d sockets in the ledger, want 2", n)
	}
}

// The per-device cap holds when many connections of one device race: whatever the order, at
// most 2 stay open and every other one is closed with 4001.
func TestSocketPerDeviceCapUnderConcurrentUpgrades(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	id, token := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "wallboard_boh")
	<-env.Hub.Ready()

	const n = 16
	conns := make([]*websocket.Conn, n)
	var wg sync.WaitGroup
	for i := range conns {
		wg.Go(func() { conns[i], _ = dialFrom(t, env, token, "203.0.113.7") })
	}
	wg.Wait()
	for _, c := range conns {
		if c == nil {
			t.Fatal("an upgrade was refused")
		}
	}
	env.Call(http.MethodPost, devicePath(k.orgID, id, "cast")).Token(k.owner.AccessToken).
		JSON(map[string]any{"type": "message", "text": "Fire table 4"}).Do().Expect(http.StatusOK)
	open, replaced := outcome(t, conns)
	if open != 2 || replaced != n-2 {
		t.Fatalf("%d open and %d replaced of %d, want 2 and %d", open, replaced, n, n-2)
	}
	if rows := ledgerRows(t, env, id); rows != 2 {
		t.Fatalf("%d sockets in the ledger, want 2", rows)
	}
}

// The newest connection wins across replicas: the oldest socket, held by another replica, is
// closed through PostgreSQL.
func TestSocketNewestWinsAcrossReplicas(t *testing.T) {
	t.Parallel()
	a := apitest.New(t)
	b := a.Replica()
	k := newKitchen(a, "Harborview Kitchens")
	_, token := a.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "menu_board")

	onA := dial(t, a, token)
	dial(t, b, token)
	dial(t, b, token)
	if status := closedWith(t, onA); status != 4001 {
		t.Fatalf("socket on replica A closed with %d, want 4001", status)
	}
}

// A replica that stopped renewing its lease (it crashed, deleting nothing) no longer counts
// against the caps; one whose lease runs does.
func TestSocketsOfAReplicaWhoseLeaseEndedDoNotCount(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, withSockets(config.SocketLimits{PerOrg: 2}))
	k := newKitchen(env, "Harborview Kitchens")
	_, token := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "menu_board")

	// Another replica holds two sockets of the organization's other devices.
	ctx := context.Background()
	other := uuid.New()
	if _, err := env.Pool.Exec(ctx, `INSERT INTO realtime_replicas (id, lease_until) VALUES ($1, now() + interval '1 hour')`, other); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := env.Pool.Exec(ctx, `INSERT INTO realtime_sockets (id, replica_id, org_id, device_id, client_key)
			VALUES ($1, $2, $3, $4, '192.0.2.1')`, uuid.New(), other, k.orgID, uuid.New()); err != nil {
			t.Fatal(err)
		}
	}
	<-env.Hub.Ready()
	upgrade(env, token, env.NewIP()).ExpectCode(http.StatusTooManyRequests, "socket_limit_reached")

	// Its lease runs out, as when it crashed: its sockets stop counting.
	if _, err := env.Pool.Exec(ctx, `UPDATE realtime_replicas SET lease_until = now() - interval '1 second' WHERE id = $1`, other); err != nil {
		t.Fatal(err)
	}
	dial(t, env, token)
	dial(t, env, token)
}

// Past the organization's cap, or one client address's, over all replicas, the upgrade is
// refused with 429 and Retry-After; under concurrency exactly the cap's worth get through.
func TestSocketCapsPerOrganizationAndAddress(t *testing.T) {
	t.Parallel()
	const perOrg, perAddress = 3, 2
	a := apitest.New(t, withSockets(config.SocketLimits{PerOrg: perOrg, PerAddress: perAddress}))
	b := a.Replica()

	// The organization: devices of one organization from many addresses, on two replicas.
	k := newKitchen(a, "Harborview Kitchens")
	tokens := make([]string, 8)
	for i := range tokens {
		_, tokens[i] = a.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "kiosk")
	}
	<-b.Hub.Ready()
	opened, refused := dialAll(t, tokens, http.StatusTooManyRequests, func(i int) (*apitest.Env, string) {
		return []*apitest.Env{a, b}[i%2], a.NewIP()
	})
	if opened != perOrg || refused != len(tokens)-perOrg {
		t.Fatalf("organization: %d opened, %d refused; want %d and %d", opened, refused, perOrg, len(tokens)-perOrg)
	}
	res := upgrade(a, tokens[0], a.NewIP())
	res.ExpectCode(http.StatusTooManyRequests, "socket_limit_reached")
	expectRetryAfter(t, res.Header)
	refusedConnectionCloses(t, a, tokens[0])

	// The address: devices of several organizations behind one address.
	ip := a.NewIP()
	var behindNAT []string
	for i := range 6 {
		o := newKitchen(a, "Tenant "+strconv.Itoa(i))
		_, tok := a.PairDevice(o.owner.AccessToken, o.orgID, o.siteID, "kiosk")
		behindNAT = append(behindNAT, tok)
	}
	opened, refused = dialAll(t, behindNAT, http.StatusTooManyRequests, func(i int) (*apitest.Env, string) {
		return []*apitest.Env{a, b}[i%2], ip
	})
	if opened != perAddress || refused != len(behindNAT)-perAddress {
		t.Fatalf("address: %d opened, %d refused; want %d and %d", opened, refused, perAddress, len(behindNAT)-perAddress)
	}
	upgrade(a, behindNAT[0], ip).ExpectCode(http.StatusTooManyRequests, "socket_limit_reached")
}

// A replica at its ceiling refuses the next upgrade with 503 and Retry-After, before upgrading,
// and keeps answering everything else: readiness, sign-in, an authenticated read. Racing
// upgrades get exactly the ceiling's worth.
func TestSocketCeilingLeavesRoomForTheServer(t *testing.T) {
	t.Parallel()
	const ceiling = 6
	env := apitest.New(t, withSockets(config.SocketLimits{Ceiling: ceiling}))
	k := newKitchen(env, "Harborview Kitchens")
	tokens := make([]string, ceiling+4)
	for i := range tokens {
		_, tokens[i] = env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "kiosk")
	}
	<-env.Hub.Ready()

	opened, refused := dialAll(t, tokens, http.StatusServiceUnavailable, func(int) (*apitest.Env, string) {
		return env, env.NewIP()
	})
	if opened != ceiling || refused != len(tokens)-ceiling {
		t.Fatalf("%d opened, %d refused; want %d and %d", opened, refused, ceiling, len(tokens)-ceiling)
	}

	res := upgrade(env, tokens[0], env.NewIP())
	res.ExpectCode(http.StatusServiceUnavailable, "socket_capacity_reached")
	expectRetryAfter(t, res.Header)
	refusedConnectionCloses(t, env, tokens[0])
	env.Call(http.MethodGet, "/readyz").Do().Expect(http.StatusOK)
	s := env.SignIn(k.owner.User.Email)
	env.Call(http.MethodGet, orgPath(k.orgID, "devices")).Token(s.AccessToken).Do().Expect(http.StatusOK)
	getState(env, tokens[0]) // and polling, the devices' fallback
}

// dialAll opens a board socket for every token at once, the i-th through the replica and from
// the address at(i) gives, and counts the sockets opened and the upgrades refused with status
// (each with Retry-After); any other answer fails the test.
func dialAll(t *testing.T, tokens []string, status int, at func(i int) (*apitest.Env, string)) (opened, refused int) {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, tok := range tokens {
		env, ip := at(i)
		wg.Go(func() {
			conn, res := dialFrom(t, env, tok, ip)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case conn != nil:
				opened++
			case res != nil && res.StatusCode == status:
				expectRetryAfter(t, res.Header)
				refused++
			default:
				t.Errorf("upgrade answered %v", res)
			}
		})
	}
	wg.Wait()
	return opened, refused
}
