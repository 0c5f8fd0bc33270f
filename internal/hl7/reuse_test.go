package hl7

import (
	"reflect"
	"strings"
	"testing"
)

// TestParserAndADTReuse parses bodies of different sizes one after another
// with one Parser and one ADT and compares with fresh parses.
func TestParserAndADTReuse(t *testing.T) {
	bodies := []string{
		typicalA01Batch(3), epicA01, withTerminators(cernerA02, "\r\n") + legacyA08, typicalA01Batch(40),
		omdO03 + ormO01, "MSH|^~\\&|\rPID|1\r" + a04, v21A01, typicalA01Batch(1),
	}
	var (
		p Parser
		a ADT
	)
	for round := range 2 {
		for i, body := range bodies {
			got, gerr := p.ParseString(body)
			want, werr := ParseString(strings.Clone(body))
			if (gerr == nil) != (werr == nil) || len(got.Messages) != len(want.Messages) || !reflect.DeepEqual(got.Notes, want.Notes) {
				t.Fatalf("round %d body %d: %v/%v, %d/%d messages", round, i, gerr, werr, len(got.Messages), len(want.Messages))
			}
			for k := range got.Messages {
				g, w := &got.Messages[k], &want.Messages[k]
				if g.Raw != w.Raw || len(g.Segments) != len(w.Segments) || (g.Err == nil) != (w.Err == nil) {
					t.Fatalf("round %d body %d message %d differs", round, i, k)
				}
				werr := w.ExtractADT(new(ADT))
				wa, _ := w.ADT()
				if err := g.ExtractADT(&a); (err == nil) != (werr == nil) {
					t.Fatalf("extract: %v / %v", err, werr)
				}
				if wa != nil && !reflect.DeepEqual(adtView(&a), adtView(wa)) {
					t.Fatalf("round %d body %d message %d: reused ADT differs:\n%+v\n%+v", round, i, k, adtView(&a), adtView(wa))
				}
			}
		}
	}
}

// adtView is an ADT without its backing buffers, for comparison.
func adtView(a *ADT) ADT {
	c := *a
	c.buf = adtBuffers{}
	return c
}
