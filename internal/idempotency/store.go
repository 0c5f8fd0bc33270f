// Package idempotency keeps the first response to each Idempotency-Key in PostgreSQL, so a
// retried request is answered with that response instead of running again, on every replica.
// The HTTP side (which operations, which scope, capturing the response) is internal/httpapi's.
package idempotency

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/periodic"
	"github.com/sous-app/sous/internal/pg"
)

// TTL is how long a key's response is kept and replayed (Stripe's 24 hours).
const TTL = 24 * time.Hour

// StaleAfter is how long a reservation whose request never completed (its replica died) blocks
// the key; after it, a retry runs. Longer than any request runs.
const StaleAfter = 5 * time.Minute

// Response is what is replayed: the status, the headers that matter, the body.
type Response struct {
	Status int         `json:"status"`
	Header http.Header `json:"header"`
	Body   []byte      `json:"body"`
}

// Reservation is a key taken by this request; exactly one of Complete or Release must follow.
type Reservation struct {
	scope   string
	keyHash []byte
	encKey  []byte
	token   uuid.UUID
}

var (
	errInUse = apierr.Conflict("A request with this Idempotency-Key is still being processed; retry shortly").
			WithCode(apierr.CodeIdempotencyKeyInUse)
	errReused = apierr.Unprocessable("This Idempotency-Key was used with a different request").
			WithCode(apierr.CodeIdempotencyKeyReused)
)

// Store reads and writes keys.
type Store struct {
	pool  *pgxpool.Pool
	clock clock.Clock
}

func NewStore(pool *pgxpool.Pool, c clock.Clock) *Store { return &Store{pool: pool, clock: c} }

// Caller is whose key it is and what it may do. Keys are the caller's own (Scope), and a stored
// response is replayed only while the caller still holds every right (Grant) the first request
// ran under: the checks a handler makes (a resource's site, a credential) passed for those.
type Caller struct {
	Scope string
	Grant Grant
}

// Grant is what a member may do in the organization: role, sites and credentials. The zero
// Grant (no role) is a caller without a membership: an API key, a user outside an
// organization, a client address.
type Grant struct {
	Role        authz.Role
	SiteIDs     []uuid.UUID // empty: every site
	Credentials []string
}

// Includes reports whether g holds every right of first: a role at least as high, every site
// (or all of them), every credential. Every check a handler makes passes for more rights when it
// passed for fewer, so a response made under first may be shown to g.
func (g Grant) Includes(first Grant) bool {
	if first.Role != "" && !g.Role.AtLeast(first.Role) {
		return false
	}
	if len(g.SiteIDs) > 0 {
		if len(first.SiteIDs) == 0 {
			return false
		}
		for _, s := range first.SiteIDs {
			if !slices.Contains(g.SiteIDs, s) {
				return false
			}
		}
	}
	for _, c := range first.Credentials {
		if !slices.Contains(g.Credentials, c) {
			return false
		}
	}
	return true
}

func (g Grant) role() *string {
	if g.Role == "" {
		return nil
	}
	r := string(g.Role)
	return &r
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Begin reserves the caller's key for a request whose hash is requestHash. It returns a
// reservation to run the request under, or the stored response to replay, or the 409 (in flight)
// or 422 (another request) error. A completed key whose caller lost a right since is taken over:
// the request runs again under the present rights, and its answer is the key's from then on.
func (s *Store) Begin(ctx context.Context, caller Caller, key string, requestHash []byte) (*Reservation, *Response, error) {
	scope, g := caller.Scope, caller.Grant
	r := &Reservation{scope: scope, keyHash: keyHash(scope, key), encKey: encKey(scope, key)}
	q := db.New(s.pool)
	// A row can vanish or change hands between the statements (its request failed and released
	// it, another retry took it over), so try again a few times; each round either reserves or
	// reads a row.
	for range 3 {
		now := s.clock.Now()
		token, err := uuid.NewV7()
		if err != nil {
			return nil, nil, err
		}
		got, err := q.ReserveIdempotencyKey(ctx, db.ReserveIdempotencyKeyParams{
			Scope: scope, KeyHash: r.keyHash, Token: token, RequestHash: requestHash,
			Now: now, ExpiresAt: now.Add(TTL), StaleBefore: now.Add(-StaleAfter),
			Role: g.role(), SiteIds: orEmpty(g.SiteIDs), Credentials: orEmpty(g.Credentials),
		})
		if err == nil {
			r.token = got
			return r, nil, nil
		}
		if !pg.IsNoRows(err) {
			return nil, nil, err
		}
		row, err := q.GetIdempotencyKey(ctx, db.GetIdempotencyKeyParams{Scope: scope, KeyHash: r.keyHash, Now: now})
		if pg.IsNoRows(err) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if string(row.RequestHash) != string(requestHash) {
			return nil, nil, errReused
		}
		if row.Status == nil {
			return nil, nil, errInUse
		}
		first := Grant{SiteIDs: row.SiteIds, Credentials: row.Credentials}
		if row.Role != nil {
			first.Role = authz.Role(*row.Role)
		}
		if !g.Includes(first) {
			got, err := q.TakeOverIdempotencyKey(ctx, db.TakeOverIdempotencyKeyParams{
				Token: token, RequestHash: requestHash, Now: now, ExpiresAt: now.Add(TTL),
				Role: g.role(), SiteIds: orEmpty(g.SiteIDs), Credentials: orEmpty(g.Credentials),
				Scope: scope, KeyHash: r.keyHash, OldToken: row.Token,
			})
			if pg.IsNoRows(err) {
				continue
			}
			if err != nil {
				return nil, nil, err
			}
			r.token = got
			return r, nil, nil
		}
		res, err := open(r.encKey, row.Response)
		if err != nil {
			return nil, nil, fmt.Errorf("idempotency: stored response: %w", err)
		}
		return nil, res, nil
	}
	return nil, nil, errInUse
}

// Complete stores the response of the reserved request for replay.
func (s *Store) Complete(ctx context.Context, r *Reservation, res Response) error {
	sealed, err := seal(r.encKey, res)
	if err != nil {
		return err
	}
	status := int32(res.Status)
	return db.New(s.pool).CompleteIdempotencyKey(ctx, db.CompleteIdempotencyKeyParams{
		Status: &status, Response: sealed, Scope: r.scope, KeyHash: r.keyHash, Token: r.token,
	})
}

// Release gives the key up (the request failed in a way a retry should run again).
func (s *Store) Release(ctx context.Context, r *Reservation) error {
	return db.New(s.pool).ReleaseIdempotencyKey(ctx, db.ReleaseIdempotencyKeyParams{
		Scope: r.scope, KeyHash: r.keyHash, Token: r.token,
	})
}

const pruneBatch = 5000

// Prune deletes expired keys in batches.
func (s *Store) Prune(ctx context.Context) error {
	for {
		n, err := db.New(s.pool).PruneIdempotencyKeys(ctx, db.PruneIdempotencyKeysParams{Now: s.clock.Now(), Batch: pruneBatch})
		if err != nil || n < pruneBatch {
			return err
		}
	}
}

// PruneTask deletes expired keys hourly; a key expired but not yet pruned is never replayed.
func PruneTask(pool *pgxpool.Pool, c clock.Clock) periodic.Task {
	s := NewStore(pool, c)
	return periodic.Task{Name: "idempotency: expired keys", Every: time.Hour, Run: s.Prune}
}

// The row is found by a hash of the key, and the response sealed with a key derived from it:
// someone reading the table learns neither the keys nor the responses (which may hold a secret
// shown once) without the Idempotency-Key the client chose.
func keyHash(scope, key string) []byte {
	h := sha256.Sum256([]byte("sous idempotency key\x00" + scope + "\x00" + key))
	return h[:]
}

func encKey(scope, key string) []byte {
	h := sha256.Sum256([]byte("sous idempotency response\x00" + scope + "\x00" + key))
	return h[:]
}

func seal(key []byte, res Response) ([]byte, error) {
	plain, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	aead, err := gcm(key)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return aead.Seal(nonce, nonce, plain, nil), nil
}

func open(key, sealed []byte) (*Response, error) {
	aead, err := gcm(key)
	if err != nil {
		return nil, err
	}
	if len(sealed) < aead.NonceSize() {
		return nil, errors.New("too short")
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], nil)
	if err != nil {
		return nil, err
	}
	var res Response
	if err := json.Unmarshal(plain, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

func gcm(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
