package auth

import (
	"crypto/ed25519"
	"crypto/rand"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/clock"
)

func benchTokens(b *testing.B) (*Tokens, string) {
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	tokens, err := NewTokens(key, clock.NewFake(time.Now()))
	if err != nil {
		b.Fatal(err)
	}
	tok, _, err := tokens.Issue(uuid.New())
	if err != nil {
		b.Fatal(err)
	}
	return tokens, tok
}

// BenchmarkVerifyUncached is the full EdDSA verification a request pays without the cache.
func BenchmarkVerifyUncached(b *testing.B) {
	tokens, tok := benchTokens(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := tokens.verify(tok); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyCached is what a repeat request with the same token pays.
func BenchmarkVerifyCached(b *testing.B) {
	tokens, tok := benchTokens(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := tokens.Verify(tok); err != nil {
			b.Fatal(err)
		}
	}
}
