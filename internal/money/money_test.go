package money

import (
	"errors"
	"math"
	"testing"

	"github.com/shopspring/decimal"
)

func TestRoundTimesAddRefuseWhatWouldWrap(t *testing.T) {
	big := decimal.RequireFromString("99999999999999999999")
	for _, c := range []struct {
		name string
		got  func() (int64, error)
		want int64
		err  bool
	}{
		{"half-even down", func() (int64, error) { return Round(decimal.RequireFromString("2.5")) }, 2, false},
		{"half-even up", func() (int64, error) { return Round(decimal.RequireFromString("3.5")) }, 4, false},
		{"the bound", func() (int64, error) { return Round(decimal.NewFromInt(MaxCents)) }, MaxCents, false},
		{"past the bound", func() (int64, error) { return Round(decimal.NewFromInt(MaxCents + 1)) }, 0, true},
		{"past int64", func() (int64, error) { return Round(big) }, 0, true},
		{"negative past int64", func() (int64, error) { return Round(big.Neg()) }, 0, true},
		{"max int64 twice", func() (int64, error) { return Times(decimal.NewFromInt(2), math.MaxInt64) }, 0, true},
		{"times", func() (int64, error) { return Times(decimal.RequireFromString("1.5"), 4250) }, 6375, false},
		{"add", func() (int64, error) { return Add(1, 2, -4) }, -1, false},
		{"add past the bound", func() (int64, error) { return Add(MaxCents, 1) }, 0, true},
		{"add an unbounded amount", func() (int64, error) { return Add(math.MaxInt64, math.MaxInt64) }, 0, true},
		{"add back under the bound", func() (int64, error) { return Add(MaxCents, -MaxCents, MaxCents) }, MaxCents, false},
	} {
		got, err := c.got()
		if c.err != errors.Is(err, ErrTooLarge) || got != c.want {
			t.Errorf("%s = %d, %v", c.name, got, err)
		}
	}
}
