package auth_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/auth"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

func TestForgedAccessTokensAreRefused(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	u := env.NewUser()
	parts := strings.Split(u.AccessToken, ".")
	b64 := base64.RawURLEncoding

	// A token signed by a key the server does not publish, even with the server's kid.
	_, otherKey, _ := ed25519.GenerateKey(rand.Reader)
	other, err := auth.NewTokens(otherKey, clock.NewFake(apitest.Epoch))
	if err != nil {
		t.Fatal(err)
	}
	foreign, _, err := other.Issue(u.User.ID)
	if err != nil {
		t.Fatal(err)
	}
	fp := strings.Split(foreign, ".")
	foreignWithOurKid := parts[0] + "." + fp[1] + "." + fp[2]

	// "alg": "none" with the server's kid.
	var header map[string]any
	raw, _ := b64.DecodeString(parts[0])
	_ = json.Unmarshal(raw, &header)
	header["alg"] = "none"
	noneHeader, _ := json.Marshal(header)
	algNone := b64.EncodeToString(noneHeader) + "." + parts[1] + "."

	// The payload changed to another subject under the original signature.
	claims := map[string]any{"iss": "sous", "sub": uuid.NewString(), "iat": apitest.Epoch.Unix(), "exp": apitest.Epoch.Add(time.Hour).Unix()}
	payload, _ := json.Marshal(claims)
	tampered := parts[0] + "." + b64.EncodeToString(payload) + "." + parts[2]

	for name, token := range map[string]string{
		"foreign key":          foreign,
		"foreign key, our kid": foreignWithOurKid,
		"alg none":             algNone,
		"tampered payload":     tampered,
		"garbage":              "not.a.jwt",
	} {
		t.Run(name, func(t *testing.T) {
			env.Call(http.MethodGet, "auth/me").Token(token).Do().ExpectError(http.StatusUnauthorized, "")
		})
	}
	env.Call(http.MethodGet, "auth/me").Header("Authorization", "Basic dXNlcjpwYXNz").Do().ExpectError(http.StatusUnauthorized, "Bearer")
}

func TestJWKSPublishesTheSigningKey(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	u := env.NewUser()
	var jwks struct {
		Keys []map[string]string `json:"keys"`
	}
	env.Call(http.MethodGet, ".well-known/jwks.json").Do().Expect(http.StatusOK).Decode(&jwks)
	raw, _ := base64.RawURLEncoding.DecodeString(strings.Split(u.AccessToken, ".")[0])
	var header map[string]string
	_ = json.Unmarshal(raw, &header)
	if header["alg"] != "EdDSA" || header["kid"] == "" {
		t.Fatalf("token header %v", header)
	}
	if len(jwks.Keys) != 1 || jwks.Keys[0]["kid"] != header["kid"] || jwks.Keys[0]["alg"] != "EdDSA" || jwks.Keys[0]["d"] != "" {
		t.Fatalf("jwks %v", jwks.Keys)
	}
}
