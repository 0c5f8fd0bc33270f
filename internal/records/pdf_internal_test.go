package records

import "testing"

func TestDollars(t *testing.T) {
	for cents, want := range map[int64]string{0: "$0.00", 5: "$0.05", 750: "$7.50", 123450: "$1,234.50", 100000000: "$1,000,000.00", -2599: "-$25.99"} {
		if got := dollars(cents); got != want {
			t.Errorf("dollars(%d) = %q, want %q", cents, got, want)
		}
	}
}
