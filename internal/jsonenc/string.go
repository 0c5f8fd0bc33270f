// Package jsonenc appends JSON values byte for byte as encoding/json writes them, for the few
// hot responses that are assembled from parts (some encoded once and kept) instead of reflected
// over on every request.
package jsonenc

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string exactly as encoding/json.Marshal writes it: quotes,
// backslashes and control characters escaped (\b \f \n \r \t by name), <, > and & escaped for
// HTML, U+2028 and U+2029 escaped, each invalid UTF-8 byte written as \ufffd.
func AppendString(b []byte, s string) []byte { return appendString(b, s, true) }

// AppendStringKeepHTML is AppendString with <, > and & left as they are, as an encoding/json
// Encoder with SetEscapeHTML(false) writes them (log lines, which no browser renders).
func AppendStringKeepHTML(b []byte, s string) []byte { return appendString(b, s, false) }

func appendString(b []byte, s string, escapeHTML bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!escapeHTML || (c != '<' && c != '>' && c != '&')) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
