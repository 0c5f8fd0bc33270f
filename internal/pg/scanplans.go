package pg

import (
	"github.com/jackc/pgx/v5/pgtype"
)

// scanFromBytes makes pgx scan the binary form of the type oid into a T (and a *T, for a
// nullable column) with decode, instead of the plan pgx would make for the column on every
// query; every other target and the text format keep the type's own codec. null is what a NULL
// does to a T (a *T becomes nil). The plans are made here once per connection, so planning a
// column costs a type switch.
func scanFromBytes[T any](m *pgtype.Map, oid uint32, decode func([]byte) (T, error), null func(*T) error) {
	t, ok := m.TypeForOID(oid)
	if !ok {
		return
	}
	m.RegisterType(&pgtype.Type{Name: t.Name, OID: t.OID, Codec: bytesCodec[T]{
		Codec: t.Codec, value: valuePlan[T]{decode, null}, pointer: pointerPlan[T]{decode},
	}})
}

type bytesCodec[T any] struct {
	pgtype.Codec
	// value and pointer are boxed once, here, so that planning allocates nothing.
	value, pointer pgtype.ScanPlan
}

func (c bytesCodec[T]) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if format == pgtype.BinaryFormatCode {
		switch target.(type) {
		case *T:
			return c.value
		case **T:
			return c.pointer
		}
	}
	return c.Codec.PlanScan(m, oid, format, target)
}

type valuePlan[T any] struct {
	decode func([]byte) (T, error)
	null   func(*T) error
}

func (p valuePlan[T]) Scan(src []byte, dst any) error {
	d := dst.(*T)
	if src == nil {
		return p.null(d)
	}
	v, err := p.decode(src)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

type pointerPlan[T any] struct{ decode func([]byte) (T, error) }

func (p pointerPlan[T]) Scan(src []byte, dst any) error {
	d := dst.(**T)
	if src == nil {
		*d = nil
		return nil
	}
	v, err := p.decode(src)
	if err != nil {
		return err
	}
	*d = &v
	return nil
}
