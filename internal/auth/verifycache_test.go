package auth

import (
	"crypto/ed25519"
	"crypto/rand"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/clock"
)

func TestVerifiedCacheHonoursExpiry(t *testing.T) {
	c := clock.NewFake(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	tokens, err := NewTokens(key, c)
	if err != nil {
		t.Fatal(err)
	}
	user := uuid.New()
	tok, _, _ := tokens.Issue(user)
	for i := 0; i < 2; i++ { // the second answer comes from the cache
		if id, _, err := tokens.Verify(tok); err != nil || id != user {
			t.Fatalf("verify %d: %v %v", i, id, err)
		}
	}
	c.Advance(AccessTokenTTL)
	if _, _, err := tokens.Verify(tok); err == nil {
		t.Fatal("expired token accepted from the cache")
	}
	if _, _, err := tokens.Verify(tok[:len(tok)-2] + "AA"); err == nil {
		t.Fatal("altered signature accepted")
	}
}

func TestVerifiedCacheStaysBounded(t *testing.T) {
	now := time.Now()
	c := newVerifiedCache(3)
	for i := 0; i < 10; i++ {
		c.put(uuid.NewString(), verifiedToken{exp: now.Add(time.Minute)}, now)
		if len(c.entries) > 3 {
			t.Fatalf("%d entries", len(c.entries))
		}
	}
}
