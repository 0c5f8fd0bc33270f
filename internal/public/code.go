package public

import (
	"crypto/rand"
	"strings"
)

// Tag codes are printed on labels and typed by hand when a QR code will not scan, so they are
// short and use Crockford's base32 alphabet: digits and capitals without I, L, O and U, which
// are easily confused. Eight characters give 2^40 codes. A code is not a
// credential (resolving one needs membership of the organization), so this only has to make
// codes hard to enumerate, not impossible to guess.
const (
	codeAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	codeLength   = 8
)

// newCode returns a random tag code. The alphabet has 32 letters, so taking 5 bits of each
// random byte is unbiased.
func newCode() string {
	b := make([]byte, codeLength)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	for i := range b {
		b[i] = codeAlphabet[b[i]&31]
	}
	return string(b)
}

// normalizeCode reads a code as typed: case-insensitively, with O as 0 and I and L as 1
// (Crockford's decoding rules).
func normalizeCode(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case 'O', 'o':
			return '0'
		case 'I', 'i', 'L', 'l':
			return '1'
		}
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, s)
}
