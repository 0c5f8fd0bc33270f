package hl7

import "strings"

// Segment is one line of a message. It keeps the raw line and locates fields
// on demand: extraction reads a handful of fields per segment, so splitting
// every segment up front would cost more than it saves and would let a line of
// empty fields allocate many times its own size.
//
// A Segment is 24 bytes; with its ID kept as a method rather than a field,
// a body of minimal segments costs at most six times its size in headers.
type Segment struct {
	raw string
	enc Encoding
}

// ID returns the segment ID, e.g. "PID" or "ZPV".
func (s Segment) ID() string {
	if len(s.raw) < 3 {
		return ""
	}
	return s.raw[:3]
}

// Raw returns the segment exactly as received, without its terminator.
func (s Segment) Raw() string { return s.raw }

// Encoding returns the delimiters of the message the segment belongs to.
func (s Segment) Encoding() Encoding { return s.enc }

// isHeader reports whether fields are numbered the MSH way: the separator
// right after the ID is itself field 1.
func (s Segment) isHeader() bool { return strings.HasPrefix(s.raw, "MSH") }

// NumFields returns the number of the last field present (MSH counts MSH-1).
func (s Segment) NumFields() int {
	if len(s.raw) <= 3 || s.enc.Field == 0 {
		return 0
	}
	n := strings.Count(s.raw[3:], s.raw[3:4])
	if s.isHeader() {
		n++
	}
	return n
}

// Field returns field n in HL7 numbering: PID-3 is Field(3). In MSH, Field(1)
// is the field separator and Field(2) the encoding characters, both returned
// verbatim. Field(0) is the segment ID. Absent fields are empty.
func (s Segment) Field(n int) Field {
	if n < 0 || len(s.raw) < 3 {
		return Field{}
	}
	if n == 0 {
		return Field{raw: s.raw[:3], literal: true}
	}
	literal := false
	if s.isHeader() {
		if n == 1 {
			if len(s.raw) < 4 {
				return Field{}
			}
			return Field{raw: s.raw[3:4], literal: true}
		}
		// MSH-2 is the first separator-delimited part, so everything shifts.
		n--
		literal = n == 1
	}
	return Field{raw: nthField(s.raw, s.enc.Field, n), enc: s.enc, literal: literal}
}

// nthField returns the n-th (n ≥ 1) separator-delimited part of a segment
// line after its 3-character ID.
func nthField(line string, sep byte, n int) string {
	if sep == 0 || len(line) <= 3 || line[3] != sep {
		return ""
	}
	return nth(line[4:], sep, n)
}

// nth returns the n-th (n ≥ 1) sep-delimited part of s; with no separator
// declared the whole text is part 1.
func nth(s string, sep byte, n int) string {
	if n < 1 {
		return ""
	}
	if sep == 0 {
		if n == 1 {
			return s
		}
		return ""
	}
	start := 0
	if n > 1 {
		k := indexNth(s, sep, n-1)
		if k < 0 {
			return ""
		}
		start = k + 1
	}
	rest := s[start:]
	return rest[:partLen(rest, sep)]
}

// Field is one field of a segment, possibly repeated.
type Field struct {
	raw     string
	enc     Encoding
	literal bool // MSH-1, MSH-2 and IDs: never split or unescaped
}

// Raw returns the field exactly as received, escapes and delimiters included.
// It may contain bytes that are not UTF-8.
func (f Field) Raw() string { return f.raw }

// Empty reports whether the field was absent or sent empty.
func (f Field) Empty() bool { return f.raw == "" }

// Null reports whether the field holds the HL7 null `""`, which in an update
// (A08) means "clear the stored value" rather than "not sent".
func (f Field) Null() bool { return f.raw == `""` }

// Value returns the first component of the first repetition: the whole value
// of a primitive field (ST, ID, IS, NM, DTM) and the leading part of a
// composite one.
func (f Field) Value() string { return f.Repetition(1).Component(1) }

// Component returns component n of the first repetition.
func (f Field) Component(n int) string { return f.Repetition(1).Component(n) }

// SubComponent returns subcomponent s of component c of the first repetition.
func (f Field) SubComponent(c, s int) string { return f.Repetition(1).SubComponent(c, s) }

// NumRepetitions returns how many repetitions the field has; 0 when empty.
func (f Field) NumRepetitions() int {
	if f.raw == "" {
		return 0
	}
	if f.literal {
		return 1
	}
	return count(f.raw, f.enc.Repetition) + 1
}

// Repetition returns repetition i, numbered from 1 like every HL7 position.
func (f Field) Repetition(i int) Repetition {
	if f.literal {
		if i == 1 {
			return Repetition{raw: f.raw, literal: true}
		}
		return Repetition{}
	}
	return Repetition{raw: nth(f.raw, f.enc.Repetition, i), enc: f.enc}
}

// Repetitions returns every repetition. Parsing guarantees at most
// MaxRepetitionsPerField, so the slice is bounded.
func (f Field) Repetitions() []Repetition {
	n := f.NumRepetitions()
	if n == 0 {
		return nil
	}
	if f.literal {
		return []Repetition{{raw: f.raw, literal: true}}
	}
	out := make([]Repetition, 0, n)
	rest := f.raw
	for {
		i := strings.IndexByte(rest, f.enc.Repetition)
		if i < 0 || f.enc.Repetition == 0 {
			return append(out, Repetition{raw: rest, enc: f.enc})
		}
		out = append(out, Repetition{raw: rest[:i], enc: f.enc})
		rest = rest[i+1:]
	}
}

// Repetition is one occurrence of a repeating field.
type Repetition struct {
	raw     string
	enc     Encoding
	literal bool
}

// Raw returns the repetition exactly as received.
func (r Repetition) Raw() string { return r.raw }

// Empty reports whether the repetition holds no text.
func (r Repetition) Empty() bool { return r.raw == "" }

// Value returns component 1.
func (r Repetition) Value() string { return r.Component(1) }

// NumComponents returns how many components the repetition has; 0 when empty.
func (r Repetition) NumComponents() int {
	if r.raw == "" {
		return 0
	}
	if r.literal {
		return 1
	}
	return count(r.raw, r.enc.Component) + 1
}

// Component returns component n (from 1), unescaped. Subcomponent separators
// inside it are kept as text; use SubComponent to split them.
func (r Repetition) Component(n int) string {
	if r.literal {
		if n == 1 {
			return r.raw
		}
		return ""
	}
	return decode(nth(r.raw, r.enc.Component, n), &r.enc)
}

// SubComponent returns subcomponent s of component c (both from 1),
// unescaped.
func (r Repetition) SubComponent(c, s int) string {
	if r.literal {
		if c == 1 && s == 1 {
			return r.raw
		}
		return ""
	}
	return decode(nth(nth(r.raw, r.enc.Component, c), r.enc.SubComponent, s), &r.enc)
}
