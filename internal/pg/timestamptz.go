package pg

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// registerTimestamptzPlans makes pgx scan a timestamptz column into a time.Time (or a *time.Time,
// nullable) straight from its 8 bytes. Left alone, pgx plans each such column anew for every
// query through reflection (a pointer-to-pointer plan around a wrapper type, three allocations):
// about a microsecond of the authorization's read, whose trial end is one. The decoding is pgx's
// own (TimestamptzCodec's binary plan with no scan location); TestTimestamptzScansAsPgxDoes holds
// the two together on every edge.
func registerTimestamptzPlans(m *pgtype.Map) {
	t, ok := m.TypeForOID(pgtype.TimestamptzOID)
	if !ok {
		return
	}
	if c, ok := t.Codec.(*pgtype.TimestamptzCodec); !ok || c.ScanLocation != nil {
		return // a codec configured otherwise keeps its own plans
	}
	scanFromBytes(m, pgtype.TimestamptzOID, decodeTimestamptz, func(*time.Time) error {
		return errors.New("cannot scan NULL into *time.Time")
	})
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
