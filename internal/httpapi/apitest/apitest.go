// Package apitest runs requests through the real server, over real HTTP, against a real
// PostgreSQL database of the test's own, and validates every response against the published
// spec: a handler that answers something the spec does not describe fails its test.
package apitest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/internal/auth"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/httpapi"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/pg/pgtest"
	"github.com/sous-app/sous/internal/realtime"
)

// Epoch is where every test's fake clock starts.
var Epoch = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// cheapHash keeps argon2id real but fast; production uses OWASP's parameters.
var cheapHash = auth.HashParams{MemoryKiB: 64, Time: 1, Threads: 1}

// Env is one test's server, database and clock.
type Env struct {
	T      testing.TB
	URL    string // base URL of the server, without /v1
	Pool   *pgxpool.Pool
	Clock  *clock.Fake
	Config config.Config
	// Hub is the server's realtime hub; wait on Hub.Ready() before counting on hints.
	Hub *realtime.Hub

	router routers.Router
	client *http.Client
	key    ed25519.PrivateKey
	nextIP atomic.Uint32
	tuning Tuning
	hooks  *hooks
	// tracing makes the server's request spans (NewTraced).
	tracing bool
	// logs, when set, receives the server's access log and every line of its logger, at every
	// level (NewObserved).
	logs io.Writer
}

// Tuning sets the server's password work for a test.
type Tuning struct {
	// HashParams is argon2id's cost; nil is a cheap cost that keeps suites fast.
	HashParams *auth.HashParams
	// HashSlots is how many argon2id computations run at once; 0 is 64, so that the bound on
	// password work (and on sign-ins in progress, twice that) never refuses a test's requests
	// unless the test asks for it.
	HashSlots int
	// QueueLimit and QueueShare bound the password operations waiting for a slot, in all and per
	// client address; 0 keeps the server's own bounds.
	QueueLimit, QueueShare int
}

// hooks are shared by an Env, its copies (With) and its replicas.
type hooks struct {
	verifications atomic.Int64
	onVerify      atomic.Pointer[func()]
	onQueued      atomic.Pointer[func()]
}

// Verifications is how many password verifications the Env's servers have started.
func (e *Env) Verifications() int64 { return e.hooks.verifications.Load() }

// OnVerify makes the Env's servers call fn at the start of every password verification (nil
// removes it); fn may block to hold verifications in flight.
func (e *Env) OnVerify(fn func()) {
	if fn == nil {
		e.hooks.onVerify.Store(nil)
		return
	}
	e.hooks.onVerify.Store(&fn)
}

// OnQueued makes the Env's servers call fn whenever a password operation joins the queue for a
// slot (nil removes it); a test waits on it to know a request is queued.
func (e *Env) OnQueued(fn func()) {
	if fn == nil {
		e.hooks.onQueued.Store(nil)
		return
	}
	e.hooks.onQueued.Store(&fn)
}

// Option adjusts the server's configuration before it starts.
type Option func(*config.Config)

// New starts a server for t on a fresh database. The server trusts X-Forwarded-For from the
// loopback peer, so a test can act as many clients (see WithIP).
func New(t testing.TB, opts ...Option) *Env {
	t.Helper()
	return NewTuned(t, Tuning{}, opts...)
}

// NewTuned is New with the password work set by tuning (e.g. production's argon2id cost for a
// test that measures it).
func NewTuned(t testing.TB, tuning Tuning, opts ...Option) *Env {
	t.Helper()
	return newEnv(t, pgtest.New(t), tuning, opts...)
}

// NewBehindProxy is New with every database connection of the server (its pool, its realtime
// hub) going through a fault-injecting proxy, to act out a failover: Freeze it for a primary
// that stopped answering, Close it for one that went away. directURL reaches the test's database
// without the proxy.
func NewBehindProxy(t testing.TB, opts ...Option) (env *Env, proxy *pgtest.Proxy, directURL string) {
	t.Helper()
	directURL = pgtest.NewURL(t)
	proxy = pgtest.NewProxy(t, directURL)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := pg.ConnectWith(ctx, proxy.URL(directURL), pg.Options{
		ConnectTimeout: 500 * time.Millisecond, StatementTimeout: pg.DefaultStatementTimeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return newEnv(t, pool, Tuning{}, opts...), proxy, directURL
}

func newEnv(t testing.TB, pool *pgxpool.Pool, tuning Tuning, opts ...Option) *Env {
	t.Helper()
	return newEnvTraced(t, pool, tuning, false, nil, opts...)
}

func newEnvTraced(t testing.TB, pool *pgxpool.Pool, tuning Tuning, tracing bool, logs io.Writer, opts ...Option) *Env {
	t.Helper()
	if tuning.HashParams == nil {
		tuning.HashParams = &cheapHash
	}
	if tuning.HashSlots == 0 {
		tuning.HashSlots = 64
	}
	cfg := config.Config{
		Addr:           "127.0.0.1:0",
		WebURL:         "https://app.sous.example",
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")},
		AccessLog:      false,
		BodyLimit:      "1M",
		// Room for eight of the largest bodies at once (8 × 4 MB × 36 for HL7), so the
		// body-memory tests measure what eight bodies cost together rather than the budget's
		// queue; the budget itself is tested in internal/httpapi.
		BodyMemory: "1200M",
	}
	for _, o := range opts {
		o(&cfg)
	}
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{T: t, Pool: pool, Clock: clock.NewFake(Epoch), Config: cfg, router: specRouter(t), key: key, tuning: tuning, hooks: &hooks{}, tracing: tracing, logs: logs}
	env.serve(pool)
	env.nextIP.Store(1)
	return env
}

// serve starts a server (with its realtime hub) on pool, with the Env's configuration, clock
// and signing key, and points the Env at it.
func (e *Env) serve(pool *pgxpool.Pool) {
	t := e.T
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	var accessLog io.Writer
	if e.logs != nil {
		logger = slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		accessLog = e.logs
	}
	hub := realtime.NewHub(pool, logger)
	hub.SetLimits(realtime.Limits(e.Config.Sockets))
	lookups, err := pg.OpenLookups(pool, false, cmp.Or(e.Config.RequestTimeout, config.DefaultRequestTimeout))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lookups.Close)
	// The listener comes first so that the server's public URL (the origin of its links) is
	// the address the test reaches it at.
	srv := httptest.NewUnstartedServer(nil)
	cfg := e.Config
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://" + srv.Listener.Addr().String()
	}
	h, err := httpapi.New(httpapi.Deps{
		Config: cfg, Logger: logger, AccessLog: accessLog, Pool: pool, Lookups: lookups, Clock: e.Clock, SigningKey: e.key, Hub: hub,
		HashParams: e.tuning.HashParams, HashSlots: e.tuning.HashSlots, OnPasswordVerify: e.verified,
		HashQueueLimit: e.tuning.QueueLimit, HashQueueShare: e.tuning.QueueShare, OnPasswordQueued: e.queued,
		WebhookResolver: testResolver{}, Tracing: e.tracing,
	})
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	srv.Config.Handler = h
	srv.Config.ConnState = httpapi.ClearWriteDeadlineWhenIdle
	srv.Listener = httpapi.JSONErrorListener(srv.Listener)
	srv.Start()
	t.Cleanup(srv.Close)
	// Registered after the server, so it runs first: stopping the hub closes the WebSockets.
	hubCtx, stopHub := context.WithCancel(context.Background())
	hubDone := make(chan struct{})
	go func() { _ = hub.Run(hubCtx); close(hubDone) }()
	t.Cleanup(func() { stopHub(); <-hubDone })
	e.URL, e.client, e.Hub = srv.URL, srv.Client(), hub
}

// Replica starts a second server on the same database, clock and signing key, with a pool and
// a realtime hub of its own, as a second replica behind a load balancer. Requests made through
// the returned Env reach that server.
func (e *Env) Replica() *Env {
	e.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := pg.Connect(ctx, e.Pool.Config().ConnString())
	if err != nil {
		e.T.Fatal(err)
	}
	e.T.Cleanup(pool.Close)
	r := e.With(e.T)
	r.serve(pool)
	return r
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// specRouter finds a request's operation in the spec, for validating responses. It is built
// once per test binary: it only reads the spec.
func specRouter(t testing.TB) routers.Router {
	specRouterOnce.Do(func() {
		httpapi.DefineFormats()
		doc, err := httpapi.SharedSpec()
		if err != nil {
			specRouterErr = err
			return
		}
		routing := *doc
		routing.Servers = openapi3.Servers{{URL: httpapi.BasePath}}
		specRouterVal, specRouterErr = gorillamux.NewRouter(&routing)
	})
	if specRouterErr != nil {
		t.Fatal(specRouterErr)
	}
	return specRouterVal
}

var (
	specRouterOnce sync.Once
	specRouterVal  routers.Router
	specRouterErr  error
)

// NewIP returns a client address no other request of this Env has used.
func (e *Env) NewIP() string {
	n := e.nextIP.Add(1)
	return fmt.Sprintf("198.51.%d.%d", (n>>8)&0xff, n&0xff)
}

// Request is one call; build it with the Env's methods.
type Request struct {
	env     *Env
	method  string
	path    string
	body    []byte
	rawBody bool
	header  http.Header
	within  time.Duration
}

// Call starts a request to path (relative to /v1 when it does not start with "/v1" or "/").
func (e *Env) Call(method, path string) *Request {
	if !strings.HasPrefix(path, "/") {
		path = httpapi.BasePath + "/" + path
	}
	return &Request{env: e, method: method, path: path, header: http.Header{}}
}

// JSON sets a JSON body (marshalled unless it is already a string or []byte).
func (r *Request) JSON(v any) *Request {
	switch b := v.(type) {
	case string:
		r.body = []byte(b)
	case []byte:
		r.body = b
	default:
		raw, err := json.Marshal(v)
		if err != nil {
			r.env.T.Fatal(err)
		}
		r.body = raw
	}
	r.header.Set("Content-Type", "application/json")
	return r
}

// Raw sets a body with its content type, sent as is.
func (r *Request) Raw(contentType string, body []byte) *Request {
	r.body, r.rawBody = body, true
	r.header.Set("Content-Type", contentType)
	return r
}

// Token authenticates with a user's access token.
func (r *Request) Token(token string) *Request {
	r.header.Set("Authorization", "Bearer "+token)
	return r
}

// Header sets any header.
func (r *Request) Header(k, v string) *Request {
	r.header.Set(k, v)
	return r
}

// FromIP makes the request come from ip (through the trusted proxy's X-Forwarded-For).
func (r *Request) FromIP(ip string) *Request {
	r.header.Set("X-Forwarded-For", ip)
	return r
}

// Within bounds how long the request may wait for its answer. A handler that never returns
// would also hang the server's shutdown at the test's cleanup (httptest waits for every
// request), so a request still unanswered then ends the test binary: the regression fails
// at once instead of hanging the suite.
func (r *Request) Within(d time.Duration) *Request {
	r.within = d
	return r
}

// Response is a received and spec-validated response.
type Response struct {
	T      testing.TB
	Status int
	Header http.Header
	Body   []byte
	req    *http.Request // as sent, for Check
}

// Do sends the request and validates the response against the spec.
func (r *Request) Do() *Response {
	r.env.T.Helper()
	return r.Check(r.Send())
}

// Send sends the request and reads its response without validating it; Check validates it
// later. A measure of the server's own cost (MeasureMemory) sends with it, so that the
// validator's decoding of a large response into generic values stays out of the measure.
func (r *Request) Send() *Response {
	t := r.env.T
	t.Helper()
	ctx := context.Background()
	if r.within > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.within)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, r.method, r.env.URL+r.path, bytes.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = r.header.Clone()
	if host := req.Header.Get("Host"); host != "" {
		req.Host = host // net/http sends req.Host, never a Host header
	}
	res, err := r.env.client.Do(req)
	if err != nil && r.within > 0 && errors.Is(err, context.DeadlineExceeded) {
		// Not t.Fatal, nor a panic: both run the cleanups, which would wait for the handler.
		fmt.Fprintf(os.Stderr, "--- FAIL: %s: %s %s: no answer within %v\n", t.Name(), r.method, r.path, r.within)
		os.Exit(1)
	}
	if err != nil {
		t.Fatalf("%s %s: %v", r.method, r.path, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &Response{T: t, Status: res.StatusCode, Header: res.Header, Body: body, req: req}
}

// Check validates a response of Send against the spec.
func (r *Request) Check(res *Response) *Response {
	r.env.T.Helper()
	r.validate(res.req, res)
	return res
}

// validate checks the response against the operation's documented responses. Requests to
// routes outside the spec must still answer the JSON error shape.
func (r *Request) validate(req *http.Request, res *Response) {
	t := r.env.T
	t.Helper()
	route, params, err := r.env.router.FindRoute(req)
	if err != nil {
		if strings.HasPrefix(r.path, httpapi.BasePath+"/") && res.Status >= 400 {
			var e struct {
				Error      string `json:"error"`
				StatusCode int    `json:"statusCode"`
			}
			if json.Unmarshal(res.Body, &e) != nil || e.Error == "" || e.StatusCode != res.Status {
				t.Errorf("%s %s: non-spec route answered %d without the error shape: %s", r.method, r.path, res.Status, res.Body)
			}
		}
		return
	}
	// Every 201 says where the created resource lives (x-location in the spec).
	if res.Status == http.StatusCreated && !strings.HasPrefix(res.Header.Get("Location"), httpapi.BasePath+"/") {
		t.Errorf("%s %s: 201 without a Location header", r.method, r.path)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		},
		Status: res.Status,
		Header: res.Header,
		Body:   io.NopCloser(bytes.NewReader(res.Body)),
		Options: &openapi3filter.Options{
			IncludeResponseStatus: true,
			MultiError:            true,
		},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("%s %s: response %d does not match the spec: %v\nbody: %s", r.method, r.path, res.Status, err, truncate(res.Body))
	}
}

func truncate(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

// Expect fails the test unless the status is want.
func (res *Response) Expect(want int) *Response {
	res.T.Helper()
	if res.Status != want {
		res.T.Fatalf("status %d, want %d; body: %s", res.Status, want, truncate(res.Body))
	}
	return res
}

// Decode unmarshals the body into v.
func (res *Response) Decode(v any) *Response {
	res.T.Helper()
	if err := json.Unmarshal(res.Body, v); err != nil {
		res.T.Fatalf("decode %s: %v", truncate(res.Body), err)
	}
	return res
}

// ErrorBody is the spec's error shape.
type ErrorBody struct {
	Error      string `json:"error"`
	StatusCode int    `json:"statusCode"`
	Code       string `json:"code"`
	Feature    string `json:"feature"`
	Details    []struct {
		Field   string `json:"field"`
		Message string `json:"message"`
	} `json:"details"`
}

// Err decodes the error body, checking that statusCode repeats the status.
func (res *Response) Err() ErrorBody {
	res.T.Helper()
	var e ErrorBody
	res.Decode(&e)
	if e.StatusCode != res.Status || e.Error == "" {
		res.T.Fatalf("error body %s does not match status %d", res.Body, res.Status)
	}
	return e
}

// ExpectError fails unless the response is the error status with a message containing msg.
func (res *Response) ExpectError(status int, msg string) ErrorBody {
	res.T.Helper()
	res.Expect(status)
	e := res.Err()
	if msg != "" && !strings.Contains(e.Error, msg) {
		res.T.Fatalf("error %q does not contain %q", e.Error, msg)
	}
	return e
}

// ExpectCode fails unless the response is the error status with the given code.
func (res *Response) ExpectCode(status int, code string) ErrorBody {
	res.T.Helper()
	res.Expect(status)
	e := res.Err()
	if e.Code != code {
		res.T.Fatalf("error code %q, want %q; body: %s", e.Code, code, truncate(res.Body))
	}
	return e
}

func (e *Env) verified() {
	e.hooks.verifications.Add(1)
	if fn := e.hooks.onVerify.Load(); fn != nil {
		(*fn)()
	}
}

func (e *Env) queued() {
	if fn := e.hooks.onQueued.Load(); fn != nil {
		(*fn)()
	}
}

// With returns a copy of the Env that reports to t, for subtests sharing one server.
func (e *Env) With(t testing.TB) *Env {
	c := &Env{T: t, URL: e.URL, Pool: e.Pool, Clock: e.Clock, Config: e.Config, Hub: e.Hub, router: e.router, client: e.client, key: e.key, tuning: e.tuning, hooks: e.hooks, logs: e.logs}
	c.nextIP.Store(e.nextIP.Add(1000))
	return c
}
