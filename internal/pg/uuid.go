package pg

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// registerUUID makes pgx encode github.com/google/uuid values as the 16 bytes they are. Left
// alone, pgx sees a driver.Valuer and goes through Value(): the UUID formatted as text, then
// parsed back, for every id of every query and COPY row, which cost bulk writes a quarter of
// their CPU.
//
// It also makes pgx scan a uuid column into a uuid.UUID (or a *uuid.UUID, nullable) straight from
// its 16 bytes. Left alone, pgx finds uuid.UUID a sql.Scanner: it formats the bytes as text for
// Scan to parse back, three allocations for every id of every row read.
func registerUUID(_ context.Context, conn *pgx.Conn) error {
	registerUUIDPlans(conn.TypeMap())
	return nil
}

func registerUUIDPlans(m *pgtype.Map) {
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{tryWrapUUIDEncodePlan}, m.TryWrapEncodePlanFuncs...)
	if t, ok := m.TypeForOID(pgtype.UUIDOID); ok {
		m.RegisterType(&pgtype.Type{Name: t.Name, OID: t.OID, Codec: uuidCodec{t.Codec}})
	}
}

// uuidCodec is pgx's own uuid codec but for scanning its binary form into uuid.UUID.
type uuidCodec struct{ pgtype.Codec }

func (c uuidCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if format == pgtype.BinaryFormatCode {
		switch target.(type) {
		case *uuid.UUID:
			return scanUUID{}
		case **uuid.UUID:
			return scanNullableUUID{}
		}
	}
	return c.Codec.PlanScan(m, oid, format, target)
}

// scanUUID leaves the target as it is on NULL, as uuid.UUID's Scan does.
type scanUUID struct{}

func (scanUUID) Scan(src []byte, dst any) error {
	if src == nil {
		return nil
	}
	if len(src) != 16 {
		return fmt.Errorf("invalid length for UUID: %v", len(src))
	}
	*dst.(*uuid.UUID) = uuid.UUID(src)
	return nil
}

// scanNullableUUID sets the target to nil on NULL, as pgx does for a pointer target.
type scanNullableUUID struct{}

func (scanNullableUUID) Scan(src []byte, dst any) error {
	p := dst.(**uuid.UUID)
	if src == nil {
		*p = nil
		return nil
	}
	if len(src) != 16 {
		return fmt.Errorf("invalid length for UUID: %v", len(src))
	}
	u := uuid.UUID(src)
	*p = &u
	return nil
}

func tryWrapUUIDEncodePlan(value any) (pgtype.WrappedEncodePlanNextSetter, any, bool) {
	switch u := value.(type) {
	case uuid.UUID:
		return &uuidEncodePlan{}, [16]byte(u), true
	case *uuid.UUID: // nullable columns
		return &uuidEncodePlan{}, [16]byte{}, true
	}
	return nil, nil, false
}

type uuidEncodePlan struct{ next pgtype.EncodePlan }

func (p *uuidEncodePlan) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *uuidEncodePlan) Encode(value any, buf []byte) ([]byte, error) {
	switch u := value.(type) {
	case *uuid.UUID:
		if u == nil {
			return nil, nil // NULL
		}
		return p.next.Encode([16]byte(*u), buf)
	default:
		return p.next.Encode([16]byte(value.(uuid.UUID)), buf)
	}
}
