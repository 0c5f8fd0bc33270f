package sensors

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// Each case is one reading a minute ("o" out of range at 50 °F, "l" out low at 30 °F, "." in
// range at 38 °F) against 33–41 °F with a 3-minute hold; want marks the minute an excursion
// opens ("O") or resolves ("R").
func TestStep(t *testing.T) {
	lo, hi := decimal.NewFromInt(33), decimal.NewFromInt(41)
	r := rule{min: &lo, max: &hi, hold: 3 * time.Minute}
	values := map[byte]decimal.Decimal{'o': decimal.NewFromInt(50), 'l': decimal.NewFromInt(30), '.': decimal.NewFromInt(38)}
	cases := []struct{ name, readings, want, peak string }{
		{"a spike", "..o..", ".....", ""},
		{"out 2 minutes", "..ooo..", ".......", ""},
		{"out 3 minutes opens once", "..oooooo", ".....O..", "50"},
		{"back in range 3 minutes resolves", ".oooo....", "....O...R", "50"},
		{"a blip during recovery restarts the wait", ".oooo..o....", "....O......R", "50"},
		{"too cold", ".llll....", "....O...R", "30"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := state{phase: phaseInRange}
			start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
			var got strings.Builder
			var peak string
			for i := range len(c.readings) {
				tr, changed := r.step(&s, start.Add(time.Duration(i)*time.Minute), values[c.readings[i]])
				switch {
				case changed && tr.Opened:
					got.WriteByte('O')
					peak = tr.Peak.String()
				case changed && tr.Resolved:
					got.WriteByte('R')
				default:
					got.WriteByte('.')
				}
			}
			if got.String() != c.want || peak != c.peak {
				t.Fatalf("got %s (peak %q), want %s (peak %q)", got.String(), peak, c.want, c.peak)
			}
		})
	}
}
