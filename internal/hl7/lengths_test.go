package hl7

import (
	"errors"
	"strings"
	"testing"
)

// TestLengthBounds: each stored field is accepted at its bound (counted in characters, so
// multi-byte text is not cut short) and rejects the message one character beyond it, naming the
// field; the other messages of the body are unaffected.
func TestLengthBounds(t *testing.T) {
	msg := func(app, fac, control, mrn, family, given, middle, unit, room, bed string) string {
		return "MSH|^~\\&|" + app + "|" + fac + "|SOUS|SOUS|20260302083000||ADT^A01|" + control + "|P|2.5.1\r" +
			"PID|1||" + mrn + "^^^HMC^MR||" + family + "^" + given + "^" + middle + "\r" +
			"PV1|1|I|" + unit + "^" + room + "^" + bed + "\r"
	}
	ok := []string{"EPIC", "HMC", "C1", "123", "DOE", "JANE", "Q", "4W", "401", "A"}
	tests := []struct {
		field string
		arg   int // index into ok
		limit int
	}{
		{"MSH-3 sending application", 0, MaxSenderLength},
		{"MSH-4 sending facility", 1, MaxSenderLength},
		{"MSH-10 message control ID", 2, MaxControlIDLength},
		{"PID-3 MRN", 3, MaxMRNLength},
		{"PID-5 family name", 4, MaxNameLength},
		{"PID-5 given name", 5, MaxNameLength},
		{"PID-5 middle name", 6, MaxNameLength},
		{"PV1-3 point of care (unit)", 7, MaxLocationLength},
		{"PV1-3 room", 8, MaxLocationLength},
		{"PV1-3 bed", 9, MaxLocationLength},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			with := func(v string) string {
				args := append([]string(nil), ok...)
				args[tt.arg] = v
				return msg(args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9])
			}
			atLimit := strings.Repeat("é", tt.limit) // 2 bytes each: the bound is in characters
			over := strings.Repeat("X", tt.limit+1)
			b, err := ParseString(with(atLimit) + with(over) + msg(ok[0], ok[1], ok[2], ok[3], ok[4], ok[5], ok[6], ok[7], ok[8], ok[9]))
			if err != nil || len(b.Messages) != 3 {
				t.Fatalf("parse: %v, %d messages", err, len(b.Messages))
			}
			var a ADT
			if err := b.Messages[0].ExtractADT(&a); err != nil {
				t.Fatalf("at the bound: %v", err)
			}
			err = b.Messages[1].ExtractADT(&a)
			var me *MessageError
			if !errors.As(err, &me) || !errors.Is(err, ErrLimit) || !strings.Contains(me.Reason, tt.field) || me.Index != 1 {
				t.Fatalf("over the bound: %v", err)
			}
			if a.Type.Event != "A01" {
				t.Fatalf("the rejected message's header is still read: %+v", a.Type)
			}
			if err := b.Messages[2].ExtractADT(&a); err != nil {
				t.Fatalf("next message: %v", err)
			}
		})
	}
}

func TestSender(t *testing.T) {
	b, err := ParseString("MSH|^~\\&|EPIC^1.2.3^ISO|^2.16.840.1^ISO|SOUS|SOUS|20260302||ADT^A01|1|P|2.5\r")
	if err != nil {
		t.Fatal(err)
	}
	app, fac := b.Messages[0].Sender()
	if app != "EPIC" || fac != "2.16.840.1" {
		t.Fatalf("sender %q %q", app, fac)
	}
	var a ADT
	if err := b.Messages[0].ExtractADT(&a); err != nil || a.SendingApplication != app || a.SendingFacility != fac {
		t.Fatalf("ADT reads %q %q (%v)", a.SendingApplication, a.SendingFacility, err)
	}
}
