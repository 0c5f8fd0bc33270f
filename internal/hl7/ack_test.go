package hl7

import (
	"strings"
	"testing"
	"time"
)

func TestAppendACK(t *testing.T) {
	at := time.Date(2026, 3, 2, 14, 30, 13, 0, time.FixedZone("", -6*3600))
	cases := []struct {
		name string
		msg  string
		ack  Ack
		want string
	}{{
		name: "standard delimiters, applied",
		msg:  "MSH|^~\\&|EPIC|HMC^1.2.3^ISO|SOUS|KITCHEN|20260302083012||ADT^A01^ADT_A01|MSG00001|P|2.5.1\rPID|1||100234567^^^HMC^MR",
		ack:  Ack{Code: AckAccept, ControlID: "ACK-MSG00001", At: at},
		want: "MSH|^~\\&|SOUS|KITCHEN|EPIC|HMC^1.2.3^ISO|20260302203013+0000||ACK^A01^ACK|ACK-MSG00001|P|2.5.1\rMSA|AA|MSG00001\r",
	}, {
		name: "custom delimiters, skipped with a reason that holds them",
		msg:  "MSH#$*@%#LAB#NORTH#SOUS#SOUS#20260302083012##ADT$A03#C-77#T#2.3\nPID#1##555$$$N$MR",
		ack:  Ack{Code: AckError, Text: "discharge for unknown MRN 555", Error: "discharge for unknown MRN 555 # not in $house", ControlID: "ACK-C-77", At: at},
		want: "MSH#$*@%#SOUS#SOUS#LAB#NORTH#20260302203013+0000##ACK$A03$ACK#ACK-C-77#T#2.3\r" +
			"MSA#AE#C-77#discharge for unknown MRN 555\r" +
			"ERR###207$Application internal error$HL70357#E####discharge for unknown MRN 555 @F@ not in @S@house\r",
	}, {
		name: "duplicate note",
		msg:  "MSH|^~\\&|A|B|C|D|20260302083012||ORM^O01|X1|P|2.4",
		ack:  Ack{Code: AckAccept, Text: "Duplicate: already processed", ControlID: "ACK-X1", At: at},
		want: "MSH|^~\\&|C|D|A|B|20260302203013+0000||ACK^O01^ACK|ACK-X1|P|2.4\rMSA|AA|X1|Duplicate: already processed\r",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := ParseString(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			got := string(AppendACK(nil, &b.Messages[0], tc.ack))
			if got != tc.want {
				t.Fatalf("got\n%q\nwant\n%q", got, tc.want)
			}
			// The acknowledgement is itself a message the parser reads, with the same delimiters.
			ack, err := ParseString(got)
			if err != nil || ack.Messages[0].Err != nil {
				t.Fatalf("ACK does not parse: %v %v", err, ack.Messages)
			}
			if ack.Messages[0].Encoding != b.Messages[0].Encoding {
				t.Fatalf("ACK encoding %+v, message %+v", ack.Messages[0].Encoding, b.Messages[0].Encoding)
			}
			msa, _ := ack.Messages[0].Segment("MSA")
			if msa.Field(2).Value() != b.Messages[0].ControlID() || !strings.HasPrefix(msa.Field(1).Value(), "A") {
				t.Fatalf("MSA %q", msa.Raw())
			}
			if tc.ack.Error != "" {
				e, ok := ack.Messages[0].Segment("ERR")
				if !ok || e.Field(8).Value() != tc.ack.Error || e.Field(3).Component(1) != "207" {
					t.Fatalf("ERR %q reads %q", e.Raw(), e.Field(8).Value())
				}
			}
		})
	}
}
