package auth

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwk"
	"github.com/lestrrat-go/jwx/v2/jws"
	"github.com/lestrrat-go/jwx/v2/jwt"

	"github.com/sous-app/sous/internal/clock"
)

const (
	// AccessTokenTTL is the spec's access token lifetime (expiresIn 900).
	AccessTokenTTL = 15 * time.Minute
	issuer         = "sous"
)

// Tokens issues and verifies access tokens: EdDSA JWTs whose header names the key (kid).
// Verification accepts only keys of the published set and only the algorithm stored on each
// key, so a token cannot choose its own algorithm ("none", or HS256 keyed with a public key).
type Tokens struct {
	signing  jwk.Key
	public   jwk.Set
	clock    clock.Clock
	verified *verifiedCache
}

// verifiedCacheSize bounds the verified-token cache (about 300 bytes a token).
const verifiedCacheSize = 50_000

// NewTokens signs with priv; extra public keys (e.g. a key being rotated out) also verify.
func NewTokens(priv ed25519.PrivateKey, c clock.Clock, extra ...ed25519.PublicKey) (*Tokens, error) {
	signing, err := jwk.FromRaw(priv)
	if err != nil {
		return nil, err
	}
	if err := describeKey(signing, priv.Public().(ed25519.PublicKey)); err != nil {
		return nil, err
	}
	set := jwk.NewSet()
	for _, pub := range append([]ed25519.PublicKey{priv.Public().(ed25519.PublicKey)}, extra...) {
		k, err := jwk.FromRaw(pub)
		if err != nil {
			return nil, err
		}
		if err := describeKey(k, pub); err != nil {
			return nil, err
		}
		if err := set.AddKey(k); err != nil {
			return nil, err
		}
	}
	return &Tokens{signing: signing, public: set, clock: c, verified: newVerifiedCache(verifiedCacheSize)}, nil
}

// KeyID is the kid of a public key: the first 16 hex digits of its SHA-256.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}

func describeKey(k jwk.Key, pub ed25519.PublicKey) error {
	for name, v := range map[string]any{
		jwk.KeyIDKey:     KeyID(pub),
		jwk.AlgorithmKey: jwa.EdDSA,
		jwk.KeyUsageKey:  jwk.ForSignature,
	} {
		if err := k.Set(name, v); err != nil {
			return err
		}
	}
	return nil
}

// Issue signs an access token for userID, returning it with its expiry.
func (t *Tokens) Issue(userID uuid.UUID) (string, time.Time, error) {
	now := t.clock.Now().Truncate(time.Second)
	exp := now.Add(AccessTokenTTL)
	tok, err := jwt.NewBuilder().
		Issuer(issuer).
		Subject(userID.String()).
		IssuedAt(now).
		Expiration(exp).
		Build()
	if err != nil {
		return "", time.Time{}, err
	}
	signed, err := jwt.Sign(tok, jwt.WithKey(jwa.EdDSA, t.signing))
	if err != nil {
		return "", time.Time{}, err
	}
	return string(signed), exp, nil
}

// ErrInvalidToken covers every reason an access token is refused.
var ErrInvalidToken = errors.New("invalid or expired access token")

// ErrTokenExpired is the one refusal a client acts on differently (refresh rather than sign in
// again); it is also an ErrInvalidToken.
var ErrTokenExpired = fmt.Errorf("%w: expired", ErrInvalidToken)

// Verify checks signature, issuer and expiry, and returns the token's user id and expiry.
func (t *Tokens) Verify(token string) (uuid.UUID, time.Time, error) {
	now := t.clock.Now()
	if v, ok := t.verified.get(token, now); ok {
		return v.userID, v.exp, nil
	}
	id, exp, err := t.verify(token)
	if err != nil {
		return uuid.Nil, time.Time{}, err
	}
	t.verified.put(token, verifiedToken{userID: id, exp: exp}, now)
	return id, exp, nil
}

func (t *Tokens) verify(token string) (uuid.UUID, time.Time, error) {
	tok, err := jwt.ParseString(token,
		jwt.WithKeySet(t.public, jws.WithRequireKid(true)),
		jwt.WithValidate(true),
		// Every claim the server issues is required: a token without exp would never expire,
		// one without iat or sub is not one this server signed.
		jwt.WithRequiredClaim(jwt.ExpirationKey),
		jwt.WithRequiredClaim(jwt.IssuedAtKey),
		jwt.WithRequiredClaim(jwt.IssuerKey),
		jwt.WithRequiredClaim(jwt.SubjectKey),
		jwt.WithIssuer(issuer),
		jwt.WithClock(jwt.ClockFunc(t.clock.Now)),
	)
	if errors.Is(err, jwt.ErrTokenExpired()) {
		return uuid.Nil, time.Time{}, ErrTokenExpired
	}
	if err != nil {
		return uuid.Nil, time.Time{}, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	id, err := uuid.Parse(tok.Subject())
	if err != nil {
		return uuid.Nil, time.Time{}, ErrInvalidToken
	}
	return id, tok.Expiration(), nil
}

// PublicKeys is the JWKS document that verifies access tokens.
func (t *Tokens) PublicKeys() jwk.Set { return t.public }
