package pg

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// registerUUID makes pgx encode github.com/google/uuid values as the 16 bytes they are. Left
// alone, pgx sees a driver.Valuer and goes through Value(): the UUID formatted as text, then
// parsed back, for every id of every query and COPY row, which cost bulk writes a quarter of
// their CPU.
func registerUUID(_ context.Context, conn *pgx.Conn) error {
	m := conn.TypeMap()
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{tryWrapUUIDEncodePlan}, m.TryWrapEncodePlanFuncs...)
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
