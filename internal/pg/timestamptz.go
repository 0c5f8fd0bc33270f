package pg

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// registerTimestamptzPlans makes pgx scan a timestamptz column into a time.Time (or a *time.Time,
// nullable) straight from its 8 bytes. Left alone, pgx plans each such column anew for every
// query through reflection (a pointer-to-pointer plan around a wrapper type), three allocations
// and a tenth of a microsecond per column per query: a twentieth of the authorization's read,
// whose trial end is one. The decoding is pgx's own (TimestamptzCodec's binary plan with no scan
// location); TestTimestamptzScansAsPgxDoes holds the two together on every edge.
func registerTimestamptzPlans(m *pgtype.Map) {
	t, ok := m.TypeForOID(pgtype.TimestamptzOID)
	if !ok {
		return
	}
	if c, ok := t.Codec.(*pgtype.TimestamptzCodec); !ok || c.ScanLocation != nil {
		return // a codec configured otherwise keeps its own plans
	}
	m.RegisterType(&pgtype.Type{Name: t.Name, OID: t.OID, Codec: timestamptzCodec{t.Codec}})
}

type timestamptzCodec struct{ pgtype.Codec }

func (c timestamptzCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if format == pgtype.BinaryFormatCode {
		switch target.(type) {
		case *time.Time:
			return scanTime{}
		case **time.Time:
			return scanNullableTime{}
		}
	}
	return c.Codec.PlanScan(m, oid, format, target)
}

type scanTime struct{}

func (scanTime) Scan(src []byte, dst any) error {
	if src == nil {
		return fmt.Errorf("cannot scan NULL into *time.Time")
	}
	t, err := decodeTimestamptz(src)
	if err != nil {
		return err
	}
	*dst.(*time.Time) = t
	return nil
}

type scanNullableTime struct{}

func (scanNullableTime) Scan(src []byte, dst any) error {
	p := dst.(**time.Time)
	if src == nil {
		*p = nil
		return nil
	}
	t, err := decodeTimestamptz(src)
	if err != nil {
		return err
	}
	*p = &t
	return nil
}

const microsecFromUnixEpochToY2K = 946_684_800 * 1_000_000

var (
	// The range pgx accepts (its minDateTime and endTimestamp).
	minTimestamptz = time.Date(-4713, 11, 24, 0, 0, 0, 0, time.UTC)
	endTimestamptz = time.Date(294277, 1, 1, 0, 0, 0, 0, time.UTC)
)

// decodeTimestamptz reads the binary form (microseconds since 2000-01-01 UTC) as pgx does, in
// the local time zone, refusing infinities as pgx does for a time.Time.
func decodeTimestamptz(src []byte) (time.Time, error) {
	if len(src) != 8 {
		return time.Time{}, fmt.Errorf("timestamptz: invalid length: expected 8 bytes, got %d", len(src))
	}
	us := int64(binary.BigEndian.Uint64(src))
	switch us {
	case math.MaxInt64:
		return time.Time{}, fmt.Errorf("cannot scan Infinity into *time.Time")
	case math.MinInt64:
		return time.Time{}, fmt.Errorf("cannot scan -Infinity into *time.Time")
	}
	t := time.Unix(
		microsecFromUnixEpochToY2K/1_000_000+us/1_000_000,
		(microsecFromUnixEpochToY2K%1_000_000*1_000)+(us%1_000_000*1_000),
	)
	if t.Before(minTimestamptz) || !t.Before(endTimestamptz) {
		return time.Time{}, fmt.Errorf("timestamptz %d microseconds from 2000-01-01 is out of range", us)
	}
	return t, nil
}
