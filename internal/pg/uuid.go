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
	// NULL leaves a uuid.UUID as it was, as its Scan does.
	scanFromBytes(m, pgtype.UUIDOID, decodeUUID, func(*uuid.UUID) error { return nil })
}

func decodeUUID(src []byte) (uuid.UUID, error) {
	if len(src) != 16 {
		return uuid.UUID{}, fmt.Errorf("invalid length for UUID: %v", len(src))
	}
	return uuid.UUID(src), nil
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
