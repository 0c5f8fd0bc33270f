// Package capability is the token-in-URL mechanism behind the public links of the spec:
// /survey/{token}, /share/q/{token} (catering quote), /share/i/{token} (catering invoice) and
// /share/insp/{token} (inspection report). Whoever holds the URL may view the target, so:
//
//   - a token is 256 random bits (43 base64url characters) and only its SHA-256 is stored;
//   - a target has at most one live token per kind: issuing again rotates, and the previous
//     token stops working at once; revoking ends the link;
//   - resolving is rate-limited per client IP (ratelimit.CapabilityLink, all kinds together),
//     and an unknown, revoked, expired or other-kind token is the same 404 "Link not found";
//   - the resolved Target carries the organization for the server's own lookups only: public
//     responses show display data, never organization ids or internal linkage (a spec test
//     walks the public {token} operations' response schemas for id fields).
//
// The capabilities that own the targets (surveys, catering, inspections) call Issue and Revoke
// in their own transactions and Resolve from their public handlers.
package capability

import (
	"context"
	"encoding/base64"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/ratelimit"
	"github.com/sous-app/sous/internal/reqinfo"
	"github.com/sous-app/sous/internal/secret"
)

// Kind is what a link shows; each has its public path.
type Kind string

const (
	Survey     Kind = "survey"     // GET /survey/{token}, POST /survey/{token}/submit
	Quote      Kind = "quote"      // GET /share/q/{token}
	Invoice    Kind = "invoice"    // GET /share/i/{token}
	Inspection Kind = "inspection" // GET /share/insp/{token}
)

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool { return k == Survey || k == Quote || k == Invoice || k == Inspection }

// ErrNotFound is the answer for every token that does not open a link.
var ErrNotFound = apierr.NotFound("Link").WithCode(apierr.CodeLinkNotFound)

// tokenLength is the length of a token: 32 bytes in unpadded base64url.
var tokenLength = base64.RawURLEncoding.EncodedLen(32)

// Target is what a token opens. OrgID is for the server's lookups; never put it in a response.
type Target struct {
	Kind      Kind
	OrgID     uuid.UUID
	ID        uuid.UUID
	ExpiresAt *time.Time
}

// Options of Issue.
type Options struct {
	CreatedBy *uuid.UUID
	// ExpiresAt ends the link at that time; nil keeps it until revoked or reissued.
	ExpiresAt *time.Time
}

// Issue returns a new token for the target in the transaction behind q. A live token of the
// same kind for the target is revoked first: issuing again is reissuing, and rotates the link.
// The token is returned once; only its hash is kept.
func Issue(ctx context.Context, q *db.Queries, orgID uuid.UUID, kind Kind, targetID uuid.UUID, now time.Time, o Options) (string, error) {
	if !kind.Valid() {
		return "", apierr.Internal(errKind(kind))
	}
	if _, err := q.RevokeCapabilityTokens(ctx, db.RevokeCapabilityTokensParams{Now: now, OrgID: orgID, Kind: string(kind), TargetID: targetID}); err != nil {
		return "", err
	}
	token, hash := secret.New("")
	_, err := q.InsertCapabilityToken(ctx, db.InsertCapabilityTokenParams{
		ID: uuid.Must(uuid.NewV7()), OrgID: orgID, Kind: string(kind), TargetID: targetID,
		TokenHash: hash, CreatedBy: o.CreatedBy, Now: now, ExpiresAt: o.ExpiresAt,
	})
	if err != nil {
		return "", err
	}
	return token, nil
}

// Revoke ends the target's link of that kind, if any, and reports whether there was one.
func Revoke(ctx context.Context, q *db.Queries, orgID uuid.UUID, kind Kind, targetID uuid.UUID, now time.Time) (bool, error) {
	n, err := q.RevokeCapabilityTokens(ctx, db.RevokeCapabilityTokensParams{Now: now, OrgID: orgID, Kind: string(kind), TargetID: targetID})
	return n > 0, err
}

// Link describes a target's live link without its token (which is not kept).
type Link struct {
	CreatedAt time.Time
	ExpiresAt *time.Time
}

// Live reports the target's live link of that kind, if any, for showing "shared since" in the
// owning capability's responses.
func Live(ctx context.Context, q *db.Queries, orgID uuid.UUID, kind Kind, targetID uuid.UUID, now time.Time) (Link, bool, error) {
	row, err := q.GetLiveCapabilityToken(ctx, db.GetLiveCapabilityTokenParams{OrgID: orgID, Kind: string(kind), TargetID: targetID})
	if pg.IsNoRows(err) {
		return Link{}, false, nil
	}
	if err != nil {
		return Link{}, false, err
	}
	if row.ExpiresAt != nil && !now.Before(*row.ExpiresAt) {
		return Link{}, false, nil
	}
	return Link{CreatedAt: row.CreatedAt, ExpiresAt: row.ExpiresAt}, true, nil
}

// Resolver resolves the tokens of public requests.
type Resolver struct {
	pool    *pgxpool.Pool
	clock   clock.Clock
	limiter *ratelimit.Limiter
}

func NewResolver(pool *pgxpool.Pool, c clock.Clock, limiter *ratelimit.Limiter) *Resolver {
	return &Resolver{pool: pool, clock: c, limiter: limiter}
}

// Resolve returns the target a token of kind opens. Every call counts against the client IP's
// limit (429 beyond it), found or not, so tokens cannot be probed at speed; every token that
// opens nothing is the same ErrNotFound.
func (r *Resolver) Resolve(ctx context.Context, kind Kind, token string) (Target, error) {
	return r.resolve(ctx, ratelimit.CapabilityLink, kind, token)
}

// ResolveWrite is Resolve for a public write through the link (accepting a quote, submitting a
// survey): it counts against the client IP's write limit (ratelimit.CapabilityLinkWrite).
func (r *Resolver) ResolveWrite(ctx context.Context, kind Kind, token string) (Target, error) {
	return r.resolve(ctx, ratelimit.CapabilityLinkWrite, kind, token)
}

func (r *Resolver) resolve(ctx context.Context, rule ratelimit.Rule, kind Kind, token string) (Target, error) {
	ip := reqinfo.ClientKey(ctx)
	if ip == "" {
		ip = "unknown"
	}
	if err := r.limiter.Take(ctx, rule, ip); err != nil {
		return Target{}, err
	}
	if len(token) != tokenLength {
		return Target{}, ErrNotFound
	}
	if _, err := base64.RawURLEncoding.DecodeString(token); err != nil {
		return Target{}, ErrNotFound
	}
	row, err := db.New(r.pool).GetCapabilityTokenByHash(ctx, secret.Hash(token))
	if pg.IsNoRows(err) {
		return Target{}, ErrNotFound
	}
	if err != nil {
		return Target{}, err
	}
	now := r.clock.Now()
	if row.Kind != string(kind) || row.RevokedAt != nil || (row.ExpiresAt != nil && !now.Before(*row.ExpiresAt)) {
		return Target{}, ErrNotFound
	}
	return Target{Kind: kind, OrgID: row.OrgID, ID: row.TargetID, ExpiresAt: row.ExpiresAt}, nil
}

type errKind Kind

func (e errKind) Error() string { return "capability: unknown kind " + string(e) }
