package hl7

import (
	"fmt"
	"strings"
)

// Encoding holds the delimiters one message declares in MSH-1 and MSH-2. A
// zero byte means the message did not declare that delimiter (MSH-2 may be
// shorter than the usual four characters), and text is then never split or
// unescaped on it.
type Encoding struct {
	Field        byte // MSH-1, usually '|'
	Component    byte // MSH-2[0], usually '^'
	Repetition   byte // MSH-2[1], usually '~'
	Escape       byte // MSH-2[2], usually '\'
	SubComponent byte // MSH-2[3], usually '&'
	Truncation   byte // MSH-2[4], v2.7 and later, usually '#'
}

// parseEncoding reads MSH-1 and MSH-2 from an MSH line. The returned reason is
// empty when the delimiters are usable.
func parseEncoding(line string) (Encoding, string) {
	var e Encoding
	if len(line) < 4 {
		return e, "MSH segment has no field separator (MSH-1)"
	}
	fs := line[3]
	if !usableDelimiter(fs) {
		return e, fmt.Sprintf("MSH-1 field separator %q is not a usable delimiter", fs)
	}
	e.Field = fs
	chars := line[4:]
	if i := strings.IndexByte(chars, fs); i >= 0 {
		chars = chars[:i]
	}
	switch {
	case chars == "":
		return e, "MSH-2 encoding characters are missing"
	case len(chars) > 5:
		return e, fmt.Sprintf("MSH-2 has %d encoding characters; at most 5 are defined", len(chars))
	}
	slots := [5]*byte{&e.Component, &e.Repetition, &e.Escape, &e.SubComponent, &e.Truncation}
	for i := 0; i < len(chars); i++ {
		c := chars[i]
		if !usableDelimiter(c) {
			return e, fmt.Sprintf("MSH-2 encoding character %q is not a usable delimiter", c)
		}
		if c == fs || strings.IndexByte(chars[:i], c) >= 0 {
			return e, fmt.Sprintf("MSH-2 encoding character %q is used twice", c)
		}
		*slots[i] = c
	}
	return e, ""
}

// usableDelimiter rejects characters that also occur in ordinary data or in
// line structure; a header declaring one is far more likely garbage than a
// real sender's choice.
func usableDelimiter(c byte) bool {
	switch {
	case c <= ' ' || c >= 0x7f:
		return false
	case c >= '0' && c <= '9', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		return false
	}
	return true
}
