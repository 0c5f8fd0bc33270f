package apitest

import (
	"crypto/ed25519"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwk"
	"github.com/lestrrat-go/jwx/v2/jwt"

	"github.com/sous-app/sous/internal/auth"
)

// SignToken signs an access token with exactly claims, with the server's own key and kid, so a
// test can present tokens the server would never issue (a claim missing, an odd value).
func (e *Env) SignToken(claims map[string]any) string {
	e.T.Helper()
	tok := jwt.New()
	for k, v := range claims {
		if err := tok.Set(k, v); err != nil {
			e.T.Fatal(err)
		}
	}
	key, err := jwk.FromRaw(e.key)
	if err != nil {
		e.T.Fatal(err)
	}
	if err := key.Set(jwk.KeyIDKey, auth.KeyID(e.key.Public().(ed25519.PublicKey))); err != nil {
		e.T.Fatal(err)
	}
	signed, err := jwt.Sign(tok, jwt.WithKey(jwa.EdDSA, key))
	if err != nil {
		e.T.Fatal(err)
	}
	return string(signed)
}
