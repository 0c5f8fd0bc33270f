package hl7

import "strings"

// Helpers shared by the typed extraction. A message is read through a few
// hundred field and component accesses, so they walk each segment and
// composite forward once (see cursor) and decode only what is used.

// extractor carries the state of one ADT extraction.
type extractor struct {
	a    *ADT
	w    warnings
	used struct{ allergies, dietOrders, codes, coded, strs, ids int }
}

// adtBuffers backs the small slices of an ADT, so a typical message costs one
// allocation for all of them instead of one per repeated field. Larger
// messages fall back to separate allocations (see carve).
type adtBuffers struct {
	allergies  [4]Allergy
	dietOrders [2]DietOrder
	codes      [4]DietCode
	coded      [8]CodedValue
	strs       [8]string
	ids        [4]Identifier
}

// carve returns an empty slice with room for n elements, cut from buf when
// it still has room and allocated otherwise. The capacity is exact, so an
// append by the caller copies instead of overwriting a neighbour.
func carve[T any](buf []T, used *int, n int) []T {
	if n <= 0 {
		return nil
	}
	if *used+n <= len(buf) {
		s := buf[*used : *used : *used+n]
		*used += n
		return s
	}
	return make([]T, 0, n)
}

func (x *extractor) ts(field string, enc *Encoding, name string) Time {
	return parseTS(field, enc, name, &x.w)
}

// cursor walks the sep-delimited parts of s in increasing order without
// materialising them: reading part n skips from the last part read with
// the word-at-a-time scanner, so a segment or composite is scanned about
// once however many of its parts are used, and nothing is zeroed or copied.
// Reading an earlier part rewinds, which is correct but rescans.
type cursor struct {
	s        string
	sep      byte
	idx      int // number (from 1) of the part that starts at pos
	pos, end int // bounds of part idx; end < 0 until known
	// Past the last part, pos is len(s)+1 and idx the part last asked for,
	// so that asking for an earlier one rewinds.
}

func newCursor(s string, sep byte) cursor { return cursor{s: s, sep: sep, idx: 1, end: -1} }

// part returns part n (from 1), or "" when there is none.
func (c *cursor) part(n int) string {
	// The common case first: the part right after the one just read.
	if n == c.idx+1 && c.end >= 0 && c.end < len(c.s) {
		start := c.end + 1
		end := start + partLen(c.s[start:], c.sep)
		c.pos, c.idx, c.end = start, n, end
		return c.s[start:end]
	}
	if n < 1 {
		return ""
	}
	if c.sep == 0 {
		if n == 1 {
			return c.s
		}
		return ""
	}
	if n < c.idx {
		c.idx, c.pos, c.end = 1, 0, -1
	}
	if n > c.idx {
		if c.pos > len(c.s) {
			c.idx = n
			return ""
		}
		if c.end >= 0 { // step over the part whose end is known
			if c.end >= len(c.s) {
				c.pos, c.idx = len(c.s)+1, n
				return ""
			}
			c.pos, c.idx, c.end = c.end+1, c.idx+1, -1
		}
		if n > c.idx {
			k := indexNth(c.s[c.pos:], c.sep, n-c.idx)
			if k < 0 {
				c.pos, c.idx = len(c.s)+1, n
				return ""
			}
			c.pos, c.idx = c.pos+k+1, n
		}
	}
	if c.pos > len(c.s) {
		return ""
	}
	if c.end < 0 {
		c.end = c.pos + partLen(c.s[c.pos:], c.sep)
	}
	return c.s[c.pos:c.end]
}

// fields returns a cursor over the fields of a segment: part n is field n,
// except in MSH, where part n is MSH-(n+1) because MSH-1 is the separator.
func (s *Segment) fields() cursor {
	if len(s.raw) <= 3 || s.enc.Field == 0 || s.raw[3] != s.enc.Field {
		return newCursor("", s.enc.Field)
	}
	return newCursor(s.raw[4:], s.enc.Field)
}

// comps is a cursor over the components of one repetition that decodes what
// it returns.
//
// The encoding is copied rather than pointed to: a pointer stored next to
// the strings makes escape analysis move the caller's segment to the heap.
type comps struct {
	cursor
	enc Encoding
}

func compsOf(rep string, enc *Encoding) comps {
	return comps{cursor: newCursor(rep, enc.Component), enc: *enc}
}

// raw returns component i (from 1) undecoded.
func (c *comps) raw(i int) string { return c.part(i) }

// text returns component i decoded and cleaned.
func (c *comps) text(i int) string { return value(c.part(i), &c.enc) }

// code returns component i decoded, cleaned and upper-cased.
func (c *comps) code(i int) string { return upper(value(c.part(i), &c.enc)) }

// sub returns subcomponent j of component i, decoded and cleaned.
func (c *comps) sub(i, j int) string {
	return value(nth(c.part(i), c.enc.SubComponent, j), &c.enc)
}

// firstRep returns the first repetition of a raw field.
func firstRep(field string, enc *Encoding) string { return nth(field, enc.Repetition, 1) }

// firstText returns component 1 of the first repetition, decoded and cleaned:
// the value of a primitive field.
func firstText(field string, enc *Encoding) string {
	return value(nth(firstRep(field, enc), enc.Component, 1), enc)
}

// firstCode is firstText upper-cased, for code fields.
func firstCode(field string, enc *Encoding) string { return upper(firstText(field, enc)) }

// eachRep calls fn for every non-empty repetition of a raw field.
func eachRep(field string, enc *Encoding, fn func(rep string)) {
	if field == "" {
		return
	}
	if enc.Repetition == 0 {
		fn(field)
		return
	}
	for {
		k := partLen(field, enc.Repetition)
		if k > 0 {
			fn(field[:k])
		}
		if k == len(field) {
			return
		}
		field = field[k+1:]
	}
}

// countReps is an upper bound for the repetitions eachRep visits.
func countReps(field string, enc *Encoding) int {
	if field == "" {
		return 0
	}
	return count(field, enc.Repetition) + 1
}

// codedValue reads a CE/CWE, falling back to the alternate triplet when a
// sender fills only that.
func codedValue(rep string, enc *Encoding) CodedValue {
	c := compsOf(rep, enc)
	v := CodedValue{Code: c.text(1), Text: c.text(2), System: c.text(3)}
	if v.IsZero() {
		v = CodedValue{Code: c.text(4), Text: c.text(5), System: c.text(6)}
	}
	return v
}

// codedValues reads every repetition of a CE/CWE field, skipping empty ones.
func (x *extractor) codedValues(field string, enc *Encoding) []CodedValue {
	out := carve(x.a.buf.coded[:], &x.used.coded, countReps(field, enc))
	eachRep(field, enc, func(rep string) {
		if c := codedValue(rep, enc); !c.IsZero() {
			out = append(out, c)
		}
	})
	if len(out) == 0 {
		return nil
	}
	return out
}

// texts reads every repetition of an ST field (or the text of a CE
// repetition whose identifier is empty), skipping empty ones.
func (x *extractor) texts(field string, enc *Encoding) []string {
	out := carve(x.a.buf.strs[:], &x.used.strs, countReps(field, enc))
	eachRep(field, enc, func(rep string) {
		c := compsOf(rep, enc)
		t := c.text(1)
		if t == "" {
			t = c.text(2)
		}
		if t != "" {
			out = append(out, t)
		}
	})
	if len(out) == 0 {
		return nil
	}
	return out
}

// parseTS reads the first component of a TS/DTM field (v2.5 TS carries a
// degree-of-precision component after it).
func parseTS(field string, enc *Encoding, name string, w *warnings) Time {
	raw := field
	if !plainTS(field, enc) {
		raw = firstText(field, enc)
	}
	t, err := ParseTime(raw)
	if err != nil {
		w.add("%s %q is not an HL7 timestamp", name, preview(raw))
	}
	return t
}

// plainTS reports whether a timestamp field is just the timestamp (digits,
// and a fraction or an offset), as nearly all are: then it has no components
// or repetitions to split and nothing to decode or trim.
func plainTS(s string, enc *Encoding) bool {
	if len(s) < 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			if c != '.' && c != '+' && c != '-' || c == enc.Component || c == enc.Repetition || c == enc.Escape || c == enc.SubComponent {
				return false
			}
		}
	}
	return true
}

// hdName reads an HD (hierarchic designator): the namespace ID, or the
// universal ID (often an OID) when only that is sent.
func hdName(field string, enc *Encoding) string {
	c := compsOf(firstRep(field, enc), enc)
	if s := c.text(1); s != "" {
		return s
	}
	return c.text(2)
}

// value turns raw component text into an extracted value: decoded (see
// decode), trimmed of the padding fixed-width legacy systems add, and with
// the HL7 null `""` read as empty — extraction reports values, and "delete
// this value" is visible through Field.Null for callers that need it.
//
// It is the innermost step of extraction, run about a hundred times per
// message, so the common case (short printable ASCII, no escapes, no
// padding) is checked inline in one pass without further calls.
func value(s string, enc *Encoding) string {
	n := len(s)
	if n == 0 {
		return ""
	}
	esc := enc.Escape
	if n < 8 {
		for i := 0; i < n; i++ {
			if c := s[i]; c == esc || c == 0 || c >= 0x80 {
				return clean(decodeSlow(s, enc))
			}
		}
	} else {
		const high = 0x8080808080808080
		pattern := uint64(esc) * lsb
		for i := 0; ; i += 8 {
			if i+8 > n {
				i = n - 8 // one overlapping read finishes the tail
			}
			v := load64(s, i)
			if (v&high)|zeroBytes(v)|matchBytes(v, pattern) != 0 {
				return clean(decodeSlow(s, enc))
			}
			if i+8 >= n {
				break
			}
		}
	}
	if s[0] <= ' ' || s[n-1] <= ' ' {
		s = strings.TrimSpace(s)
		n = len(s)
	}
	if n == 2 && s[0] == '"' && s[1] == '"' {
		return ""
	}
	return s
}

// clean trims and reads the HL7 null as empty (see value).
func clean(s string) string {
	if n := len(s); n > 0 && (s[0] <= ' ' || s[0] >= 0x80 || s[n-1] <= ' ' || s[n-1] >= 0x80) {
		s = strings.TrimSpace(s)
	}
	if s == `""` {
		return ""
	}
	return s
}

// upper upper-cases a code. Codes are nearly always upper case already, and
// checking that first avoids strings.ToUpper's extra pass.
func upper(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'a' && c <= 'z' || c >= 0x80 {
			return strings.ToUpper(s)
		}
	}
	return s
}
