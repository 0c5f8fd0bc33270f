package hl7

import (
	"runtime"
	"strings"
	"testing"
)

// Hostile bodies must cost memory in proportion to their size, with small
// factors, whatever their shape. Time is not asserted (it depends on the
// machine) but every case here runs in milliseconds.
func TestHostileBodiesStayLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates tens of megabytes")
	}
	msh := "MSH|^~\\&|A|B|C|D|20240101||ADT^A01|1|P|2.5\r"
	const big = 2 << 20
	tests := []struct {
		name        string
		body        string
		parse, adt  float64 // allowed bytes allocated per body byte
		wantMessage bool
	}{
		{"one huge field of escape characters", msh + "PID|1||1^^^H^MR||" + strings.Repeat("\\", big) + "\r", 2, 2, true},
		{"hex escapes", msh + "PID|1||1^^^H^MR||" + strings.Repeat("\\X41\\", big/5) + "\r", 2, 2, true},
		{"unknown escapes", msh + "PID|1||1^^^H^MR||" + strings.Repeat("\\Z\\", big/3) + "\r", 2, 2, true},
		{"Windows-1252 bytes", msh + "PID|1||1^^^H^MR||" + strings.Repeat("\x93", big) + "\r", 2, MaxValueExpansion + 1, true},
		{"components", msh + "PID|1||1^^^H^MR||" + strings.Repeat("^", big) + "\r", 2, 1, true},
		{"subcomponents", msh + "PID|1||" + strings.Repeat("&", big) + "\r", 2, 1, true},
		{"blank lines", msh + strings.Repeat("\r\n", big/2), 2, 1, true},
		{"garbage lines", msh + strings.Repeat("x\r", big/2), 2, 1, true},
		{"long allergy text", msh + "AL1|1|FA|^" + strings.Repeat("peanut ", big/7) + "\r", 2, 1, true},
		{"minimal segments", strings.Repeat(msh+strings.Repeat("ZZZ\r", MaxSegmentsPerMessage-1), 50), 20, 1, true},
		// An ADT is a fixed ~3.5 KB, so tiny messages are bounded per
		// message (and by MaxMessagesPerBody), not per byte: 4096/17.
		{"minimal messages", strings.Repeat("MSH|^~\\&|||||||A\r", 5000), 30, 241, true},
		{"broken headers", strings.Repeat("MSH|^^\r", 5000), 120, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b Batch
			parse := allocatedPerByte(len(tt.body), func() { b, _ = ParseBatch([]byte(tt.body)) })
			if parse > tt.parse {
				t.Errorf("parse allocated %.1f bytes per input byte, want ≤ %.0f", parse, tt.parse)
			}
			extracted := 0
			adt := allocatedPerByte(len(tt.body), func() {
				for i := range b.Messages {
					// A value beyond its length bound rejects the message, after extraction.
					if a, _ := b.Messages[i].ADT(); a != nil {
						extracted++
					}
				}
			})
			if adt > tt.adt {
				t.Errorf("extraction allocated %.1f bytes per input byte, want ≤ %.0f", adt, tt.adt)
			}
			if (extracted > 0) != tt.wantMessage {
				t.Errorf("%d messages extracted", extracted)
			}
		})
	}
}

func allocatedPerByte(n int, f func()) float64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}
