package catering

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

// halfEven rounds a rational to the nearest integer, ties to even: the reference, written on
// big rationals independently of the decimal package.
func halfEven(r *big.Rat) *big.Int {
	num, den := new(big.Int).Set(r.Num()), r.Denom()
	q, m := new(big.Int).DivMod(num, den, new(big.Int)) // floor division (m ≥ 0)
	twice := new(big.Int).Mul(m, big.NewInt(2))
	switch twice.Cmp(den) {
	case 1:
		q.Add(q, big.NewInt(1))
	case 0:
		if q.Bit(0) == 1 {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

func ratOf(d decimal.Decimal) *big.Rat {
	r, ok := new(big.Rat).SetString(d.String())
	if !ok {
		panic(d.String())
	}
	return r
}

// reference computes a quote's totals on big rationals.
func reference(lines []Line, r Rates) (Totals, bool) {
	var t Totals
	sub, taxable := new(big.Int), new(big.Int)
	for _, l := range lines {
		exact := new(big.Rat).Mul(ratOf(l.Quantity), new(big.Rat).SetInt64(l.UnitPriceCents))
		c := halfEven(exact)
		if l.Discount {
			c.Neg(c)
		}
		t.Lines = append(t.Lines, c.Int64())
		sub.Add(sub, c)
		if l.Taxable {
			taxable.Add(taxable, c)
		}
	}
	if sub.Sign() < 0 {
		return Totals{}, false
	}
	svc := halfEven(new(big.Rat).SetFrac(new(big.Int).Mul(sub, big.NewInt(int64(r.ServiceChargeBps))), big.NewInt(10000)))
	if taxable.Sign() < 0 {
		taxable.SetInt64(0)
	}
	base := new(big.Int).Add(taxable, svc)
	tax := halfEven(new(big.Rat).SetFrac(new(big.Int).Mul(base, big.NewInt(int64(r.TaxRateBps))), big.NewInt(10000)))
	total := new(big.Int).Add(new(big.Int).Add(sub, svc), tax)
	dep := halfEven(new(big.Rat).SetFrac(new(big.Int).Mul(total, big.NewInt(int64(r.DepositPercent))), big.NewInt(100)))
	return Totals{Lines: t.Lines, Subtotal: sub.Int64(), ServiceCharge: svc.Int64(), Tax: tax.Int64(), Total: total.Int64(), Deposit: dep.Int64()}, true
}

func randomQuote(rng *rand.Rand) ([]Line, Rates) {
	n := 1 + rng.IntN(12)
	lines := make([]Line, n)
	for i := range lines {
		// Quantities with up to 4 places; often x.5, which ties when the price is odd.
		q := decimal.New(1+rng.Int64N(200_000), -int32(rng.IntN(5)))
		if rng.IntN(4) == 0 {
			q = decimal.New(int64(1+rng.IntN(400))*5, -1)
		}
		lines[i] = Line{Quantity: q, UnitPriceCents: rng.Int64N(500_000), Taxable: rng.IntN(3) > 0, Discount: rng.IntN(6) == 0}
	}
	return lines, Rates{ServiceChargeBps: rng.IntN(3001), TaxRateBps: rng.IntN(1501), DepositPercent: rng.IntN(101)}
}

// The property: for any quote, every part equals the reference on big rationals, and the total
// is exactly the sum of the rounded parts — never off by a cent.
func TestTotalsMatchTheRationalReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 2026))
	checked, refused := 0, 0
	for range 20000 {
		lines, rates := randomQuote(rng)
		want, ok := reference(lines, rates)
		got, err := Compute(lines, rates)
		if !ok {
			if err != errNegativeSubtotal {
				t.Fatalf("subtotal below 0 accepted: %v", err)
			}
			refused++
			continue
		}
		if err != nil {
			t.Fatalf("%v for %+v", err, lines)
		}
		checked++
		for i := range want.Lines {
			if got.Lines[i] != want.Lines[i] {
				t.Fatalf("line %d: %d, reference %d (%s × %d)", i, got.Lines[i], want.Lines[i], lines[i].Quantity, lines[i].UnitPriceCents)
			}
		}
		if got.Subtotal != want.Subtotal || got.ServiceCharge != want.ServiceCharge || got.Tax != want.Tax || got.Total != want.Total || got.Deposit != want.Deposit {
			t.Fatalf("got %+v, reference %+v", got, want)
		}
		var sum int64
		for _, c := range got.Lines {
			sum += c
		}
		if sum != got.Subtotal || got.Subtotal+got.ServiceCharge+got.Tax != got.Total {
			t.Fatalf("parts do not add up: %+v", got)
		}
	}
	if checked < 10000 || refused == 0 {
		t.Fatalf("checked %d, refused %d: the generator misses cases", checked, refused)
	}
}

func TestRoundingIsHalfEvenToTheCent(t *testing.T) {
	for _, c := range []struct {
		qty   string
		price int64
		want  int64
	}{
		{"0.5", 1, 0}, {"1.5", 1, 2}, {"2.5", 1, 2}, {"0.125", 100, 12}, {"0.135", 100, 14}, {"3", 333, 999}, {"0.3333", 3, 1},
	} {
		got, err := Compute([]Line{{Quantity: decimal.RequireFromString(c.qty), UnitPriceCents: c.price}}, Rates{})
		if err != nil || got.Lines[0] != c.want {
			t.Errorf("%s × %d = %v (%v), want %d", c.qty, c.price, got.Lines, err, c.want)
		}
	}
	one := decimal.NewFromInt(1)
	// A discount may bring the subtotal to 0 but not below.
	if _, err := Compute([]Line{{Quantity: one, UnitPriceCents: 100}, {Quantity: one, UnitPriceCents: 100, Discount: true}}, Rates{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Compute([]Line{{Quantity: one, UnitPriceCents: 100}, {Quantity: one, UnitPriceCents: 101, Discount: true}}, Rates{}); err != errNegativeSubtotal {
		t.Fatal(err)
	}
	if _, err := Compute([]Line{{Quantity: decimal.RequireFromString("999999999.9999"), UnitPriceCents: 100_000_000}}, Rates{}); err != errTooLarge {
		t.Fatal(err)
	}
}

// BenchmarkCompute prices a 20-line quote.
func BenchmarkCompute(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	lines := make([]Line, 20)
	for i := range lines {
		lines[i] = Line{Quantity: decimal.New(1+rng.Int64N(200_000), -2), UnitPriceCents: rng.Int64N(500_000), Taxable: i%3 != 0}
	}
	rates := Rates{ServiceChargeBps: 2000, TaxRateBps: 1025, DepositPercent: 30}
	for b.Loop() {
		if _, err := Compute(lines, rates); err != nil {
			b.Fatal(err)
		}
	}
}
