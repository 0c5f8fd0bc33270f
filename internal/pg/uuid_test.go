package pg

import (
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
)

func TestUUIDEncodesAsBytes(t *testing.T) {
	m := pgtype.NewMap()
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{tryWrapUUIDEncodePlan}, m.TryWrapEncodePlanFuncs...)
	u := uuid.MustParse("0192f3a4-5b6c-7d8e-9f01-23456789abcd")
	for _, p := range []*uuid.UUID{&u, nil} {
		plan := m.PlanEncode(pgtype.UUIDOID, pgtype.BinaryFormatCode, p)
		buf, err := plan.Encode(p, nil)
		if err != nil || (p == nil) != (buf == nil) || p != nil && string(buf) != string(u[:]) {
			t.Fatalf("pointer %v: %x %v", p, buf, err)
		}
	}
	for _, v := range []any{u, []uuid.UUID{u, u}} {
		oid := uint32(pgtype.UUIDOID)
		if _, ok := v.([]uuid.UUID); ok {
			oid = pgtype.UUIDArrayOID
		}
		plan := m.PlanEncode(oid, pgtype.BinaryFormatCode, v)
		if plan == nil {
			t.Fatalf("no plan for %T", v)
		}
		buf, err := plan.Encode(v, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := v.(uuid.UUID); ok && string(buf) != string(u[:]) {
			t.Fatalf("encoded %x", buf)
		}
		var back []uuid.UUID
		if arr, ok := v.([]uuid.UUID); ok {
			if err := m.Scan(pgtype.UUIDArrayOID, pgtype.BinaryFormatCode, buf, &back); err != nil || len(back) != len(arr) || back[0] != u {
				t.Fatalf("round trip %v %v", back, err)
			}
		}
	}
}
