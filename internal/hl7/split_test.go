package hl7

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// segmentIDs lists a message's segment IDs, for compact comparisons.
func segmentIDs(m *Message) string {
	ids := make([]string, len(m.Segments))
	for i, s := range m.Segments {
		ids[i] = s.ID()
	}
	return strings.Join(ids, " ")
}

func TestParseBatchFraming(t *testing.T) {
	const wantIDs = "MSH EVN PID PD1 PV1 PV2 AL1 AL1 AL1 ODS ZPV"
	tests := []struct {
		name string
		body string
	}{
		{"CR", epicA01},
		{"LF", withTerminators(epicA01, "\n")},
		{"CRLF", withTerminators(epicA01, "\r\n")},
		{"mixed", strings.Replace(strings.Replace(epicA01, "\r", "\n", 2), "\r", "\r\n", 3)},
		{"MLLP", "\x0b" + epicA01 + "\x1c\r"},
		{"MLLP without trailing CR", "\x0b" + epicA01 + "\x1c"},
		{"BOM", "\ufeff" + epicA01},
		{"BOM inside MLLP", "\x0b\ufeff" + epicA01 + "\x1c\r"},
		{"blank lines", strings.ReplaceAll(epicA01, "\r", "\r\n\r\n")},
		{"indented", strings.ReplaceAll(epicA01, "\r", "\r  \t")},
		{"no final terminator", strings.TrimSuffix(epicA01, "\r")},
		{"trailing whitespace lines", epicA01 + "   \r\t\r\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := ParseBatch([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Messages) != 1 {
				t.Fatalf("%d messages", len(b.Messages))
			}
			m := &b.Messages[0]
			if got := segmentIDs(m); got != wantIDs {
				t.Errorf("segments %q", got)
			}
			if len(m.Warnings) != 0 || len(b.Notes) != 0 || b.Ignored != "" {
				t.Errorf("warnings %q notes %q ignored %q", m.Warnings, b.Notes, b.Ignored)
			}
			if !strings.HasPrefix(m.Raw, "MSH|") || !strings.HasSuffix(m.Raw, "ZPV|1|EPIC-SPECIFIC|DATA") {
				t.Errorf("Raw = %q", m.Raw)
			}
			if tt.body[m.Offset:m.Offset+3] != "MSH" {
				t.Errorf("Offset %d does not point at MSH", m.Offset)
			}
			if got := m.Segments[2].Field(5).Component(2); got != "JANE" {
				t.Errorf("PID-5.2 = %q", got)
			}
		})
	}
}

func TestParseBatchSeveralMessages(t *testing.T) {
	body := "\x0b" + epicA01 + "\x1c\r" +
		"\x0b" + withTerminators(cernerA02, "\r\n") + "\x1c\r" +
		withTerminators(meditechA03, "\n") +
		legacyA08 + v21A01 + ormO01
	b, err := ParseBatch([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	wantIDs := []string{"MSG00001", "Q2938471T3302", "MT-20240120-0042", "CTL0001", "OLD-1", "ORD-1001"}
	if len(b.Messages) != len(wantIDs) {
		t.Fatalf("%d messages", len(b.Messages))
	}
	last := -1
	for i := range b.Messages {
		m := &b.Messages[i]
		if m.Err != nil {
			t.Errorf("message %d: %v", i, m.Err)
		}
		if m.Index != i || m.Offset <= last || !strings.HasPrefix(body[m.Offset:], m.Raw) {
			t.Errorf("message %d: index %d offset %d", i, m.Index, m.Offset)
		}
		last = m.Offset
		if got := m.ControlID(); got != wantIDs[i] {
			t.Errorf("message %d: control ID %q, want %q", i, got, wantIDs[i])
		}
	}
	if b.Messages[3].Encoding != (Encoding{Field: '!', Component: '@', Repetition: '#', Escape: '$', SubComponent: '%'}) {
		t.Errorf("legacy encoding = %+v", b.Messages[3].Encoding)
	}
	if b.Messages[4].Encoding != (Encoding{Field: '|', Component: '^', Repetition: '~'}) {
		t.Errorf("v2.1 encoding = %+v", b.Messages[4].Encoding)
	}
	if b.Accepted() != len(wantIDs) {
		t.Errorf("Accepted = %d", b.Accepted())
	}
}

func TestParseBatchIgnoresTextBeforeFirstMSH(t *testing.T) {
	body := "POST from interface engine 3.2\r\nbatch 2024-01-15\r\n" + epicA01
	b, err := ParseBatch([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if b.Ignored != "POST from interface engine 3.2\r\nbatch 2024-01-15" {
		t.Errorf("Ignored = %q", b.Ignored)
	}
	if len(b.Notes) != 1 || !strings.Contains(b.Notes[0], "before the first MSH") {
		t.Errorf("Notes = %q", b.Notes)
	}
	if len(b.Messages) != 1 || b.Messages[0].Err != nil {
		t.Fatalf("messages = %+v", b.Messages)
	}
}

func TestParseBatchSkipsBatchEnvelope(t *testing.T) {
	body := "FHS|^~\\&|EPIC|UCH|SOUS|SOUS|20240115\r" +
		"BHS|^~\\&|EPIC|UCH|SOUS|SOUS|20240115\r" +
		epicA01 + cernerA02 +
		"BTS|2\r" +
		"FTS|1\r"
	b, err := ParseBatch([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Messages) != 2 || b.Ignored != "" {
		t.Fatalf("%d messages, ignored %q", len(b.Messages), b.Ignored)
	}
	if got := segmentIDs(&b.Messages[1]); got != "MSH EVN PID PV1 ZCR" {
		t.Errorf("trailer segments leaked into the last message: %q", got)
	}
	if len(b.Notes) != 4 {
		t.Errorf("Notes = %q", b.Notes)
	}

	b, err = ParseBatch([]byte(epicA01 + "BTS|1trailing junk" + cernerA02))
	if err != nil || len(b.Messages) != 2 || b.Ignored != "" || len(b.Notes) != 2 || !strings.Contains(b.Notes[1], "trailing junk") {
		t.Errorf("junk after a trailer: %v, %d messages, ignored %q, notes %q", err, len(b.Messages), b.Ignored, b.Notes)
	}
}

func TestParseBatchRejectsBrokenHeaders(t *testing.T) {
	tests := []struct {
		name, msh, reason string
	}{
		{"no field separator", "MSH", "no field separator"},
		{"letter as separator", "MSHX^~\\&X", "not a usable delimiter"},
		{"space as separator", "MSH ^~\\& A", "not a usable delimiter"},
		{"no encoding characters", "MSH||EPIC|UCH", "missing"},
		{"too many encoding characters", "MSH|^~\\&#!|EPIC", "at most 5"},
		{"duplicate encoding character", "MSH|^^\\&|EPIC", "used twice"},
		{"control character as encoding character", "MSH|^~\x01&|EPIC", "not a usable delimiter"},
		{"one encoding character and nothing else", "MSH|^|\\&|EPIC", "MSH-9"},
		{"digit as encoding character", "MSH|^~1&|EPIC", "not a usable delimiter"},
		{"no message type", "MSH|^~\\&|EPIC|UCH|SOUS|SOUS|20240115||", "MSH-9"},
		{"doubled escape by a sloppy exporter", "MSH|^~\\\\&|EPIC|UCH|||20240115||ADT^A01|1|P|2.5", "used twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.msh + "\rPID|1||123^^^H^MR\r" + cernerA02
			b, err := ParseBatch([]byte(body))
			if err != nil {
				t.Fatalf("batch failed although the second message is fine: %v", err)
			}
			if len(b.Messages) != 2 {
				t.Fatalf("%d messages", len(b.Messages))
			}
			bad := b.Messages[0]
			var me *MessageError
			if !errors.As(bad.Err, &me) || !errors.Is(bad.Err, ErrMalformed) || !strings.Contains(me.Reason, tt.reason) {
				t.Fatalf("Err = %v, want reason containing %q", bad.Err, tt.reason)
			}
			if me.Index != 0 || me.Offset != 0 {
				t.Errorf("MessageError = %+v", me)
			}
			if bad.Raw != tt.msh+"\rPID|1||123^^^H^MR" {
				t.Errorf("Raw = %q", bad.Raw)
			}
			if len(bad.Segments) > 1 {
				t.Errorf("rejected message kept %d segments", len(bad.Segments))
			}
			if b.Messages[1].Err != nil || b.Accepted() != 1 {
				t.Errorf("second message: %v", b.Messages[1].Err)
			}
		})
	}
}

func TestRejectedMessageKeepsControlID(t *testing.T) {
	body := "MSH|^~\\&|A|B|C|D|20240101||ADT^A01|KEEP-ME|P|2.5\rPID|" + strings.Repeat("|", MaxFieldsPerSegment) + "\r"
	b, err := ParseBatch([]byte(body))
	if !errors.Is(err, ErrNoMessage) {
		t.Fatalf("err = %v", err)
	}
	if got := b.Messages[0].ControlID(); got != "KEEP-ME" {
		t.Errorf("ControlID = %q", got)
	}
}

func TestParseBatchNoMessage(t *testing.T) {
	for _, body := range []string{
		"",
		"   \r\n\r\n",
		"\x0b\x1c\r",
		"\ufeff",
		"PID|1||123\rPV1|1|I\r",
		"hello world",
		"msh|^~\\&|lower|case\r",
		" xMSH|^~\\&|A|B|C|D|1||ADT^A01|1|P|2.5",
	} {
		b, err := ParseBatch([]byte(body))
		if !errors.Is(err, ErrNoMessage) {
			t.Errorf("%q: err = %v", body, err)
		}
		if len(b.Messages) != 0 {
			t.Errorf("%q: %d messages", body, len(b.Messages))
		}
	}

	b, err := ParseBatch([]byte("MSH|^^|A\rMSH\r"))
	if !errors.Is(err, ErrNoMessage) || len(b.Messages) != 2 || !strings.Contains(err.Error(), "used twice") {
		t.Errorf("all rejected: err = %v, %d messages", err, len(b.Messages))
	}
}

func TestParseSingle(t *testing.T) {
	m, err := Parse([]byte(cernerA02))
	if err != nil || m.ControlID() != "Q2938471T3302" {
		t.Fatalf("Parse = %v, %v", m, err)
	}
	if _, err := Parse([]byte(cernerA02 + epicA01)); err == nil {
		t.Error("Parse accepted two messages")
	}
	if _, err := Parse(nil); !errors.Is(err, ErrNoMessage) {
		t.Errorf("Parse(nil) = %v", err)
	}
	if m, err := Parse([]byte("MSH|^~\\&|A\r")); m == nil || !errors.Is(err, ErrMalformed) {
		t.Errorf("Parse(bad) = %v, %v", m, err)
	}
}

func TestParseBatchWarnsAboutStrayLines(t *testing.T) {
	body := "MSH|^~\\&|A|B|C|D|20240101||ADT^A01|1|P|2.5\r" +
		"PID|1||123^^^H^MR||DOE^JANE\r" +
		"  this line was wrapped by an editor\r" +
		"pv1|1|I|4W\r" +
		"PV1^1\r" +
		"PV1|1|I|4W\r"
	b, err := ParseBatch([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	m := &b.Messages[0]
	if got := segmentIDs(m); got != "MSH PID PV1" {
		t.Errorf("segments %q", got)
	}
	if len(m.Warnings) != 3 || !strings.Contains(m.Warnings[0], "this line was wrapped") {
		t.Errorf("Warnings = %q", m.Warnings)
	}

	var many strings.Builder
	many.WriteString("MSH|^~\\&|A|B|C|D|20240101||ADT^A01|1|P|2.5\r")
	for range 10 * MaxWarnings {
		many.WriteString("garbage\r")
	}
	b, _ = ParseBatch([]byte(many.String()))
	w := b.Messages[0].Warnings
	if len(w) != MaxWarnings || !strings.Contains(w[len(w)-1], fmt.Sprint(10*MaxWarnings-MaxWarnings+1)) {
		t.Errorf("%d warnings, last %q", len(w), w[len(w)-1])
	}
}

func TestLimits(t *testing.T) {
	msh := "MSH|^~\\&|A|B|C|D|20240101||ADT^A01|1|P|2.5\r"

	t.Run("messages", func(t *testing.T) {
		body := strings.Repeat(msh, MaxMessagesPerBody)
		b, err := ParseBatch([]byte(body))
		if err != nil || len(b.Messages) != MaxMessagesPerBody {
			t.Fatalf("at the limit: %v, %d", err, len(b.Messages))
		}
		_, err = ParseBatch([]byte(body + msh))
		var le *LimitError
		if !errors.As(err, &le) || !errors.Is(err, ErrLimit) || le.Limit != MaxMessagesPerBody {
			t.Fatalf("over the limit: %v", err)
		}
	})

	cases := []struct {
		name   string
		atMax  string
		overBy string
	}{
		{"segments", msh + strings.Repeat("ZZZ|1\r", MaxSegmentsPerMessage-1), "ZZZ|1\r"},
		{"fields", msh + "ZZZ" + strings.Repeat("|", MaxFieldsPerSegment), "|"},
		{"fields in MSH", "MSH|^~\\&|A|B|C|D|20240101||ADT^A01|1|P|2.5" + strings.Repeat("|", MaxFieldsPerSegment-12), "|"},
		{"repetitions", msh + "PID|1||" + strings.Repeat("1~", MaxRepetitionsPerField-1) + "1", "~1"},
		{"repetitions spread over fields stay fine", msh + "PID" + strings.Repeat("|1~2~3", 300), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := ParseBatch([]byte(c.atMax + "\r" + cernerA02))
			if err != nil || b.Messages[0].Err != nil {
				t.Fatalf("at the limit: %v, %v", err, b.Messages[0].Err)
			}
			if c.overBy == "" {
				return
			}
			b, err = ParseBatch([]byte(c.atMax + c.overBy + "\r" + cernerA02))
			if err != nil {
				t.Fatalf("the whole batch failed: %v", err)
			}
			if !errors.Is(b.Messages[0].Err, ErrLimit) {
				t.Fatalf("over the limit: %v", b.Messages[0].Err)
			}
			if b.Messages[1].Err != nil || b.Messages[1].ControlID() != "Q2938471T3302" {
				t.Errorf("next message: %v", b.Messages[1].Err)
			}
		})
	}
}
