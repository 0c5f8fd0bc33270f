// Package secret makes the bearer secrets the server recognises but never stores: refresh
// tokens, invitation tokens, API keys, device tokens, share tokens. Each is 256 random bits,
// printable with a prefix naming its kind; only its SHA-256 is kept. A 256-bit random value
// needs no salt or slow hash: it cannot be guessed, only stolen.
package secret

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// New returns a fresh secret "<prefix><43 base64url characters>" and the hash to store.
func New(prefix string) (token string, hash []byte) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	token = prefix + base64.RawURLEncoding.EncodeToString(b)
	return token, Hash(token)
}

// Hash is the stored form of a presented secret. Lookups go by this hash through a unique
// index, so no comparison of the secret itself ever happens in Go.
func Hash(token string) []byte {
	sum := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return sum[:]
}
