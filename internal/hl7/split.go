package hl7

import (
	"fmt"
	"slices"
	"strings"
)

// Batch is the result of parsing one body.
type Batch struct {
	// Messages in body order, rejected ones included (see Message.Err).
	Messages []Message
	// Ignored is the text before the first MSH segment, which is skipped:
	// interface engines sometimes prepend banners or batch headers.
	Ignored string
	// Notes describes what was skipped outside messages. At most MaxWarnings.
	Notes []string
}

// Accepted counts the messages that were not rejected.
func (b *Batch) Accepted() int {
	n := 0
	for i := range b.Messages {
		if b.Messages[i].Err == nil {
			n++
		}
	}
	return n
}

// ParseBatch splits body into messages and parses each one. A message with a
// broken header is returned with Err set while the others are still parsed.
//
// The error is ErrNoMessage when no message could be parsed; the Batch is
// still returned so the caller can report the rejections. More than
// MaxMessagesPerBody messages fail the whole body with a *LimitError and a
// zero Batch.
func ParseBatch(body []byte) (Batch, error) {
	// One copy of the body; every value handed out is a substring of it, so
	// the caller may reuse body afterwards.
	return parseString(string(body))
}

// ParseString is ParseBatch for a body already held as a string (say, decoded from JSON): the
// values handed out are substrings of s, and nothing is copied.
func ParseString(s string) (Batch, error) { return parseString(s) }

// Parse parses a body that must hold exactly one message and returns it,
// with its rejection as the error when it was rejected.
func Parse(body []byte) (*Message, error) {
	b, err := ParseBatch(body)
	if len(b.Messages) == 0 {
		return nil, err
	}
	if len(b.Messages) > 1 {
		return nil, fmt.Errorf("hl7: body holds %d messages; use ParseBatch", len(b.Messages))
	}
	m := &b.Messages[0]
	return m, m.Err
}

// A Parser parses bodies one after another and reuses its memory between
// them, so a steady stream of bodies allocates nothing for messages and
// segments. The Batch returned by ParseString, and every Message and Segment
// in it, is valid only until the next call. The zero value is ready to use. A
// Parser is not safe for concurrent use.
type Parser struct {
	msgs []Message
	segs []Segment
}

// Clear drops what p holds of the last body, keeping its capacity, so that a
// Parser kept idle (in a pool, say) does not keep that body alive.
func (p *Parser) Clear() {
	clear(p.msgs[:cap(p.msgs)])
	clear(p.segs[:cap(p.segs)])
}

// ParseString is the package's ParseString reusing p's memory.
func (p *Parser) ParseString(s string) (Batch, error) {
	b, err := parseInto(s, p.msgs[:0], p.segs[:0], &p.msgs, &p.segs)
	return b, err
}

func parseString(s string) (Batch, error) { return parseInto(s, nil, nil, nil, nil) }

// parseInto parses s appending to msgs and segs (allocated when nil); the
// final slices are handed back through keepMsgs and keepSegs when set.
func parseInto(s string, msgs []Message, segs []Segment, keepMsgs *[]Message, keepSegs *[]Segment) (Batch, error) {
	p := parser{s: s, ignoredFrom: -1}
	p.sc.init(s)
	// Size guesses from the length alone (segments average well over 40
	// bytes, messages well over 500) so that a typical body allocates once;
	// counting separators first cost a fifth of the parse. Growth beyond the
	// guess is ordinary append; the real caps are enforced while parsing.
	if wantMsgs := min(len(s)/512+1, 1024); cap(msgs) < wantMsgs {
		msgs = make([]Message, 0, wantMsgs)
	}
	if wantSegs := min(len(s)/40+1, 1<<14); cap(segs) < wantSegs {
		segs = make([]Segment, 0, wantSegs)
	}
	p.msgs, p.segs = msgs, segs
	defer func() {
		if keepMsgs != nil {
			*keepMsgs, *keepSegs = p.msgs, p.segs
		}
	}()

	for {
		start, end, ok := p.sc.next()
		if !ok {
			break
		}
		start = trimLineStart(s, start, end)
		if start == end {
			continue
		}
		line := s[start:end]
		switch {
		case strings.HasPrefix(line, "MSH"):
			if len(p.msgs) == MaxMessagesPerBody {
				return Batch{}, &LimitError{What: "messages in one body", Limit: MaxMessagesPerBody}
			}
			p.finish()
			if len(p.msgs) == 0 {
				p.notePreamble()
			}
			p.begin(start, end)
		case isEnvelope(line):
			p.finish()
			if p.notes.room() {
				p.notes.add("skipped batch envelope segment %s at byte %d", line[:3], start)
			}
		case p.cur == nil && len(p.msgs) == 0:
			if p.ignoredFrom < 0 {
				p.ignoredFrom = start
			}
			p.ignoredTo = end
		case p.cur == nil:
			// After a batch trailer: not part of any message.
			if p.notes.room() {
				p.notes.add("skipped a line outside any message at byte %d: %q", start, preview(line))
			}
		default:
			p.addLine(start, end)
		}
	}
	p.finish()
	if len(p.msgs) == 0 {
		p.notePreamble()
	}

	b := Batch{Messages: p.msgs, Notes: p.notes.result()}
	if p.ignoredFrom >= 0 {
		b.Ignored = s[p.ignoredFrom:p.ignoredTo]
	}
	for i := range b.Messages {
		m := &b.Messages[i]
		m.Segments = p.segs[m.segLo:m.segHi:m.segHi]
		if len(m.Segments) == 0 {
			m.Segments = nil
		}
	}
	if b.Accepted() == 0 {
		if len(b.Messages) > 0 {
			return b, fmt.Errorf("%w: all %d messages rejected, first: %s", ErrNoMessage, len(b.Messages), b.Messages[0].Err)
		}
		return b, ErrNoMessage
	}
	return b, nil
}

type parser struct {
	s    string
	sc   lineScanner
	msgs []Message
	segs []Segment

	cur      *Message
	rejected bool
	rawEnd   int
	warn     warnings
	sepStr   string // the field separator as a 1-byte substring, for strings.Count
	repStr   string // likewise the repetition separator; "" when undeclared

	notes                  warnings
	ignoredFrom, ignoredTo int
}

func (p *parser) notePreamble() {
	if p.ignoredFrom >= 0 {
		p.notes.add("ignored %d bytes before the first MSH segment", p.ignoredTo-p.ignoredFrom)
	}
}

func (p *parser) begin(start, end int) {
	if len(p.msgs) == cap(p.msgs) {
		p.msgs = slices.Grow(p.msgs, len(p.msgs)) // see appendSegment
	}
	p.msgs = append(p.msgs, Message{Index: len(p.msgs), Offset: start})
	p.cur = &p.msgs[len(p.msgs)-1]
	p.rejected = false
	p.rawEnd = end
	p.warn = warnings{}
	p.cur.segLo = len(p.segs)
	p.cur.segHi = len(p.segs)

	line := p.s[start:end]
	enc, reason := parseEncoding(line)
	if reason != "" {
		p.reject(reason, ErrMalformed)
		return
	}
	p.cur.Encoding = enc
	p.sepStr = line[3:4]
	p.repStr = ""
	if enc.Repetition != 0 {
		p.repStr = line[5:6]
	}
	if !p.checkLimits(line, true) {
		return
	}
	p.appendSegment(line)
	if p.segs[len(p.segs)-1].Field(9).Component(1) == "" {
		p.reject("MSH-9 message type is empty", ErrMalformed)
	}
}

func (p *parser) addLine(start, end int) {
	p.rawEnd = end
	if p.rejected {
		return
	}
	line := p.s[start:end]
	if !isSegmentLine(line, p.cur.Encoding.Field) {
		if p.warn.room() {
			p.warn.add("skipped a line that is not a segment at byte %d: %q", start, preview(line))
		}
		return
	}
	if p.cur.segHi-p.cur.segLo >= MaxSegmentsPerMessage {
		p.reject(fmt.Sprintf("more than %d segments", MaxSegmentsPerMessage),
			&LimitError{What: "segments in one message", Limit: MaxSegmentsPerMessage})
		return
	}
	if p.checkLimits(line, false) {
		p.appendSegment(line)
	}
}

func (p *parser) appendSegment(line string) {
	if len(p.segs) == cap(p.segs) {
		// Double rather than let append grow large slices by a quarter: a
		// body of tiny segments would otherwise allocate five times its
		// final segment table in discarded copies.
		p.segs = slices.Grow(p.segs, len(p.segs))
	}
	p.segs = append(p.segs, Segment{raw: line, enc: p.cur.Encoding})
	p.cur.segHi = len(p.segs)
}

// checkLimits enforces the field and repetition caps on one segment line.
// Counting the whole line first keeps the common case to two vectorised
// scans; fields are only inspected one by one when the line could be over.
func (p *parser) checkLimits(line string, header bool) bool {
	// A line shorter than a limit cannot exceed it, and nearly all are.
	if len(line) < MaxRepetitionsPerField {
		return true
	}
	fields := 0
	if len(line) >= MaxFieldsPerSegment {
		fields = strings.Count(line, p.sepStr)
	}
	if header {
		fields++
	}
	if fields > MaxFieldsPerSegment {
		p.reject(fmt.Sprintf("segment %s has more than %d fields", line[:3], MaxFieldsPerSegment),
			&LimitError{What: "fields in one segment", Limit: MaxFieldsPerSegment})
		return false
	}
	if p.repStr == "" || strings.Count(line, p.repStr) < MaxRepetitionsPerField {
		return true
	}
	rest := line[4:]
	for k := 1; ; k++ {
		f := rest
		i := strings.IndexByte(rest, p.cur.Encoding.Field)
		if i >= 0 {
			f = rest[:i]
		}
		// MSH-2 holds the repetition character itself and is never split.
		if !(header && k == 1) && strings.Count(f, p.repStr)+1 > MaxRepetitionsPerField {
			p.reject(fmt.Sprintf("a field of segment %s has more than %d repetitions", line[:3], MaxRepetitionsPerField),
				&LimitError{What: "repetitions in one field", Limit: MaxRepetitionsPerField})
			return false
		}
		if i < 0 {
			return true
		}
		rest = rest[i+1:]
	}
}

func (p *parser) reject(reason string, cause error) {
	p.rejected = true
	p.cur.Err = &MessageError{Index: p.cur.Index, Offset: p.cur.Offset, Reason: reason, Err: cause}
	// Keep only the MSH segment: the rest of a rejected message is not
	// trustworthy, but its control ID is needed for the acknowledgement.
	if p.cur.segHi > p.cur.segLo {
		p.segs = p.segs[:p.cur.segLo+1]
		p.cur.segHi = p.cur.segLo + 1
	}
}

func (p *parser) finish() {
	if p.cur == nil {
		return
	}
	p.cur.Raw = p.s[p.cur.Offset:p.rawEnd]
	p.cur.Warnings = p.warn.result()
	p.cur = nil
}

// isSegmentLine accepts an uppercase 3-character ID (Z-segments included)
// followed by the field separator or the end of the line.
func isSegmentLine(line string, fs byte) bool {
	if len(line) < 3 || !isUpper(line[0]) || !isUpperOrDigit(line[1]) || !isUpperOrDigit(line[2]) {
		return false
	}
	return len(line) == 3 || line[3] == fs
}

func isEnvelope(line string) bool {
	if len(line) < 3 {
		return false
	}
	switch line[:3] {
	case "FHS", "BHS", "BTS", "FTS":
		return len(line) == 3 || !isUpperOrDigit(line[3]) && !isLower(line[3])
	}
	return false
}

func isUpper(c byte) bool        { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool        { return c >= 'a' && c <= 'z' }
func isUpperOrDigit(c byte) bool { return isUpper(c) || c >= '0' && c <= '9' }

// preview shortens a skipped line for a warning without splitting UTF-8.
func preview(s string) string {
	const n = 24
	if len(s) <= n {
		return strings.ToValidUTF8(s, "?")
	}
	return strings.ToValidUTF8(s[:n], "?") + "…"
}

// trimLineStart skips what precedes a segment in real feeds: byte-order marks
// (also one per concatenated file) and indentation.
func trimLineStart(s string, start, end int) int {
	for start < end {
		switch {
		case s[start] == ' ' || s[start] == '\t' || s[start] == 0:
			start++
		case strings.HasPrefix(s[start:end], "\ufeff"):
			start += 3
		default:
			return start
		}
	}
	return start
}

// lineScanner yields lines ended by CR, LF, MLLP start (0x0B) or MLLP end
// (0x1C). It remembers the next position of each terminator so that a body
// using only some of them is still scanned with vectorised IndexByte and every
// byte is looked at a bounded number of times.
type lineScanner struct {
	s   string
	pos int
	at  [4]int // next index of each terminator at or after pos, len(s) when none
}

var terminators = [4]byte{'\r', '\n', 0x0b, 0x1c}

func (sc *lineScanner) init(s string) {
	sc.s = s
	sc.pos = 0
	for k := range sc.at {
		sc.at[k] = -1
	}
}

func (sc *lineScanner) next() (start, end int, ok bool) {
	if sc.pos >= len(sc.s) {
		return 0, 0, false
	}
	end = len(sc.s)
	for k, t := range terminators {
		if sc.at[k] < sc.pos {
			if i := strings.IndexByte(sc.s[sc.pos:], t); i >= 0 {
				sc.at[k] = sc.pos + i
			} else {
				sc.at[k] = len(sc.s)
			}
		}
		end = min(end, sc.at[k])
	}
	start = sc.pos
	sc.pos = end + 1
	return start, end, true
}
