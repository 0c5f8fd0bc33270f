package hl7

import (
	"strings"
	"time"
)

// Acknowledgement codes of MSA-1 (original mode).
const (
	AckAccept = "AA" // applied, or already applied
	AckError  = "AE" // understood but not applied
	AckReject = "AR" // refused: the message could not be read
)

// Ack is what to acknowledge about one message.
type Ack struct {
	Code string // MSA-1: AckAccept, AckError or AckReject
	// Text is the note of MSA-3 (a duplicate's "already processed", or the reason of AE and AR).
	Text string
	// Error, when set, adds an ERR segment whose ERR-8 (user message) is this reason.
	Error string
	// ControlID is the acknowledgement's own MSH-10.
	ControlID string
	// At is MSH-7, the time of the acknowledgement.
	At time.Time
}

// defaultEncoding is used for a message whose own delimiters could not be read.
var defaultEncoding = Encoding{Field: '|', Component: '^', Repetition: '~', Escape: '\\', SubComponent: '&'}

// AppendACK appends the acknowledgement of m to b: an MSH with the sender and receiver of m
// swapped, MSA with the code and m's control id, and ERR when a.Error is set. It is written in
// m's own delimiters (the standard ones when m declared none usable), each segment ending with
// CR. Fields copied from m (applications, facilities, control id, processing id, version) are
// copied raw, so escape sequences stay valid in the same encoding; text is escaped.
func AppendACK(b []byte, m *Message, a Ack) []byte {
	h := m.Header()
	enc := m.Encoding
	if h.raw == "" || enc.Field == 0 || enc.Component == 0 {
		enc = defaultEncoding
		h = Segment{}
	}
	fs := string(enc.Field)
	raw := func(n int) string { return cleanRaw(h.Field(n).Raw()) }
	version := raw(12)
	if version == "" {
		version = "2.5.1"
	}
	processing := raw(11)
	if processing == "" {
		processing = "P"
	}
	event := ""
	if h.raw != "" {
		event = escapeText(h.Field(9).Component(2), &enc)
	}
	cs := string(enc.Component)

	b = append(b, "MSH"...)
	b = append(b, fs...)
	b = append(b, encodingChars(h, enc)...)
	for _, f := range []string{
		raw(5), raw(6), raw(3), raw(4), // sender and receiver swapped
		a.At.UTC().Format("20060102150405-0700"),
		"",
		"ACK" + cs + event + cs + "ACK",
		escapeText(a.ControlID, &enc),
		processing,
		version,
	} {
		b = append(b, fs...)
		b = append(b, f...)
	}
	b = append(b, '\r')

	b = append(b, "MSA"...)
	for _, f := range []string{a.Code, raw(10), escapeText(a.Text, &enc)} {
		b = append(b, fs...)
		b = append(b, f...)
	}
	b = trimTrailing(b, enc.Field)
	b = append(b, '\r')

	if a.Error != "" {
		// ERR (v2.5): ERR-3 the HL7 error code (table 0357: 207 application error), ERR-4
		// severity E, ERR-8 the reason for a person to read.
		b = append(b, "ERR"...)
		b = append(b, strings.Repeat(fs, 2)...)
		b = append(b, fs+"207"+cs+"Application internal error"+cs+"HL70357"...)
		b = append(b, fs+"E"...)
		b = append(b, strings.Repeat(fs, 4)...)
		b = append(b, escapeText(a.Error, &enc)...)
		b = append(b, '\r')
	}
	return b
}

// encodingChars is MSH-2 of the acknowledgement: the message's own, when it had a header.
func encodingChars(h Segment, enc Encoding) string {
	if h.raw != "" {
		if f := h.Field(2).Raw(); f != "" {
			return f
		}
	}
	var s []byte
	for _, c := range []byte{enc.Component, enc.Repetition, enc.Escape, enc.SubComponent} {
		if c == 0 {
			break
		}
		s = append(s, c)
	}
	return string(s)
}

// cleanRaw drops line breaks and MLLP bytes a raw field cannot carry into another segment.
func cleanRaw(s string) string {
	if !strings.ContainsAny(s, "\r\n\x0b\x1c") {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '\r', '\n', 0x0b, 0x1c:
			return -1
		}
		return r
	}, s)
}

// escapeText writes free text in enc: delimiters become escape sequences (\F\, \S\, \R\, \E\,
// \T\), line breaks and the truncation character (which has no escape) spaces. Without an
// escape character, every delimiter becomes a space.
func escapeText(s string, enc *Encoding) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		var seq byte
		switch {
		case c == '\r' || c == '\n' || c == 0x0b || c == 0x1c:
			b.WriteByte(' ')
			continue
		case c == enc.Field:
			seq = 'F'
		case c == enc.Component:
			seq = 'S'
		case c == enc.Repetition && c != 0:
			seq = 'R'
		case c == enc.Escape && c != 0:
			seq = 'E'
		case c == enc.SubComponent && c != 0:
			seq = 'T'
		case c == enc.Truncation && c != 0:
			b.WriteByte(' ')
			continue
		default:
			b.WriteByte(c)
			continue
		}
		if enc.Escape == 0 {
			b.WriteByte(' ')
			continue
		}
		b.WriteByte(enc.Escape)
		b.WriteByte(seq)
		b.WriteByte(enc.Escape)
	}
	return b.String()
}

func trimTrailing(b []byte, fs byte) []byte {
	for len(b) > 0 && b[len(b)-1] == fs {
		b = b[:len(b)-1]
	}
	return b
}
