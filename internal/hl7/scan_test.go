package hl7

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// The word-at-a-time helpers must agree with the obvious byte-by-byte
// definitions on every length and alignment, including bytes 0x00, 0x7f,
// 0x80 and 0xff that trip up SWAR tricks.
func TestScanHelpersMatchReference(t *testing.T) {
	alphabet := []byte{'|', '^', '~', '\\', '&', '"', 'A', 'z', '0', ' ', '\t', 0x00, 0x7f, 0x80, 0xff, 0x01, 0xfe}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, rng.IntN(40))
		if rng.IntN(4) == 0 {
			b = b[:min(len(b), 3)] // short values such as `""` are the common case
		}
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		s := string(b)
		sep := alphabet[rng.IntN(len(alphabet))]

		want := strings.IndexByte(s, sep)
		if want < 0 {
			want = len(s)
		}
		if got := partLen(s, sep); got != want {
			t.Fatalf("partLen(%q, %q) = %d, want %d", s, sep, got, want)
		}
		if got, want := count(s, sep), strings.Count(s, string([]byte{sep})); sep != 0 && got != want {
			t.Fatalf("count(%q, %q) = %d, want %d", s, sep, got, want)
		}
		n := 1 + rng.IntN(6)
		wantNth, seen := -1, 0
		for i := range len(s) {
			if s[i] == sep {
				if seen++; seen == n {
					wantNth = i
					break
				}
			}
		}
		if got := indexNth(s, sep, n); got != wantNth {
			t.Fatalf("indexNth(%q, %q, %d) = %d, want %d", s, sep, n, got, wantNth)
		}
		wantNeeds := strings.IndexByte(s, sep) >= 0 || strings.IndexByte(s, 0) >= 0 || strings.IndexFunc(s, func(r rune) bool { return r >= utf8.RuneSelf }) >= 0
		if got := needsDecoding(s, sep); got != wantNeeds {
			t.Fatalf("needsDecoding(%q, %q) = %v, want %v", s, sep, got, wantNeeds)
		}
		enc := Encoding{Field: '|', Component: '^', Repetition: '~', Escape: sep, SubComponent: '&'}
		if got, want := value(s, &enc), clean(decode(s, &enc)); got != want {
			t.Fatalf("value(%q) = %q, want %q", s, got, want)
		}
		c := newCursor(s, sep)
		parts := strings.Split(s, string([]byte{sep}))
		for _, k := range []int{1, 2, 3, 2, 5, 1, 9} {
			want := ""
			if k <= len(parts) {
				want = parts[k-1]
			}
			if got := c.part(k); sep != 0 && got != want {
				t.Fatalf("cursor(%q, %q).part(%d) = %q, want %q", s, sep, k, got, want)
			}
		}
	}
}

func TestPartLenMatchesIndexByte(t *testing.T) {
	for n := 0; n <= 40; n++ {
		for at := -1; at < n; at++ {
			b := make([]byte, n)
			for i := range b {
				b[i] = 'a' + byte(i%26)
			}
			want := n
			if at >= 0 {
				b[at] = '|'
				want = at
			}
			if got := partLen(string(b), '|'); got != want {
				t.Fatalf("partLen(%q) = %d, want %d", b, got, want)
			}
		}
	}
}
