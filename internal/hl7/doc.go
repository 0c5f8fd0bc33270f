// Package hl7 parses HL7 v2 ADT and diet-order messages as hospitals actually
// send them and maps their allergy and diet content onto Sous vocabularies.
//
// The package does no I/O, and everything in it except a [Parser] value is
// safe for concurrent use: the API layer hands it a request body and decides
// what to do with the result. Its only shared state is a bounded cache of
// mapping results (internal/memo, bounded in memo.go), which changes nothing but
// speed.
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
// Parsed values are substrings of one copy of the body ([ParseString] takes
// the body as a string and copies nothing); a value is copied only when it
// contains an escape sequence, a NUL or bytes that are not UTF-8 (read as
// Windows-1252). Caps on hostile input are in limits.go.
//
// A consumer that handles body after body can reuse memory: a [Parser] keeps
// its message and segment tables between bodies, and [Message.ExtractADT]
// fills an ADT the caller reuses, so a warm feed allocates nothing per
// message.
//
// # Extraction and mapping
//
// [Message.ADT] extracts the parts Sous uses — header, EVN, PID, PV1, AL1, ORC,
// ODS and ODT — into an [ADT] value, and [ADT.Action] says what the message
// asks for. Allergies and diet codes are passed through [MapAllergen] and
// [MapDiet]; both are table-driven functions that the API may also call on
// its own, and both report when a human has to review the value. A value that
// is a table phrase as a whole is one probe of the precomputed table before
// any word-by-word matching, and results are remembered, since a feed sends
// the same codes over and over.
//
// # Acknowledgements
//
// [AppendACK] writes the original-mode ACK of a message (MSH with sender and
// receiver swapped, MSA, and ERR for an error) in the message's own delimiters,
// for senders that read HL7 answers rather than JSON.
package hl7
