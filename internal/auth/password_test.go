package auth

import (
	"strings"
	"testing"
)

func TestHashAndVerify(t *testing.T) {
	p := HashParams{MemoryKiB: 64, Time: 1, Threads: 1}
	h, err := HashPassword("walk-in-cooler-pantry-9", p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("hash %q", h)
	}
	for pw, want := range map[string]bool{"walk-in-cooler-pantry-9": true, "walk-in-cooler-pantry-8": false, "": false} {
		ok, err := VerifyPassword(pw, h)
		if err != nil || ok != want {
			t.Fatalf("verify %q = %v, %v; want %v", pw, ok, err, want)
		}
	}
	h2, _ := HashPassword("walk-in-cooler-pantry-9", p)
	if h == h2 {
		t.Fatal("two hashes of one password are equal: salt missing")
	}
	if _, err := VerifyPassword("x", "$argon2id$garbage"); err == nil {
		t.Fatal("malformed hash accepted")
	}
}

func TestOWASPParamsAreStoredInTheHash(t *testing.T) {
	h, err := HashPassword("walk-in-cooler-pantry-9", OWASPParams)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h, "$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q", h)
	}
}

func TestCheckNewPassword(t *testing.T) {
	cases := []struct {
		password string
		ok       bool
	}{
		{"walk-in-cooler-pantry-9", true},
		{"Zwölf Zeichen ü", true}, // counted in characters, not bytes
		{"elevenchars", false},
		{strings.Repeat("x", 12), false},
		{"123456789012", false},
		{"PASSWORD1234", false}, // blocklist is case-insensitive
		{"qwertyuiopas", false},
		{"abcdefghijklmn", false},
		{"chef@kitchen.example", false}, // the email itself
		{strings.Repeat("ab", 128) + "c", false},
		{strings.Repeat("abc", 85) + "d", true}, // 256 characters
	}
	for _, tc := range cases {
		err := CheckNewPassword("password", tc.password, "chef@kitchen.example", "Chef")
		if (err == nil) != tc.ok {
			t.Errorf("%q: err = %v, want ok=%v", tc.password, err, tc.ok)
		}
	}
}
