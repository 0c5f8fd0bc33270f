package hl7

import (
	"errors"
	"strings"
	"time"
)

// Precision says how much of an HL7 timestamp was sent. A birth date sent as
// "198004" is a month, not the first of the month, and callers that compare
// or display it need to know.
type Precision uint8

const (
	PrecisionNone Precision = iota
	PrecisionYear
	PrecisionMonth
	PrecisionDay
	PrecisionHour
	PrecisionMinute
	PrecisionSecond
	PrecisionSubsecond
)

var precisionNames = [...]string{"none", "year", "month", "day", "hour", "minute", "second", "subsecond"}

func (p Precision) String() string {
	if int(p) < len(precisionNames) {
		return precisionNames[p]
	}
	return "invalid"
}

// MarshalText makes JSON and logs show "day" rather than 3.
func (p Precision) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// Time is a parsed HL7 TS/DTM value: YYYY[MM[DD[HH[MM[SS[.S+]]]]]][+/-ZZZZ].
type Time struct {
	// Time holds the instant, in UTC, when HasZone is true. Otherwise it
	// holds the sender's wall clock in time.UTC, and In must be used to place
	// it in the facility's time zone: HL7 senders omit the offset far more
	// often than not, and guessing UTC would shift every admission by hours.
	Time      time.Time
	Precision Precision
	HasZone   bool
	// ZoneOffset is the sender's offset east of UTC in seconds when HasZone.
	// It is kept as a number because building a time.Location per value
	// would allocate on every message.
	ZoneOffset int
	Raw        string // as sent
}

// IsZero reports whether no timestamp was sent.
func (t Time) IsZero() bool { return t.Precision == PrecisionNone }

// In returns the timestamp in loc: converted when the sender gave an offset,
// read as loc's wall clock when it did not.
func (t Time) In(loc *time.Location) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	if t.HasZone {
		return t.Time.In(loc)
	}
	w := t.Time
	return time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), loc)
}

var errBadTime = errors.New("hl7: not an HL7 timestamp (YYYY[MM[DD[HH[MM[SS[.S]]]]]][+/-ZZZZ])")

// ParseTime parses an HL7 timestamp. The empty string gives a zero Time and
// no error; anything else that is not a valid date gives an error.
func ParseTime(s string) (Time, error) {
	t := Time{Raw: s}
	s = strings.TrimSpace(s)
	if s == "" {
		return t, nil
	}
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	digits, rest := s[:n], s[n:]
	var prec Precision
	switch n {
	case 4:
		prec = PrecisionYear
	case 6:
		prec = PrecisionMonth
	case 8:
		prec = PrecisionDay
	case 10:
		prec = PrecisionHour
	case 12:
		prec = PrecisionMinute
	case 14:
		prec = PrecisionSecond
	default:
		return t, errBadTime
	}
	// Two digits at a time; the length switch above fixed which are present.
	f := [6]int{atoi(digits[:4]), 1, 1, 0, 0, 0}
	for i, at := 1, 4; at < n; i, at = i+1, at+2 {
		f[i] = int(digits[at]-'0')*10 + int(digits[at+1]-'0')
	}
	nsec := 0
	if rest != "" && rest[0] == '.' {
		if prec != PrecisionSecond {
			return t, errBadTime
		}
		k := 1
		for k < len(rest) && isDigit(rest[k]) {
			k++
		}
		frac := rest[1:k]
		if frac == "" || len(frac) > 9 {
			return t, errBadTime
		}
		nsec = atoi(frac)
		for i := len(frac); i < 9; i++ {
			nsec *= 10
		}
		prec = PrecisionSubsecond
		rest = rest[k:]
	}
	if rest != "" {
		off, ok := parseOffset(rest)
		if !ok {
			return t, errBadTime
		}
		t.ZoneOffset = off
		t.HasZone = true
	}
	if f[0] < 1 || f[1] < 1 || f[1] > 12 || f[2] < 1 || f[2] > daysIn(f[0], f[1]) ||
		f[3] > 23 || f[4] > 59 || f[5] > 59 {
		return Time{Raw: t.Raw}, errBadTime
	}
	// time.Date normalises and looks up zones; with validated fields the
	// civil-to-epoch arithmetic is all that is needed, at a fraction of the
	// cost, and every message carries several timestamps.
	sec := daysFromCivil(f[0], f[1], f[2])*86400 + int64(f[3]*3600+f[4]*60+f[5]) - int64(t.ZoneOffset)
	t.Time = time.Unix(sec, int64(nsec)).UTC()
	t.Precision = prec
	return t, nil
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil returns days since 1970-01-01 of a proleptic Gregorian date
// (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400 // y ≥ 0 here: years are four digits and at least 1
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// parseOffset reads ±HHMM, also ±HH:MM which some engines emit.
func parseOffset(s string) (int, bool) {
	if len(s) == 6 && s[3] == ':' {
		s = s[:3] + s[4:]
	}
	if len(s) != 5 || (s[0] != '+' && s[0] != '-') {
		return 0, false
	}
	for i := 1; i < 5; i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
	}
	h, m := atoi(s[1:3]), atoi(s[3:5])
	if h > 14 || m > 59 {
		return 0, false
	}
	off := h*3600 + m*60
	if s[0] == '-' {
		off = -off
	}
	return off, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// atoi reads a short run of ASCII digits the caller has already checked.
func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}
