package webhooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/events"
	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/pg"
)

// allowPrivate lets deliveries reach the tests' loopback receivers.
func allowPrivate(c *config.Config) { c.WebhookAllowPrivate = true }

type created struct {
	ID             uuid.UUID  `json:"id"`
	URL            string     `json:"url"`
	Events         []string   `json:"events"`
	Secret         string     `json:"secret"`
	Active         bool       `json:"active"`
	LastDeliveryAt *time.Time `json:"lastDeliveryAt"`
	LastStatus     *int       `json:"lastStatus"`
	FailureCount   int        `json:"failureCount"`
}

type attempt struct {
	ID          uuid.UUID  `json:"id"`
	EventID     uuid.UUID  `json:"eventId"`
	Event       string     `json:"event"`
	State       string     `json:"state"`
	QueuedAt    time.Time  `json:"queuedAt"`
	AttemptedAt *time.Time `json:"attemptedAt"`
	Status      *int       `json:"status"`
	DurationMs  *int       `json:"durationMs"`
	Error       *string    `json:"error"`
}

func hooksPath(orgID uuid.UUID, rest ...string) string {
	p := "orgs/" + orgID.String() + "/webhooks"
	for _, r := range rest {
		p += "/" + r
	}
	return p
}

func subscribe(env *apitest.Env, token string, orgID uuid.UUID, url string, evs ...string) created {
	env.T.Helper()
	var c created
	env.Call(http.MethodPost, hooksPath(orgID)).Token(token).
		JSON(map[string]any{"url": url, "events": evs}).Do().Expect(http.StatusCreated).Decode(&c)
	return c
}

func subscription(env *apitest.Env, token string, orgID, id uuid.UUID) created {
	env.T.Helper()
	var list []created
	env.Call(http.MethodGet, hooksPath(orgID)).Token(token).Do().Expect(http.StatusOK).Decode(&list)
	for _, s := range list {
		if s.ID == id {
			return s
		}
	}
	env.T.Fatalf("subscription %s not listed", id)
	return created{}
}

func deliveries(env *apitest.Env, token string, orgID, id uuid.UUID) []attempt {
	env.T.Helper()
	var out []attempt
	env.Call(http.MethodGet, hooksPath(orgID, id.String(), "deliveries")).Token(token).Do().Expect(http.StatusOK).Decode(&out)
	return out
}

// publish records an event as a domain change would: in a transaction that commits.
func publish(t testing.TB, env *apitest.Env, orgID uuid.UUID, name string, data any) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	err := pg.InQueries(context.Background(), env.Pool, func(q *db.Queries) error {
		var err error
		id, err = events.Publish(context.Background(), q, orgID, name, env.Clock.Now(), data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// hit is one request a receiver got.
type hit struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// envelope is the body as a receiver decodes it.
type envelope struct {
	Event string          `json:"event"`
	OrgID string          `json:"orgId"`
	At    string          `json:"at"`
	Data  json.RawMessage `json:"data"`
}

func (h hit) envelope(t testing.TB) envelope {
	t.Helper()
	var e envelope
	if err := json.Unmarshal(h.Body, &e); err != nil {
		t.Fatalf("body %s: %v", h.Body, err)
	}
	return e
}

// receiver is a partner's endpoint: it records every request and answers with status.
type receiver struct {
	*httptest.Server
	status atomic.Int32
	mu     sync.Mutex
	hits   []hit
	got    chan hit
}

func newReceiver(t testing.TB, status int) *receiver {
	r := &receiver{got: make(chan hit, 1024)}
	r.status.Store(int32(status))
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		h := hit{Method: req.Method, Path: req.URL.Path, Header: req.Header.Clone(), Body: body}
		r.mu.Lock()
		r.hits = append(r.hits, h)
		r.mu.Unlock()
		r.got <- h
		w.WriteHeader(int(r.status.Load()))
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) all() []hit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]hit(nil), r.hits...)
}

// closedURL is an address nothing listens on.
func closedURL(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return "http://" + addr + "/hook"
}

// verify checks x-service-signature as a receiver would, with the standard library alone: the
// lowercase hex HMAC-SHA256 of the raw body, keyed with the secret, compared in constant time.
func verify(secret string, body []byte, signature string) bool {
	got, err := hex.DecodeString(signature)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}
