package pg_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/pg/pgtest"
)

// Numerics scanned from their binary form are the decimals the text form gives: the same value
// at the same exponent (the column's scale), over the edges (zero at a scale, trailing zeros,
// base-10000 boundaries, negatives, values past int64, tiny fractions) and a few thousand random
// values; a NULL into a *decimal.Decimal is nil, and NaN is refused, not read as a number.
func TestNumericsScanAsTheirText(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	values := []string{
		"0", "0.00", "-0.5", "1", "1.50", "100", "100.00", "9999", "10000", "10000.0001",
		"0.0001", "0.00001", "-0.00001234", "12345678901234567890.123456789", "-99999999999999999999999",
		"3.14159265358979323846264338327950288", "1e-20", "123456789012345678", "1000000", "0.000000000",
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		intPart := fmt.Sprint(r.Int64N(1_000_000_000_000))
		if r.IntN(3) == 0 {
			intPart = fmt.Sprint(r.IntN(10))
		}
		frac := ""
		if n := r.IntN(12); n > 0 {
			digits := fmt.Sprint(r.Int64N(1_000_000_000))
			frac = "." + strings.Repeat("0", r.IntN(4)) + digits[:min(len(digits), n)]
		}
		sign := ""
		if r.IntN(2) == 0 {
			sign = "-"
		}
		values = append(values, sign+intPart+frac)
	}
	rows, err := pool.Query(t.Context(), "SELECT v::numeric, v::numeric::text FROM unnest($1::text[]) AS v", values)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var got decimal.Decimal
		var text string
		if err := rows.Scan(&got, &text); err != nil {
			t.Fatal(err)
		}
		want := decimal.RequireFromString(text)
		if !got.Equal(want) || got.Exponent() != want.Exponent() || got.String() != want.String() {
			t.Errorf("%s: scanned %s (exponent %d), text gives %s (exponent %d)", text, got, got.Exponent(), want, want.Exponent())
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(values) {
		t.Fatalf("%d rows for %d values", n, len(values))
	}

	var p *decimal.Decimal
	if err := pool.QueryRow(t.Context(), "SELECT NULL::numeric").Scan(&p); err != nil || p != nil {
		t.Fatalf("NULL: %v %v", p, err)
	}
	var d decimal.Decimal
	if err := pool.QueryRow(t.Context(), "SELECT 'NaN'::numeric").Scan(&d); err == nil {
		t.Fatalf("NaN scanned as %s", d)
	}
	if err := pool.QueryRow(t.Context(), "SELECT NULL::numeric").Scan(&d); err == nil {
		t.Fatal("NULL scanned into a decimal")
	}
}
