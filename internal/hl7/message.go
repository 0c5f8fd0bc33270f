package hl7

import "strings"

// Message is one HL7 message of a body.
type Message struct {
	Index  int    // 0-based position in the body
	Offset int    // byte offset of the MSH segment in the body
	Raw    string // the message as received, from MSH to the end of its last line

	Encoding Encoding
	// Segments holds every segment in order, Z-segments included. A rejected
	// message keeps its MSH segment when the delimiters could be read, so
	// the caller can still acknowledge it by control ID.
	Segments []Segment
	// Warnings lists lines that were skipped and other oddities that did not
	// stop parsing. At most MaxWarnings entries.
	Warnings []string
	// Err is non-nil when the message was rejected; it is a *MessageError.
	Err error

	segLo, segHi int // bounds in the batch-wide segment slice while parsing
}

// Header returns the MSH segment, or a zero Segment when there is none.
func (m *Message) Header() Segment {
	if len(m.Segments) > 0 && m.Segments[0].ID() == "MSH" {
		return m.Segments[0]
	}
	return Segment{}
}

// Segment returns the first segment with the given ID.
func (m *Message) Segment(id string) (Segment, bool) {
	for _, s := range m.Segments {
		if s.ID() == id {
			return s, true
		}
	}
	return Segment{}, false
}

// Type returns MSH-9, with the trigger event taken from EVN-1 for old
// senders that put only "ADT" into MSH-9.
func (m *Message) Type() MessageType {
	f := m.Header().Field(9)
	t := MessageType{
		Code:      upperTrim(f.Component(1)),
		Event:     upperTrim(f.Component(2)),
		Structure: upperTrim(f.Component(3)),
	}
	if t.Event == "" {
		if evn, ok := m.Segment("EVN"); ok {
			t.Event = upperTrim(evn.Field(1).Value())
		}
	}
	return t
}

// ControlID returns MSH-10, the ID an acknowledgement must echo.
func (m *Message) ControlID() string {
	return strings.TrimSpace(m.Header().Field(10).Value())
}

// MessageType is MSH-9: message code, trigger event and message structure.
type MessageType struct {
	Code      string // e.g. "ADT"
	Event     string // e.g. "A01"
	Structure string // e.g. "ADT_A01"; often not sent
}

func (t MessageType) String() string {
	s := t.Code + "^" + t.Event
	if t.Structure != "" {
		s += "^" + t.Structure
	}
	return s
}

// upperTrim normalises codes (see clean); strings.ToUpper returns its input unchanged
// (no copy) when it is already upper case, which codes almost always are.
func upperTrim(s string) string { return upper(clean(s)) }

// Sender returns MSH-3 (sending application) and MSH-4 (sending facility) as
// ADT reads them: the namespace id, else the universal id. With MSH-10 they
// identify a message: control ids are unique only per sender.
func (m *Message) Sender() (application, facility string) {
	h := m.Header()
	if h.raw == "" {
		return "", ""
	}
	f := h.fields() // part n is MSH-(n+1)
	return hdName(f.part(2), &h.enc), hdName(f.part(3), &h.enc)
}
