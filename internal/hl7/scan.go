package hl7

import "math/bits"

// Word-at-a-time scanning. HL7 text is separators every few bytes, which is
// the worst case for strings.IndexByte (one call per part) and for a plain
// byte loop (several instructions per byte). Reading eight bytes at once and
// turning every separator into a set bit handles both: long runs cost about
// one instruction per byte and each separator a handful.

const (
	lsb  = 0x0101010101010101
	low7 = 0x7f7f7f7f7f7f7f7f
)

// load64 reads s[i:i+8] little-endian; the compiler turns it into one load.
func load64(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// zeroBytes sets the top bit of every byte of v that is zero and clears all
// other bits. Unlike the shorter (v-lsb)&^v trick it has no false positives
// above a zero byte, so every set bit can be used directly.
func zeroBytes(v uint64) uint64 {
	return ^(((v & low7) + low7) | v | low7)
}

// matchBytes marks the bytes of v equal to the byte whose pattern (b·lsb) is
// given.
func matchBytes(v, pattern uint64) uint64 { return zeroBytes(v ^ pattern) }

// firstByte returns the index within a non-zero mask of its first marked byte.
func firstByte(mask uint64) int { return bits.TrailingZeros64(mask) >> 3 }

// indexNth returns the index of the n-th (n ≥ 1) occurrence of sep, or -1.
func indexNth(s string, sep byte, n int) int {
	i := 0
	pattern := uint64(sep) * lsb
	for ; i+8 <= len(s); i += 8 {
		m := matchBytes(load64(s, i), pattern)
		if c := bits.OnesCount64(m); c < n {
			n -= c
			continue
		}
		for ; n > 1; n-- {
			m &= m - 1
		}
		return i + firstByte(m)
	}
	for ; i < len(s); i++ {
		if s[i] == sep {
			if n--; n == 0 {
				return i
			}
		}
	}
	return -1
}

// count returns how many times sep occurs in s.
func count(s string, sep byte) int {
	if sep == 0 || s == "" {
		return 0
	}
	n, i := 0, 0
	pattern := uint64(sep) * lsb
	for ; i+8 <= len(s); i += 8 {
		n += bits.OnesCount64(matchBytes(load64(s, i), pattern))
	}
	for ; i < len(s); i++ {
		if s[i] == sep {
			n++
		}
	}
	return n
}

// partLen is the length of the part at the start of s: the index of the
// first sep, or len(s) without one. It is strings.IndexByte for the short
// strings between delimiters, where the call into the vectorised routine
// costs more than the search.
func partLen(s string, sep byte) int {
	n := len(s)
	if n >= 8 {
		pattern := uint64(sep) * lsb
		i := 0
		for ; i+8 <= n; i += 8 {
			if m := matchBytes(load64(s, i), pattern); m != 0 {
				return i + firstByte(m)
			}
		}
		if i == n {
			return n
		}
		// The tail: one overlapping read of the last eight bytes, ignoring
		// the ones already looked at.
		seen := uint(8 - (n - i))
		if m := matchBytes(load64(s, n-8), pattern) >> (8 * seen) << (8 * seen); m != 0 {
			return n - 8 + firstByte(m)
		}
		return n
	}
	for i := 0; i < n; i++ {
		if s[i] == sep {
			return i
		}
	}
	return n
}
