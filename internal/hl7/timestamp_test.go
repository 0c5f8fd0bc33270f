package hl7

import (
	"fmt"
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	tests := []struct {
		in      string
		want    string // time.RFC3339Nano of Time.Time
		prec    Precision
		hasZone bool
		offset  int
	}{
		{"", "0001-01-01T00:00:00Z", PrecisionNone, false, 0},
		{"1980", "1980-01-01T00:00:00Z", PrecisionYear, false, 0},
		{"198004", "1980-04-01T00:00:00Z", PrecisionMonth, false, 0},
		{"19800412", "1980-04-12T00:00:00Z", PrecisionDay, false, 0},
		{"2024011508", "2024-01-15T08:00:00Z", PrecisionHour, false, 0},
		{"202401150830", "2024-01-15T08:30:00Z", PrecisionMinute, false, 0},
		{"20240115083012", "2024-01-15T08:30:12Z", PrecisionSecond, false, 0},
		{"20240115083012.5", "2024-01-15T08:30:12.5Z", PrecisionSubsecond, false, 0},
		{"20240115083012.1234", "2024-01-15T08:30:12.1234Z", PrecisionSubsecond, false, 0},
		{"20240115083012-0700", "2024-01-15T15:30:12Z", PrecisionSecond, true, -7 * 3600},
		{"20240115083012.000+0530", "2024-01-15T03:00:12Z", PrecisionSubsecond, true, 19800},
		{"202401150830-05:00", "2024-01-15T13:30:00Z", PrecisionMinute, true, -5 * 3600},
		{"19800412+0000", "1980-04-12T00:00:00Z", PrecisionDay, true, 0},
		{"  20240229  ", "2024-02-29T00:00:00Z", PrecisionDay, false, 0},
	}
	for _, tt := range tests {
		got, err := ParseTime(tt.in)
		if err != nil {
			t.Errorf("ParseTime(%q): %v", tt.in, err)
			continue
		}
		if s := got.Time.Format(time.RFC3339Nano); s != tt.want || got.Precision != tt.prec || got.HasZone != tt.hasZone || got.ZoneOffset != tt.offset {
			t.Errorf("ParseTime(%q) = %s %v zone=%v %d, want %s %v zone=%v %d",
				tt.in, s, got.Precision, got.HasZone, got.ZoneOffset, tt.want, tt.prec, tt.hasZone, tt.offset)
		}
		if got.Raw != tt.in {
			t.Errorf("Raw = %q", got.Raw)
		}
	}
}

func TestParseTimeRejects(t *testing.T) {
	for _, in := range []string{
		"0", "198", "19800", "1980041", "198004121", "20240115083012345",
		"00000000", "0000", "19801301", "19800001", "19800230", "20230229", "19800431",
		"2024011524", "202401150860", "20240115083060",
		"2024-01-15", "20240115T0830", "2024011508301.5", "20240115083012.", "20240115083012.1234567890",
		"202401150830+25", "202401150830+2500", "202401150830+0560", "202401150830Z", "20240115 0830",
		"NOT A DATE", "\x00", "１９８０",
	} {
		got, err := ParseTime(in)
		if err == nil {
			t.Errorf("ParseTime(%q) = %+v, want an error", in, got)
		}
		if !got.IsZero() || got.Raw != in {
			t.Errorf("ParseTime(%q) returned a value with its error: %+v", in, got)
		}
	}
}

func TestTimeIn(t *testing.T) {
	denver, err := time.LoadLocation("America/Denver")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	local, _ := ParseTime("202401150830")
	if got := local.In(denver).Format(time.RFC3339); got != "2024-01-15T08:30:00-07:00" {
		t.Errorf("wall clock in Denver = %s", got)
	}
	zoned, _ := ParseTime("202401150830-0500")
	if got := zoned.In(denver).Format(time.RFC3339); got != "2024-01-15T06:30:00-07:00" {
		t.Errorf("converted to Denver = %s", got)
	}
	if !(Time{}).In(denver).IsZero() {
		t.Error("zero Time is not zero in a location")
	}
}

func TestPrecisionText(t *testing.T) {
	b, _ := PrecisionDay.MarshalText()
	if string(b) != "day" || Precision(200).String() != "invalid" {
		t.Errorf("%s %s", b, Precision(200))
	}
}

func TestParseTimeMatchesTimeDate(t *testing.T) {
	// The epoch arithmetic must agree with the standard library everywhere,
	// leap years and century rules included.
	for y := 1; y <= 9999; y += 7 {
		for m := 1; m <= 12; m++ {
			for _, d := range []int{1, 15, 28, 29, 30, 31} {
				want := time.Date(y, time.Month(m), d, 13, 45, 59, 0, time.UTC)
				s := fmt.Sprintf("%04d%02d%02d134559", y, m, d)
				got, err := ParseTime(s)
				if want.Day() != d { // not a real date
					if err == nil {
						t.Fatalf("ParseTime(%s) accepted an impossible date", s)
					}
					continue
				}
				if err != nil || !got.Time.Equal(want) || got.Time.Location() != time.UTC {
					t.Fatalf("ParseTime(%s) = %v, %v; want %v", s, got.Time, err, want)
				}
			}
		}
	}
}
