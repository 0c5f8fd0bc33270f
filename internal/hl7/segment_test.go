package hl7

import (
	"slices"
	"testing"
)

func TestMSHFieldNumbering(t *testing.T) {
	tests := []struct {
		name                 string
		body                 string
		fs, enc, app, typ, v string
		fields               int
	}{
		{"standard", epicA01, "|", `^~\&`, "EPIC", "ADT^A01^ADT_A01", "2.5.1", 18},
		{"own delimiters", legacyA08, "!", "@#$%", "OLDADT", "ADT", "2.2", 12},
		{"v2.7 truncation", v27A01, "|", `^~\&#`, "EPIC", "ADT^A01^ADT_A01", "2.7", 12},
		{"two encoding characters", v21A01, "|", "^~", "LEGACY", "ADT^A01", "2.1", 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			h := m.Header()
			checks := []struct {
				what, got, want string
			}{
				{"MSH-0", h.Field(0).Value(), "MSH"},
				{"MSH-1", h.Field(1).Value(), tt.fs},
				{"MSH-1 raw", h.Field(1).Raw(), tt.fs},
				{"MSH-2", h.Field(2).Value(), tt.enc},
				{"MSH-2 component 2", h.Field(2).Component(2), ""},
				{"MSH-2 subcomponent", h.Field(2).SubComponent(1, 1), tt.enc},
				{"MSH-3", h.Field(3).Value(), tt.app},
				{"MSH-9 raw", h.Field(9).Raw(), replaceDelims(tt.typ, m.Encoding)},
				{"MSH-12", h.Field(12).Value(), tt.v},
				{"MSH-99", h.Field(99).Value(), ""},
			}
			for _, c := range checks {
				if c.got != c.want {
					t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
				}
			}
			if n := h.Field(2).NumRepetitions(); n != 1 {
				t.Errorf("MSH-2 has %d repetitions; it must never be split", n)
			}
			if got := h.NumFields(); got != tt.fields {
				t.Errorf("NumFields = %d, want %d", got, tt.fields)
			}
			if h.ID() != "MSH" {
				t.Errorf("ID = %q", h.ID())
			}
		})
	}
}

// replaceDelims writes an expected "A^B" value in a message's own delimiters.
func replaceDelims(s string, e Encoding) string {
	b := []byte(s)
	for i, c := range b {
		if c == '^' {
			b[i] = e.Component
		}
	}
	return string(b)
}

func TestNonHeaderFieldNumbering(t *testing.T) {
	m, _ := Parse([]byte(epicA01))
	pid, ok := m.Segment("PID")
	if !ok {
		t.Fatal("no PID")
	}
	if pid.Field(0).Value() != "PID" || pid.Field(1).Value() != "1" || pid.Field(2).Value() != "" || pid.Field(7).Value() != "19800412" {
		t.Errorf("PID fields: 0=%q 1=%q 2=%q 7=%q", pid.Field(0).Value(), pid.Field(1).Value(), pid.Field(2).Value(), pid.Field(7).Value())
	}
	if got := pid.NumFields(); got != 18 {
		t.Errorf("NumFields = %d", got)
	}
	if _, ok := m.Segment("OBX"); ok {
		t.Error("found an OBX that is not there")
	}
}

func TestRepetitionsComponentsSubcomponents(t *testing.T) {
	m, _ := Parse([]byte(epicA01))
	pid, _ := m.Segment("PID")
	f := pid.Field(3)
	if f.NumRepetitions() != 2 {
		t.Fatalf("PID-3 repetitions = %d", f.NumRepetitions())
	}
	reps := f.Repetitions()
	var ids []string
	for _, r := range reps {
		ids = append(ids, r.Component(1)+"/"+r.Component(5))
	}
	if !slices.Equal(ids, []string{"100234567/MR", "123-45-6789/SS"}) {
		t.Errorf("PID-3 = %q", ids)
	}
	checks := []struct{ what, got, want string }{
		{"CX.4 whole", f.Component(4), "UCH&1.2.840.114350.1.13.1.1&ISO"},
		{"CX.4.1", f.SubComponent(4, 1), "UCH"},
		{"CX.4.2", f.SubComponent(4, 2), "1.2.840.114350.1.13.1.1"},
		{"CX.4.3", f.SubComponent(4, 3), "ISO"},
		{"CX.4.4", f.SubComponent(4, 4), ""},
		{"rep 2 CX.4.1", f.Repetition(2).SubComponent(4, 1), "SSA"},
		{"rep 3", f.Repetition(3).Raw(), ""},
		{"rep 0", f.Repetition(0).Value(), ""},
		{"component 0", f.Component(0), ""},
		{"component -1", f.Component(-1), ""},
		{"component 1000", f.Component(1000), ""},
		{"subcomponent 0", f.SubComponent(4, 0), ""},
		{"Value", f.Value(), "100234567"},
		{"rep Value", reps[1].Value(), "123-45-6789"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
	if n := reps[0].NumComponents(); n != 5 {
		t.Errorf("NumComponents = %d", n)
	}
	if !pid.Field(2).Empty() || pid.Field(2).NumRepetitions() != 0 || pid.Field(2).Repetitions() != nil {
		t.Error("empty PID-2 is not empty")
	}
}

func TestNullAndEmpty(t *testing.T) {
	m, _ := Parse([]byte("MSH|^~\\&|A|B|C|D|20240101||ADT^A08|1|P|2.5\rPID|1||123^^^H^MR||\"\"|||\"\"\r"))
	pid, _ := m.Segment("PID")
	if !pid.Field(5).Null() || pid.Field(5).Empty() || pid.Field(5).Value() != `""` {
		t.Errorf("PID-5 null: %q", pid.Field(5).Raw())
	}
	a, _ := m.ADT()
	if a.Patient.Name.Family != "" || a.Patient.Sex != "" {
		t.Errorf("null values leaked into extraction: %+v", a.Patient)
	}
}

func TestZeroValuesDoNotPanic(t *testing.T) {
	var s Segment
	var f Field
	var r Repetition
	var m Message
	for _, v := range []string{
		s.ID(), s.Raw(), s.Field(-1).Value(), s.Field(0).Value(), s.Field(1).Value(), s.Field(2).Component(3),
		f.Value(), f.Component(2), f.SubComponent(1, 2), f.Repetition(1).Value(),
		r.Value(), r.Component(3), r.SubComponent(2, 2),
		m.Header().Field(9).Value(), m.ControlID(), m.Type().Code,
	} {
		if v != "" {
			t.Errorf("zero value gave %q", v)
		}
	}
	if s.NumFields() != 0 || f.NumRepetitions() != 0 || r.NumComponents() != 0 || f.Repetitions() != nil {
		t.Error("zero values are not empty")
	}
	if _, err := m.ADT(); err != nil {
		t.Errorf("ADT of an empty message: %v", err)
	}
}

func TestSegmentWithoutFields(t *testing.T) {
	m, err := Parse([]byte("MSH|^~\\&|A|B|C|D|20240101||ADT^A01|1|P|2.5\rPID\rPV1|\r"))
	if err != nil {
		t.Fatal(err)
	}
	if got := segmentIDs(m); got != "MSH PID PV1" {
		t.Fatalf("segments %q", got)
	}
	for _, s := range m.Segments[1:] {
		if s.NumFields() > 1 || s.Field(1).Value() != "" || s.Field(3).Component(2) != "" {
			t.Errorf("%s: unexpected fields", s.ID())
		}
	}
}
