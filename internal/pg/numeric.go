package pg

import (
	"encoding/binary"
	"errors"
	"math/big"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"
)

// registerNumericPlans scans numeric columns into decimals from their binary form directly.
// decimal.Decimal is an sql.Scanner, so pgx would otherwise take its database/sql path for every
// numeric value: the value formatted as text by pgx, then parsed back by the decimal (a recipe's
// analysis scans hundreds). The decimal made here is the one the text path makes: the same
// digits at the column's scale (dscale), so 1.50 reads as 150 × 10⁻², not 1.5.
func registerNumericPlans(m *pgtype.Map) {
	scanFromBytes(m, pgtype.NumericOID, decodeNumeric, func(*decimal.Decimal) error {
		return errors.New("cannot scan NULL into *decimal.Decimal")
	})
}

const (
	numericNegative = 0x4000
	numericNaN      = 0xC000
	numericPosInf   = 0xD000
	numericNegInf   = 0xF000
)

var bigTenThousand = big.NewInt(10000)

// decodeNumeric reads PostgreSQL's binary numeric: a header of ndigits, weight (of the first
// base-10000 digit), sign and dscale (the decimal digits after the point), then the digits.
func decodeNumeric(src []byte) (decimal.Decimal, error) {
	if len(src) < 8 {
		return decimal.Decimal{}, errors.New("numeric: short header")
	}
	ndigits := int(binary.BigEndian.Uint16(src[0:]))
	weight := int(int16(binary.BigEndian.Uint16(src[2:])))
	sign := binary.BigEndian.Uint16(src[4:])
	dscale := int(int16(binary.BigEndian.Uint16(src[6:])))
	switch sign {
	case numericNaN, numericPosInf, numericNegInf:
		return decimal.Decimal{}, errors.New("numeric: NaN and infinity have no decimal")
	case 0, numericNegative:
	default:
		return decimal.Decimal{}, errors.New("numeric: bad sign")
	}
	if len(src) != 8+2*ndigits || dscale < 0 {
		return decimal.Decimal{}, errors.New("numeric: bad length or scale")
	}
	// The value is the digits as one base-10000 integer times 10^(4 × (weight − ndigits + 1)).
	var n int64
	var bi *big.Int
	for i := range ndigits {
		d := int64(binary.BigEndian.Uint16(src[8+2*i:]))
		if bi == nil && n < (1<<62)/10000 {
			n = n*10000 + d
			continue
		}
		if bi == nil {
			bi = big.NewInt(n)
		}
		bi.Mul(bi, bigTenThousand)
		bi.Add(bi, big.NewInt(d))
	}
	if bi == nil {
		bi = big.NewInt(n)
	}
	exp := 4 * (weight - ndigits + 1)
	// Bring it to the column's scale: trailing base-10000 zeros cut, or zeros the digits omit.
	switch want := -dscale; {
	case exp < want:
		bi.Quo(bi, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(want-exp)), nil))
		exp = want
	case exp > want:
		bi.Mul(bi, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exp-want)), nil))
		exp = want
	}
	if sign == numericNegative {
		bi.Neg(bi)
	}
	return decimal.NewFromBigInt(bi, int32(exp)), nil
}
