// Package hl7 parses HL7 v2 ADT and diet-order messages as hospitals actually
// send them and maps their allergy and diet content onto Sous vocabularies.
//
// The package does no I/O and keeps no mutable state, so everything in it is
// safe for concurrent use: the API layer hands it a request body and decides
// what to do with the result.
//
// # Parsing
//
// [ParseBatch] splits a body into messages and parses each one. A new message
// starts at every segment beginning with "MSH"; CR, LF and CRLF separators may be
// mixed, MLLP framing bytes and a UTF-8 byte-order mark are ignored, and batch
// envelope segments (FHS, BHS, BTS, FTS) are skipped with a note. Delimiters are
// read from each message's own MSH-1 and MSH-2, never assumed.
//
// A message whose header cannot be trusted is not an error of the whole batch:
// it is returned with [Message.Err] set (a *[MessageError] with a reason) and the
// other messages are still parsed. Only a body without a single usable message
// ([ErrNoMessage]) or a body beyond [MaxMessagesPerBody] fails as a whole.
//
// # Access
//
// Generic access follows HL7 numbering: [Segment.Field] is 1-based and, in MSH,
// field 1 is the field separator itself and field 2 the encoding characters, so
// MSH-9 is Field(9) exactly as the standard names it. Components and
// subcomponents are 1-based as well. Every accessor returns unescaped, valid
// UTF-8 text and returns "" rather than panicking when a position is absent.
//
// Parsed values are substrings of one copy of the body; a value is copied only
// when it contains an escape sequence, a NUL or bytes that are not UTF-8
// (read as Windows-1252). Caps on hostile input are in limits.go.
//
// # Extraction and mapping
//
// [Message.ADT] extracts the parts Sous uses — header, EVN, PID, PV1, AL1, ORC,
// ODS and ODT — into an [ADT] value, and [ADT.Action] says what the message
// asks for. Allergies and diet codes are passed through [MapAllergen] and
// [MapDiet]; both are pure, table-driven functions that the API may also call
// on its own, and both report when a human has to review the value.
package hl7
