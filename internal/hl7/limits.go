package hl7

import (
	"errors"
	"fmt"
)

// Caps on hostile or broken input. Real feeds stay far below them: a busy
// interface engine batches a few hundred messages, an ADT message has a few
// dozen segments, PV1 — the widest common segment — has 52 fields, and PID-3
// rarely carries more than a handful of identifiers. Going past a cap is an
// error, never a silent truncation, so nothing is dropped without the caller
// knowing.
const (
	// MaxMessagesPerBody bounds the messages in one body; beyond it
	// ParseBatch fails as a whole with a *LimitError.
	MaxMessagesPerBody = 10_000

	// MaxSegmentsPerMessage bounds the segments of one message; beyond it the
	// message is rejected.
	MaxSegmentsPerMessage = 1_000

	// MaxFieldsPerSegment bounds the fields of one segment; beyond it the
	// message is rejected.
	MaxFieldsPerSegment = 1_000

	// MaxRepetitionsPerField bounds the repetitions of one field, which is
	// what Field.Repetitions allocates for; beyond it the message is rejected.
	MaxRepetitionsPerField = 100

	// MaxValueExpansion bounds how much longer an unescaped value can be than
	// its raw text. Escape sequences only ever shrink text; the factor comes
	// from re-encoding stray Windows-1252 bytes as UTF-8 (one byte becomes up
	// to three).
	MaxValueExpansion = 3

	// MaxWarnings bounds the notes kept per batch and the warnings kept per
	// message and per extraction; the last one says how many were dropped.
	MaxWarnings = 20
)

// Components and subcomponents have no cap: they are located by scanning the
// field text on each call and never allocated as slices.
//
// The caps bound counts, not bytes; the caller bounds the body size. Memory is
// linear in the body: parsing keeps one copy of it plus a 24-byte header per
// segment and about 150 bytes per message, so a body of minimal segments
// ("ZZZ") costs roughly fifteen times its size and a real feed about twice.
// Rejected messages are bounded by MaxMessagesPerBody. Each ADT extracted is
// about 3.5 KB regardless of the message size.

// ErrNoMessage means a body held no message that could be parsed: no MSH
// segment at all, or only rejected ones. The API answers 422.
var ErrNoMessage = errors.New("hl7: no parseable HL7 message (no valid MSH segment)")

// ErrLimit is matched (errors.Is) by every *LimitError.
var ErrLimit = errors.New("hl7: input exceeds a parser limit")

// ErrMalformed is matched (errors.Is) by rejections caused by a broken
// message header rather than by a limit.
var ErrMalformed = errors.New("hl7: malformed message")

// LimitError reports which cap the input went past.
type LimitError struct {
	What  string // e.g. "segments in one message"
	Limit int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("hl7: more than %d %s", e.Limit, e.What)
}

// Is lets callers test errors.Is(err, ErrLimit) without knowing the type.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// MessageError is the rejection of one message of a batch. It unwraps to
// ErrMalformed or to a *LimitError.
type MessageError struct {
	Index  int    // 0-based position of the message in the body
	Offset int    // byte offset of its MSH segment in the body
	Reason string // human-readable, safe to return to the sender
	Err    error
}

func (e *MessageError) Error() string {
	return fmt.Sprintf("hl7: message %d (byte %d) rejected: %s", e.Index+1, e.Offset, e.Reason)
}

func (e *MessageError) Unwrap() error { return e.Err }

// warnings is an append-only list that stops growing at MaxWarnings, so a
// body of a million bad lines costs a counter, not a million strings.
type warnings struct {
	list    []string
	dropped int
}

// room reports whether another warning will be kept, counting it as
// dropped when not. Callers check it before building the arguments: boxing
// them would otherwise cost an allocation per dropped warning.
func (w *warnings) room() bool {
	if len(w.list) >= MaxWarnings-1 {
		w.dropped++
		return false
	}
	return true
}

func (w *warnings) add(format string, args ...any) {
	if w.room() {
		w.list = append(w.list, fmt.Sprintf(format, args...))
	}
}

func (w *warnings) result() []string {
	if w.dropped > 0 {
		return append(w.list, fmt.Sprintf("%d more warnings not shown", w.dropped))
	}
	return w.list
}

// Longest values, in characters, of the fields the census stores and indexes. A message with a
// longer value is rejected as a whole (ExtractADT returns a *MessageError wrapping a
// *LimitError), never truncated: a truncated MRN or control id would match the wrong patient or
// message. Real values are far shorter (HL7 v2.5 gives MSH-10 199 characters, an MRN is a dozen
// digits, a unit or bed a few letters); the bounds keep every index row far below PostgreSQL's
// limit (about 2,700 bytes), even for the three sender fields of the duplicate key together in
// four-byte UTF-8.
const (
	MaxControlIDLength = 199 // MSH-10
	MaxSenderLength    = 199 // MSH-3 and MSH-4, as read (namespace id, else universal id)
	MaxMRNLength       = 64  // the MRN chosen from PID-3
	MaxLocationLength  = 64  // PV1-3 point of care (unit), room and bed, each
	MaxNameLength      = 200 // PID-5 family, given and middle names, each
)
