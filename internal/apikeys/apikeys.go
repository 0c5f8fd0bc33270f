// Package apikeys owns organization API keys: created, listed and revoked by owners on plans
// with the api_keys feature, shown once, stored hashed, and accepted only by the operations whose
// spec security lists x-api-key.
package apikeys

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/principal"
	"github.com/sous-app/sous/internal/secret"
)

const (
	keyPrefix = "sous_"
	// shownPrefix characters of a key are kept in clear, so owners can tell keys apart in lists.
	shownPrefix = len(keyPrefix) + 6
	// touchEvery bounds how often lastUsedAt is written for a busy key.
	touchEvery = time.Minute
)

// Note accompanies a new key in the creation response.
const Note = "Store this key now; it is shown only once. Read-only scope, accepted only by POST /orgs/{orgId}/adt/hl7 in header x-api-key."

var errInvalidKey = apierr.Unauthenticated("Invalid API key").WithCode(apierr.CodeInvalidAPIKey)

// Handlers implements the API key operations and authenticates x-api-key.
type Handlers struct {
	pool  *pgxpool.Pool
	clock clock.Clock

	mu      sync.Mutex
	touched map[uuid.UUID]time.Time // when this replica last wrote lastUsedAt, per key
}

func NewHandlers(pool *pgxpool.Pool, c clock.Clock) *Handlers {
	return &Handlers{pool: pool, clock: c, touched: map[uuid.UUID]time.Time{}}
}

func (h *Handlers) CreateApiKey(ctx context.Context, req api.CreateApiKeyRequestObject) (api.CreateApiKeyResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(req.Body.Name)
	if name == "" {
		return nil, apierr.InvalidField("name", "must not be blank")
	}
	key, hash := secret.New(keyPrefix)
	now := h.clock.Now()
	creator := a.UserID()
	var row db.ApiKey
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		row, err = q.CreateAPIKey(ctx, db.CreateAPIKeyParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, Name: name, Prefix: key[:shownPrefix],
			KeyHash: hash, CreatedBy: &creator, Now: now,
		})
		if err != nil {
			return err
		}
		return audit.Record(ctx, q, req.OrgId, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateApiKey201JSONResponse{Body: api.CreatedApiKey{
		Id: row.ID, Name: row.Name, Key: key, Note: Note, Prefix: row.Prefix, CreatedAt: row.CreatedAt,
	}}, nil
}

func (h *Handlers) ListApiKeys(ctx context.Context, req api.ListApiKeysRequestObject) (api.ListApiKeysResponseObject, error) {
	rows, err := db.New(h.pool).ListAPIKeys(ctx, req.OrgId)
	if err != nil {
		return nil, err
	}
	out := make(api.ListApiKeys200JSONResponse, 0, len(rows))
	for _, k := range rows {
		out = append(out, api.ApiKey{
			Id: k.ID, Name: k.Name, Prefix: k.Prefix, LastUsedAt: k.LastUsedAt,
			Active: k.RevokedAt == nil, CreatedAt: k.CreatedAt,
		})
	}
	return out, nil
}

func (h *Handlers) RevokeApiKey(ctx context.Context, req api.RevokeApiKeyRequestObject) (api.RevokeApiKeyResponseObject, error) {
	now := h.clock.Now()
	err := pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		if _, err := q.RevokeAPIKey(ctx, db.RevokeAPIKeyParams{OrgID: req.OrgId, ID: req.Id, Now: now}); err != nil {
			if pg.IsNoRows(err) {
				return apierr.NotFound("API key")
			}
			return err
		}
		return audit.Record(ctx, q, req.OrgId, req.Id, now)
	})
	if err != nil {
		return nil, err
	}
	return api.RevokeApiKey204Response{}, nil
}

// Authenticate resolves an x-api-key for an operation of orgID. A wrong, revoked or
// other-organization key is the same 401 "Invalid API key": the answer says nothing about keys
// of other organizations. Revocation takes effect at once because every request looks the key up.
func (h *Handlers) Authenticate(ctx context.Context, key string, orgID uuid.UUID) (principal.Principal, error) {
	row, err := db.New(h.pool).GetAPIKeyByHash(ctx, secret.Hash(key))
	if pg.IsNoRows(err) {
		return principal.Principal{}, errInvalidKey
	}
	if err != nil {
		return principal.Principal{}, err
	}
	if row.RevokedAt != nil || row.OrgID != orgID {
		return principal.Principal{}, errInvalidKey
	}
	if err := h.touch(ctx, row.ID); err != nil {
		return principal.Principal{}, err
	}
	return principal.Principal{Kind: principal.APIKey, OrgID: row.OrgID, APIKeyID: row.ID}, nil
}

// touch records use at most once a minute per key: this replica skips the statement when it
// wrote recently, and the statement itself skips the row when another replica did.
func (h *Handlers) touch(ctx context.Context, id uuid.UUID) error {
	now := h.clock.Now()
	h.mu.Lock()
	last, ok := h.touched[id]
	due := !ok || now.Sub(last) >= touchEvery
	if due {
		h.touched[id] = now
	}
	h.mu.Unlock()
	if !due {
		return nil
	}
	return db.New(h.pool).TouchAPIKey(ctx, db.TouchAPIKeyParams{ID: id, Now: now, StaleBefore: now.Add(-touchEvery)})
}
