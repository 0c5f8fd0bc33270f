package auth

import "testing"

// BenchmarkVerifyPasswordOWASP is the argon2id cost every sign-in pays; logins per second per
// core cannot exceed 1/(ns/op).
func BenchmarkVerifyPasswordOWASP(b *testing.B) {
	hash, err := HashPassword("walk-in-cooler-pantry-9", OWASPParams)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := VerifyPassword("walk-in-cooler-pantry-9", hash); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
