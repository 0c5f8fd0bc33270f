package hl7

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzParseBatch(f *testing.F) {
	for _, m := range []string{epicA01, cernerA02, meditechA03, legacyA08, v27A01, v21A01, ormO01, omdO03, a04} {
		f.Add([]byte(m))
		f.Add([]byte("\x0b\ufeff" + withTerminators(m, "\r\n") + "\x1c\r"))
	}
	f.Add([]byte(epicA01 + cernerA02 + "BTS|2\rFTS|1\r"))
	f.Add([]byte("preamble\n" + withTerminators(omdO03, "\n")))
	f.Add([]byte("MSH|^~\\&|A|B|C|D|20240101||ADT^A01|1|P|2.5\rPID|1||" + strings.Repeat("1~", 120) + "\r"))
	f.Add([]byte("MSH|^~\\&|A|B|C|D|20240101||ADT^A01|1|P|2.5\rNTE|1||\\X\\\\XC3\\\\.sp 999\\\\\\\\H\\\\.br\\\x93\x00\r"))
	f.Add([]byte("MSH|^^\\&|\rMSH\rMSH|\rMSH|^~\\&#!|\rMSH!@#$%!A!B!C!D!1!!ADT@A08!X!P!2.2\r"))
	f.Add([]byte("MSH|^~\\&|A|B|C|D|2024||ADT^A01|1|P|2.5\rAL1|1|FA|^nka\rODS|D||^iddsi 4 food level 7 ec nectar 2gm k\r"))
	f.Add([]byte{})

	var (
		parser Parser // reused across inputs, as the ingest reuses it
		reused ADT
	)
	f.Fuzz(func(t *testing.T, body []byte) {
		orig := bytes.Clone(body)
		b, err := ParseBatch(body)
		pb, perr := parser.ParseString(string(body))
		if (err == nil) != (perr == nil) || len(pb.Messages) != len(b.Messages) {
			t.Fatalf("reused Parser: %v, %d messages; fresh: %v, %d", perr, len(pb.Messages), err, len(b.Messages))
		}
		if !bytes.Equal(body, orig) {
			t.Fatal("ParseBatch modified its input")
		}
		if err != nil && !errors.Is(err, ErrNoMessage) && !errors.Is(err, ErrLimit) {
			t.Fatalf("unexpected error %v", err)
		}
		if errors.Is(err, ErrNoMessage) != (b.Accepted() == 0) && !errors.Is(err, ErrLimit) {
			t.Fatalf("err %v with %d accepted messages", err, b.Accepted())
		}
		if len(b.Messages) > MaxMessagesPerBody || len(b.Notes) > MaxWarnings {
			t.Fatalf("%d messages, %d notes", len(b.Messages), len(b.Notes))
		}
		s := string(body)
		// The mapping tables and the timestamp parser see sender text directly.
		head := s[:min(len(s), 300)]
		if m := MapDiet(CodedValue{Code: head, Text: head}); m.Mapped() != (len(m.Diets) > 0) {
			t.Fatalf("MapDiet(%q) = %+v", head, m)
		}
		if m := MapAllergen(CategoryFood, CodedValue{Code: head, Text: head}); m.Mapped() != (len(m.Allergens) > 0) {
			t.Fatalf("MapAllergen(%q) = %+v", head, m)
		}
		if ts, err := ParseTime(head); err == nil && ts.IsZero() != (strings.TrimSpace(head) == "") {
			t.Fatalf("ParseTime(%q) = %+v", head, ts)
		}
		if b.Ignored != "" && !strings.Contains(s, b.Ignored) {
			t.Fatal("Ignored is not part of the body")
		}
		last := -1
		for i := range b.Messages {
			m := &b.Messages[i]
			if m.Index != i || m.Offset <= last || !strings.HasPrefix(s[m.Offset:], m.Raw) || !strings.HasPrefix(m.Raw, "MSH") {
				t.Fatalf("message %d: index %d offset %d raw %q", i, m.Index, m.Offset, m.Raw)
			}
			last = m.Offset
			if len(m.Segments) > MaxSegmentsPerMessage || len(m.Warnings) > MaxWarnings {
				t.Fatalf("message %d: %d segments, %d warnings", i, len(m.Segments), len(m.Warnings))
			}
			if m.Err != nil {
				var me *MessageError
				if !errors.As(m.Err, &me) || me.Reason == "" {
					t.Fatalf("message %d: rejection %v is not a *MessageError", i, m.Err)
				}
			}
			if i < 20 { // keep each execution fast; the bounds are per segment
				for _, seg := range m.Segments[:min(len(m.Segments), 20)] {
					checkSegment(t, seg)
				}
			}
			a, err := m.ADT()
			if (err == nil) != (m.Err == nil) {
				t.Fatalf("ADT error %v for message error %v", err, m.Err)
			}
			if i < 20 && a != nil {
				if err := pb.Messages[i].ExtractADT(&reused); err != nil || !reflect.DeepEqual(adtView(&reused), adtView(a)) {
					t.Fatalf("message %d: a reused ADT differs from a fresh one (%v)", i, err)
				}
			}
			if a != nil {
				checkADT(t, a)
			}
		}
	})
}

func checkSegment(t *testing.T, seg Segment) {
	t.Helper()
	if !isSegmentLine(seg.Raw(), seg.Encoding().Field) && seg.ID() != "MSH" {
		t.Fatalf("segment %q has an invalid ID", seg.Raw())
	}
	n := seg.NumFields()
	if n > MaxFieldsPerSegment+1 {
		t.Fatalf("%s has %d fields", seg.ID(), n)
	}
	for i := -1; i <= min(n+1, 25); i++ {
		f := seg.Field(i)
		checkValue(t, f.Value(), f.Raw())
		reps := f.Repetitions()
		if len(reps) != f.NumRepetitions() || len(reps) > MaxRepetitionsPerField {
			t.Fatalf("%s-%d: %d repetitions, NumRepetitions %d", seg.ID(), i, len(reps), f.NumRepetitions())
		}
		for _, r := range reps[:min(len(reps), 3)] {
			for c := 0; c <= min(r.NumComponents()+1, 8); c++ {
				checkValue(t, r.Component(c), r.Raw())
				for sc := 0; sc <= 2; sc++ {
					checkValue(t, r.SubComponent(c, sc), r.Raw())
				}
			}
		}
	}
}

func checkValue(t *testing.T, v, raw string) {
	t.Helper()
	if !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 {
		t.Fatalf("value %q from %q is not clean UTF-8", v, raw)
	}
	if len(v) > MaxValueExpansion*len(raw) {
		t.Fatalf("value %q is %d bytes from %d raw bytes", v, len(v), len(raw))
	}
}

func checkADT(t *testing.T, a *ADT) {
	t.Helper()
	switch a.Action() {
	case ActionAdmit, ActionTransfer, ActionDischarge, ActionUpdate, ActionDietOrder, ActionUnsupported:
	default:
		t.Fatalf("action %q", a.Action())
	}
	if len(a.Warnings) > MaxWarnings || len(a.Patient.Identifiers) > MaxRepetitionsPerField {
		t.Fatalf("%d warnings, %d identifiers", len(a.Warnings), len(a.Patient.Identifiers))
	}
	if (a.Patient.MRN == "") != (a.Patient.MRNSource == MRNSourceNone) {
		t.Fatalf("MRN %q from %q", a.Patient.MRN, a.Patient.MRNSource)
	}
	for _, s := range []string{a.ControlID, a.Patient.MRN, a.Patient.Name.Family, a.Visit.Location.PointOfCare} {
		if !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 %q", s)
		}
	}
	for _, al := range a.Allergies {
		if al.Allergen.IsZero() {
			t.Fatal("allergy without allergen")
		}
		if al.Match.Mapped() != (len(al.Match.Allergens) > 0) {
			t.Fatalf("allergen match %+v", al.Match)
		}
	}
	for _, d := range a.DietOrders {
		for _, c := range d.Codes {
			if c.Match.Mapped() != (len(c.Match.Diets) > 0) {
				t.Fatalf("diet match %+v", c.Match)
			}
		}
	}
	for _, ts := range []Time{a.MessageTime, a.RecordedTime, a.Patient.BirthDate, a.Visit.AdmitTime} {
		if ts.IsZero() && (!ts.Time.IsZero() || ts.HasZone) {
			t.Fatalf("timestamp %+v", ts)
		}
	}
}
