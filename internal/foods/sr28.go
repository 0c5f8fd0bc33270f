package foods

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// SR28's ASCII format, as USDA publishes it: one record a line (CRLF), fields separated by
// `^`, text fields wrapped in `~`, an empty field a missing value, Latin-1 text.

// maxLine bounds a record: SR28's longest (NUT_DATA) is about 100 bytes, so a line past this is
// not SR28 (a binary file, a wrong file) and is refused instead of buffered.
const maxLine = 4096

// FileError names the file and line an import stopped at, and why.
type FileError struct {
	File string
	Line int // 0: the file as a whole (missing, unreadable)
	Msg  string
}

func (e *FileError) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s line %d: %s", e.File, e.Line, e.Msg)
}

// srFile reads one SR28 file record by record.
type srFile struct {
	name   string // as errors name it: FOOD_DES.txt, NUT_DATA.txt.gz
	want   int    // fields a record has
	f      *os.File
	gz     *gzip.Reader
	r      *bufio.Reader
	line   int
	fields []string
}

// openSR opens base (e.g. "NUT_DATA") in dir as base.txt or, failing that, base.txt.gz.
func openSR(dir, base string, fields int) (*srFile, error) {
	s := &srFile{want: fields, fields: make([]string, 0, fields)}
	for _, name := range []string{base + ".txt", base + ".txt.gz"} {
		f, err := os.Open(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, &FileError{File: name, Msg: err.Error()}
		}
		s.name, s.f = name, f
		var src io.Reader = f
		if filepath.Ext(name) == ".gz" {
			if s.gz, err = gzip.NewReader(f); err != nil {
				f.Close()
				return nil, &FileError{File: name, Msg: "not a gzip file: " + err.Error()}
			}
			src = s.gz
		}
		s.r = bufio.NewReaderSize(src, 64<<10)
		return s, nil
	}
	return nil, &FileError{File: base + ".txt", Msg: fmt.Sprintf("not found in %s (nor %s.txt.gz)", dir, base)}
}

func (s *srFile) Close() {
	if s.gz != nil {
		s.gz.Close()
	}
	s.f.Close()
}

// errf is an error at the current line.
func (s *srFile) errf(format string, args ...any) error {
	return &FileError{File: s.name, Line: s.line, Msg: fmt.Sprintf(format, args...)}
}

// next reads the next record into s.fields (valid until the following call); false at the end
// of the file, with err set when the file is not well-formed SR28.
func (s *srFile) next() (ok bool, err error) {
	raw, err := s.r.ReadSlice('\n')
	if len(raw) == 0 && errors.Is(err, io.EOF) {
		return false, nil
	}
	s.line++
	switch {
	case errors.Is(err, bufio.ErrBufferFull) || len(raw) > maxLine:
		return false, s.errf("longer than %d bytes: not an SR28 record", maxLine)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return false, s.errf("the compressed file ends early: it is truncated")
	case err != nil && !errors.Is(err, io.EOF):
		return false, s.errf("%v", err)
	}
	// USDA's last record has no line end; a copy cut inside a record is caught by its fields.
	if raw[len(raw)-1] == '\n' {
		raw = raw[:len(raw)-1]
	}
	if n := len(raw); n > 0 && raw[n-1] == '\r' {
		raw = raw[:n-1]
	}
	s.fields = s.fields[:0]
	for {
		i := indexByte(raw, '^')
		field := raw
		if i >= 0 {
			field = raw[:i]
		}
		if len(field) > 0 && field[0] == '~' {
			if len(field) < 2 || field[len(field)-1] != '~' {
				return false, s.errf("field %d: text opened with ~ is not closed", len(s.fields)+1)
			}
			field = field[1 : len(field)-1]
		}
		s.fields = append(s.fields, latin1(field))
		if i < 0 {
			break
		}
		raw = raw[i+1:]
	}
	if len(s.fields) != s.want {
		return false, s.errf("%d fields, want %d", len(s.fields), s.want)
	}
	return true, nil
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// latin1 decodes ISO-8859-1 (every byte is the code point of the same value) into a string.
func latin1(b []byte) string {
	ascii := true
	for _, c := range b {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b)
	}
	out := make([]rune, len(b))
	for i, c := range b {
		out[i] = rune(c)
	}
	return string(out)
}

// Field checks. SR28's codes are fixed-width digit strings; its numbers plain decimals.

func isDigits(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isDecimal reports whether s is a non-negative plain decimal as SR writes them ("81.11", "0",
// ".5"), of at most 15 digits before the point and 9 after it.
func isDecimal(s string) bool {
	intPart, frac, point := cut(s, '.')
	if intPart == "" && frac == "" || len(intPart) > 15 || point && (frac == "" || len(frac) > 9) {
		return false
	}
	return allDigits(intPart) && allDigits(frac)
}

func isInt(s string) bool { return s != "" && len(s) <= 9 && allDigits(s) }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func cut(s string, sep byte) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func isZero(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '0' && s[i] != '.' {
			return false
		}
	}
	return true
}
