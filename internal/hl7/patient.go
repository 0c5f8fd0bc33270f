package hl7

import "strings"

// MRNSource records where Patient.MRN came from, so the caller can tell a
// proper medical record number from a best guess.
type MRNSource string

const (
	MRNSourceNone      MRNSource = "none"
	MRNSourcePID3MR    MRNSource = "pid3_mr"    // the PID-3 identifier typed MR (or MRN)
	MRNSourcePID3First MRNSource = "pid3_first" // no MR-typed identifier: the first PID-3 identifier
	MRNSourcePID2      MRNSource = "pid2"       // PID-3 empty: the legacy external ID in PID-2
)

// Patient is PID.
type Patient struct {
	MRN          string
	MRNSource    MRNSource
	MRNAuthority string       // assigning authority of the identifier used (CX.4)
	Identifiers  []Identifier // every PID-3 identifier, in order
	Name         PersonName   // PID-5, the legal name (type L) when marked
	BirthDate    Time         // PID-7
	Sex          string       // PID-8 as sent, upper-cased (F, M, O, U, A, N)
}

// Identifier is one CX identifier of PID-3.
type Identifier struct {
	ID        string // CX.1
	Authority string // CX.4, namespace (or universal ID)
	TypeCode  string // CX.5, e.g. MR, PI, AN, SS
}

// PersonName is an XPN name.
type PersonName struct {
	Family string // XPN.1 (the surname subcomponent of FN)
	Given  string // XPN.2
	Middle string // XPN.3, second and further given names or initials
	Suffix string // XPN.4, e.g. JR
	Prefix string // XPN.5, e.g. DR
}

// Visit is PV1.
type Visit struct {
	Class         string   // PV1-2: I inpatient, O outpatient, E emergency, ...
	Location      Location // PV1-3, the assigned (new, for a transfer) location
	PriorLocation Location // PV1-6, where a transferred patient came from
	VisitNumber   string   // PV1-19 (CX.1)
	AdmitTime     Time     // PV1-44
	DischargeTime Time     // PV1-45
}

// Location is a PL (person location).
type Location struct {
	PointOfCare string // PL.1, the nursing unit, e.g. "4W"
	Room        string // PL.2
	Bed         string // PL.3
	Facility    string // PL.4 (HD namespace)
	Building    string // PL.7
	Floor       string // PL.8
}

// IsZero reports whether no location was sent.
func (l Location) IsZero() bool { return l == Location{} }

func (x *extractor) patient(s *Segment, p *Patient) {
	enc := &s.enc
	c := s.fields()
	pid2, pid3 := c.part(2), c.part(3)
	name, dob, sex := c.part(5), c.part(7), c.part(8)

	if n := countReps(pid3, enc); n > 0 {
		p.Identifiers = carve(x.a.buf.ids[:], &x.used.ids, n)
		eachRep(pid3, enc, func(rep string) {
			c := compsOf(rep, enc)
			id := Identifier{ID: c.text(1), Authority: c.sub(4, 1), TypeCode: c.code(5)}
			if id.Authority == "" {
				id.Authority = c.sub(4, 2)
			}
			if id.ID != "" {
				p.Identifiers = append(p.Identifiers, id)
			}
		})
		if len(p.Identifiers) == 0 {
			p.Identifiers = nil
		}
	}
	for _, id := range p.Identifiers {
		// "MRN" is not in table 0203 but several large vendors send it.
		if id.TypeCode == "MR" || id.TypeCode == "MRN" {
			p.MRN, p.MRNAuthority, p.MRNSource = id.ID, id.Authority, MRNSourcePID3MR
			break
		}
	}
	if p.MRNSource == MRNSourceNone && len(p.Identifiers) > 0 {
		id := p.Identifiers[0]
		p.MRN, p.MRNAuthority, p.MRNSource = id.ID, id.Authority, MRNSourcePID3First
	}
	if p.MRNSource == MRNSourceNone {
		// PID-2 was withdrawn in v2.3.1 but older systems still put the MRN
		// there.
		c2 := compsOf(firstRep(pid2, enc), enc)
		if id := c2.text(1); id != "" {
			p.MRN, p.MRNAuthority, p.MRNSource = id, c2.sub(4, 1), MRNSourcePID2
		}
	}

	p.Name = personName(name, enc)
	p.BirthDate = x.ts(dob, enc, "PID-7")
	p.Sex = firstCode(sex, enc)
}

// personName picks the legal name when names are typed, else the first.
func personName(field string, enc *Encoding) PersonName {
	chosen := firstRep(field, enc)
	if strings.IndexByte(field, enc.Repetition) >= 0 && enc.Repetition != 0 {
		legal := false
		eachRep(field, enc, func(rep string) {
			if !legal && strings.EqualFold(strings.TrimSpace(nth(rep, enc.Component, 7)), "L") {
				chosen, legal = rep, true
			}
		})
	}
	c := compsOf(chosen, enc)
	return PersonName{
		Family: c.sub(1, 1),
		Given:  c.text(2),
		Middle: c.text(3),
		Suffix: c.text(4),
		Prefix: c.text(5),
	}
}

func (x *extractor) visit(s *Segment, v *Visit) {
	enc := &s.enc
	f := s.fields()
	v.Class = firstCode(f.part(2), enc)
	v.Location = location(f.part(3), enc)
	v.PriorLocation = location(f.part(6), enc)
	v.VisitNumber = firstText(f.part(19), enc)
	v.AdmitTime = x.ts(f.part(44), enc, "PV1-44")
	v.DischargeTime = x.ts(f.part(45), enc, "PV1-45")
}

func location(field string, enc *Encoding) Location {
	if field == "" {
		return Location{}
	}
	c := compsOf(firstRep(field, enc), enc)
	return Location{
		PointOfCare: c.text(1),
		Room:        c.text(2),
		Bed:         c.text(3),
		Facility:    c.sub(4, 1),
		Building:    c.text(7),
		Floor:       c.text(8),
	}
}
