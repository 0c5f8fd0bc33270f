package pg

import (
	"encoding/binary"
	"math"
	"testing"
	"time"

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

// Scanning a uuid's bytes into uuid.UUID and *uuid.UUID gives what pgx's own plan (through
// uuid.UUID's sql.Scanner) gives: the value, NULL leaving a uuid.UUID as it was and making a
// *uuid.UUID nil, an error for a malformed value; the text format goes the way it always did.
func TestUUIDScansAsPgxDoes(t *testing.T) {
	ours, theirs := pgtype.NewMap(), pgtype.NewMap()
	registerUUIDPlans(ours)
	u := uuid.MustParse("0192f3a4-5b6c-7d8e-9f01-23456789abcd")
	before := uuid.MustParse("00000000-0000-7000-8000-00000000beef")
	for _, tc := range []struct {
		name   string
		format int16
		src    []byte
	}{
		{"binary", pgtype.BinaryFormatCode, u[:]},
		{"NULL", pgtype.BinaryFormatCode, nil},
		{"short", pgtype.BinaryFormatCode, u[:15]},
		{"text", pgtype.TextFormatCode, []byte(u.String())},
	} {
		scan := func(m *pgtype.Map) (uuid.UUID, *uuid.UUID, error, error) {
			v, p := before, &before
			errV := m.Scan(pgtype.UUIDOID, tc.format, tc.src, &v)
			errP := m.Scan(pgtype.UUIDOID, tc.format, tc.src, &p)
			return v, p, errV, errP
		}
		v1, p1, errV1, errP1 := scan(ours)
		v2, p2, errV2, errP2 := scan(theirs)
		if (errV1 == nil) != (errV2 == nil) || (errP1 == nil) != (errP2 == nil) {
			t.Fatalf("%s: errors %v %v, pgx's %v %v", tc.name, errV1, errP1, errV2, errP2)
		}
		if errV1 == nil && v1 != v2 {
			t.Errorf("%s: uuid.UUID %v, pgx's %v", tc.name, v1, v2)
		}
		if errP1 == nil && ((p1 == nil) != (p2 == nil) || p1 != nil && *p1 != *p2) {
			t.Errorf("%s: *uuid.UUID %v, pgx's %v", tc.name, p1, p2)
		}
	}
	if _, ok := ours.PlanScan(pgtype.UUIDOID, pgtype.BinaryFormatCode, new(uuid.UUID)).(valuePlan[uuid.UUID]); !ok {
		t.Fatal("uuid.UUID is not scanned from its bytes")
	}
}

// Scanning a timestamptz's bytes into time.Time and *time.Time gives what pgx's own plans give:
// the instant in the local zone, NULL an error or nil, infinities and values out of pgx's range
// errors, a malformed value an error; the text format goes the way it always did.
func TestTimestamptzScansAsPgxDoes(t *testing.T) {
	ours, theirs := pgtype.NewMap(), pgtype.NewMap()
	registerTimestamptzPlans(ours)
	enc := func(us int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(us)) }
	cases := map[string][]byte{
		"NULL": nil, "short": {1, 2, 3}, "infinity": enc(math.MaxInt64), "-infinity": enc(math.MinInt64),
		"text": []byte("2026-11-27 09:30:00.123456+00"),
	}
	for name, us := range map[string]int64{
		"2000-01-01": 0, "now": 848_050_200_123_456, "before 2000": -1_234_567_890_123, "odd micros": -1,
		"oldest": -211_813_488_000_000_000, "before the oldest": -211_813_488_000_000_001,
		"newest": 9_223_371_331_199_999_999, "past the newest": 9_223_371_331_200_000_000,
	} {
		cases[name] = enc(us)
	}
	before := time.Date(1999, 1, 2, 3, 4, 5, 0, time.UTC)
	for name, src := range cases {
		format := int16(pgtype.BinaryFormatCode)
		if name == "text" {
			format = pgtype.TextFormatCode
		}
		scan := func(m *pgtype.Map) (time.Time, *time.Time, error, error) {
			v, p := before, &before
			errV := m.Scan(pgtype.TimestamptzOID, format, src, &v)
			errP := m.Scan(pgtype.TimestamptzOID, format, src, &p)
			return v, p, errV, errP
		}
		v1, p1, errV1, errP1 := scan(ours)
		v2, p2, errV2, errP2 := scan(theirs)
		if (errV1 == nil) != (errV2 == nil) || (errP1 == nil) != (errP2 == nil) {
			t.Fatalf("%s: errors %v %v, pgx's %v %v", name, errV1, errP1, errV2, errP2)
		}
		if errV1 == nil && (!v1.Equal(v2) || v1.Location() != v2.Location()) {
			t.Errorf("%s: time.Time %v, pgx's %v", name, v1, v2)
		}
		if errP1 == nil && ((p1 == nil) != (p2 == nil) || p1 != nil && (!p1.Equal(*p2) || p1.Location() != p2.Location())) {
			t.Errorf("%s: *time.Time %v, pgx's %v", name, p1, p2)
		}
	}
	if _, ok := ours.PlanScan(pgtype.TimestamptzOID, pgtype.BinaryFormatCode, new(*time.Time)).(pointerPlan[time.Time]); !ok {
		t.Fatal("*time.Time is not scanned from its bytes")
	}
}
