package hl7

import (
	"strings"
	"unicode/utf8"
)

// decode turns one leaf of raw field text into the value callers see: escape
// sequences resolved, stray non-UTF-8 bytes re-encoded and NUL bytes dropped,
// so that every value can go straight into a JSON document or a text column.
// The common case — no escape character, ASCII or UTF-8 text — returns s
// itself without copying.
func decode(s string, enc *Encoding) string {
	// One pass over the short values that make up nearly all traffic beats
	// three vectorised scans (escape, NUL, UTF-8) with their call overhead.
	if needsDecoding(s, enc.Escape) {
		return decodeSlow(s, enc)
	}
	return s
}

// needsDecoding reports whether s holds the escape character, a NUL or a
// non-ASCII byte, eight bytes at a time (see scan.go). Strings of eight bytes
// or more finish with one overlapping read instead of a byte loop.
func needsDecoding(s string, esc byte) bool {
	const high = 0x8080808080808080
	pattern := uint64(esc) * lsb
	if len(s) < 8 {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c == esc || c == 0 || c >= utf8.RuneSelf {
				return true
			}
		}
		return false
	}
	test := func(v uint64) bool { return (v&high)|zeroBytes(v)|matchBytes(v, pattern) != 0 }
	for i := 0; i+8 <= len(s); i += 8 {
		if test(load64(s, i)) {
			return true
		}
	}
	return test(load64(s, len(s)-8))
}

func decodeSlow(s string, enc *Encoding) string {
	if enc.Escape != 0 && strings.IndexByte(s, enc.Escape) >= 0 {
		s = unescape(s, enc)
	}
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return s
	}
	return repairText(s)
}

// unescape resolves HL7 escape sequences. Escape sequences never contain a
// delimiter, so callers split on delimiters first and unescape the pieces.
// The result is never longer than s: every sequence decodes to fewer bytes
// than it occupies, and unknown or unterminated sequences are copied as-is.
// Each step consumes the text up to the next escape character, so the work
// is linear however the escape characters are arranged.
func unescape(s string, enc *Encoding) string {
	esc := enc.Escape
	// A Builder hands its buffer over as the string without a second copy.
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := strings.IndexByte(s, esc)
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		j := strings.IndexByte(s[i+1:], esc)
		if j < 0 { // unterminated: the escape character is plain text
			b.WriteString(s[i:])
			break
		}
		if writeEscape(&b, s[i+1:i+1+j], enc) {
			s = s[i+2+j:]
			continue
		}
		// Not a sequence we know: the escape character is text, and its
		// would-be closing one may open a real sequence ("50\50 \T\ 50").
		b.WriteByte(esc)
		s = s[i+1:]
	}
	return b.String()
}

// writeEscape writes the text one escape sequence stands for and reports
// whether it knew the sequence. Character-set switches (\C..\, \M..\),
// locally defined \Z..\ and most formatting commands are not interpreted;
// the caller then keeps them in the text so a human sees what was sent.
func writeEscape(b *strings.Builder, seq string, enc *Encoding) bool {
	switch len(seq) {
	case 0:
		return false
	case 1:
		var c byte
		switch seq[0] {
		case 'F':
			c = enc.Field
		case 'S':
			c = enc.Component
		case 'T':
			c = enc.SubComponent
		case 'R':
			c = enc.Repetition
		case 'E':
			c = enc.Escape
		case 'P':
			c = enc.Truncation
		case 'H', 'N':
			// Highlight on/off carries no text.
			return true
		}
		if c == 0 {
			return false
		}
		b.WriteByte(c)
		return true
	}
	switch {
	case seq[0] == 'X' && len(seq) >= 3 && len(seq)%2 == 1:
		for k := 1; k < len(seq); k++ {
			if _, ok := unhex(seq[k]); !ok {
				return false
			}
		}
		for k := 1; k < len(seq); k += 2 {
			hi, _ := unhex(seq[k])
			lo, _ := unhex(seq[k+1])
			b.WriteByte(hi<<4 | lo)
		}
		return true
	case strings.EqualFold(seq, ".br"):
		b.WriteByte('\n')
		return true
	case len(seq) >= 3 && strings.EqualFold(seq[:3], ".sp"):
		// ".sp n" asks for n blank lines; one line break keeps the meaning
		// without letting a sender inflate the value.
		b.WriteByte('\n')
		return true
	}
	return false
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// repairText drops NUL bytes and reads every byte that is not part of valid
// UTF-8 as Windows-1252, the de-facto charset of feeds that do not send UTF-8
// (smart quotes pasted into notes, accented names). Bytes Windows-1252 leaves
// undefined become U+FFFD.
func repairText(s string) string {
	// Size the result exactly first: growing a buffer by appends would
	// allocate several times the output for a large field.
	n := 0
	for i := 0; i < len(s); {
		r, size := repairRune(s[i:])
		if r >= 0 {
			n += utf8.RuneLen(r)
		}
		i += size
	}
	var b strings.Builder
	b.Grow(n)
	for i := 0; i < len(s); {
		r, size := repairRune(s[i:])
		if r >= 0 {
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// repairRune reads the first character of s for repairText: -1 for a NUL,
// which is dropped, and Windows-1252 for a byte that does not start valid
// UTF-8.
func repairRune(s string) (rune, int) {
	c := s[0]
	switch {
	case c == 0:
		return -1, 1
	case c < utf8.RuneSelf:
		return rune(c), 1
	}
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && size == 1 {
		if c < 0xa0 {
			return cp1252[c-0x80], 1
		}
		return rune(c), 1
	}
	return r, size
}

// cp1252 maps Windows-1252 bytes 0x80–0x9F; the rest of the upper half equals
// Latin-1 and therefore the Unicode code point.
var cp1252 = [32]rune{
	0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD,
	0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178,
}
