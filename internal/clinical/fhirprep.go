package clinical

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sous-app/sous/internal/fhir"
	"github.com/sous-app/sous/internal/hl7"
)

// A FHIR bundle is applied as an HL7 body is: each entry becomes a prepared message whose ADT
// carries the patient, visit and location the entry states, so that the census's own admit,
// transfer, update and discharge apply it with the same rules and trail. Allergies and nutrition
// orders, which FHIR changes one at a time where HL7 restates them whole, are applied by
// fhirapply.go.

// Kinds of entry.
const (
	fhirPatient   = "Patient"
	fhirEncounter = "Encounter"
	fhirAllergy   = "AllergyIntolerance"
	fhirNutrition = "NutritionOrder"
)

// fhirEntry is what an entry of a bundle asks of the census.
type fhirEntry struct {
	index        int
	resourceType string
	fullURL      string
	// refusal: the HTTP status and FHIR issue code of an entry that is not applied (reject is
	// set too), or of one that is ignored (ignore is set).
	status     int
	issueCode  string
	expression string
	ignore     string

	encStatus string // Encounter: admitted, discharged, or updated in place
	allergy   *fhirAllergyChange
	order     *fhirOrder

	created bool // the entry made a new patient or a new order (201)
	// bystander: rejected only because another entry of its transaction failed.
	bystander bool
}

// needsAllergies reports whether applying the entry reads the patient's stored allergies.
func (f *fhirEntry) needsAllergies() bool {
	return f.allergy != nil || (f.order != nil && len(f.order.allergyRefs) > 0)
}

type fhirAllergyChange struct {
	allergy   hl7.Allergy
	remove    bool
	noneKnown bool // a "no known allergy" statement (SNOMED CT situation), whatever its text
}

type fhirOrder struct {
	placer      string
	end         bool   // completed, revoked or entered in error: the order ends
	status      string // active or on-hold
	docs        []fhirOrderItem
	exclusions  []string
	nutrients   []nutrientDoc
	allergyRefs []hl7.CodedValue // referenced allergies not in the bundle, by their display
	startAt     hl7.Time
}

type fhirOrderItem struct {
	typ          string // diet, supplement, preference, enteral
	codes        []hl7.DietCode
	unmappable   bool // enteral: codes are kept, never mapped
	instructions []string
	product      string
}

// maxRaw bounds the resource text kept in the message trail per entry.
const maxRaw = 64 << 10

// prepareBundle turns every entry of a bundle into a prepared message, in order. mrnSystem is the
// organization's configured MRN identifier system ("" when none).
func prepareBundle(b *fhir.Bundle, mrnSystem string) []prepared {
	out := make([]prepared, len(b.Entry))
	types := make([]string, len(b.Entry))
	patients := make([]*fhir.Patient, len(b.Entry))
	ids := make([]string, len(b.Entry))
	for i := range b.Entry {
		// One decode per resource here: its type and id, and the whole of a Patient, which
		// the entries referring to it read.
		var pt fhir.Patient
		if len(b.Entry[i].Resource) == 0 || json.Unmarshal(b.Entry[i].Resource, &pt) != nil {
			types[i] = fhir.ResourceType(b.Entry[i].Resource)
			continue
		}
		types[i], ids[i] = pt.ResourceType, pt.ID
		if types[i] == fhirPatient {
			patients[i] = &pt
		}
	}
	idx := fhir.NewIndex(b, func(i int) (string, string) { return types[i], ids[i] })
	for i := range b.Entry {
		e := &b.Entry[i]
		p := &out[i]
		f := &fhirEntry{index: i, resourceType: types[i], fullURL: e.FullURL, status: 200}
		p.index, p.fhir, p.adt = i, f, &hl7.ADT{Patient: hl7.Patient{MRNSource: hl7.MRNSourceNone}}
		p.typ = "FHIR " + types[i]
		if types[i] == "" {
			p.typ = "FHIR"
		}
		p.raw = clipRaw(string(e.Resource))
		b := fhirBuilder{p: p, f: f, idx: idx, patients: patients, mrnSystem: mrnSystem, raw: e.Resource}
		if len(e.Resource) == 0 {
			b.refuse(400, "required", "Bundle.entry["+strconv.Itoa(i)+"]", "the entry has no resource")
			continue
		}
		if e.Request != nil && e.Request.Method != "" && e.Request.Method != "POST" && e.Request.Method != "PUT" {
			b.refuse(405, "not-supported", "Bundle.entry["+strconv.Itoa(i)+"].request.method",
				"request method "+clipText(e.Request.Method)+" is not supported: entries create or update (POST or PUT)")
			continue
		}
		switch types[i] {
		case fhirPatient:
			b.patient(patients[i])
		case fhirEncounter:
			b.encounter()
		case fhirAllergy:
			b.allergyIntolerance()
		case fhirNutrition:
			b.nutritionOrder()
		case "":
			b.refuse(400, "invalid", "Bundle.entry["+strconv.Itoa(i)+"].resource", "the resource has no resourceType")
		default:
			f.ignore = "resource type " + clipText(types[i]) + " is not taken by the census; ignored"
		}
	}
	return out
}

func clipRaw(s string) string {
	if len(s) <= maxRaw {
		return s
	}
	cut := maxRaw
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

func clipText(s string) string {
	if len(s) > 80 {
		cut := 80
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut] + "…")
	}
	return strconv.Quote(s)
}

type fhirBuilder struct {
	p         *prepared
	f         *fhirEntry
	idx       *fhir.Index
	patients  []*fhir.Patient
	mrnSystem string
	raw       json.RawMessage
}

func (b *fhirBuilder) path(member string) string {
	return "Bundle.entry[" + strconv.Itoa(b.f.index) + "].resource." + member
}

func (b *fhirBuilder) refuse(status int, code, expression, reason string) {
	b.f.status, b.f.issueCode, b.f.expression = status, code, expression
	b.p.reject = reason
}

func (b *fhirBuilder) decode(v any) bool {
	if err := json.Unmarshal(b.raw, v); err != nil {
		b.refuse(400, "structure", "Bundle.entry["+strconv.Itoa(b.f.index)+"].resource",
			"the "+b.f.resourceType+" cannot be read: "+err.Error())
		return false
	}
	return true
}

// patient fills the ADT's PID from a Patient resource.
func (b *fhirBuilder) patient(pt *fhir.Patient) {
	if pt == nil {
		var x fhir.Patient
		if !b.decode(&x) {
			return
		}
		pt = &x
	}
	a := b.p.adt
	mrn, source, authority := patientMRN(pt, b.mrnSystem)
	if mrn == "" {
		b.refuse(422, "required", b.path("identifier"), "the Patient has no identifier to use as the MRN")
		return
	}
	a.Patient.MRN, a.Patient.MRNSource, a.Patient.MRNAuthority = mrn, source, authority
	a.Patient.Name = officialName(pt.Name)
	if t, ok := parseFHIRTime(pt.BirthDate); ok {
		a.Patient.BirthDate = t
	} else if pt.BirthDate != "" {
		b.p.warnings = append(b.p.warnings, "birthDate "+clipText(pt.BirthDate)+" is not a FHIR date; not used")
	}
	switch pt.Gender {
	case "male":
		a.Patient.Sex = "M"
	case "female":
		a.Patient.Sex = "F"
	case "other":
		a.Patient.Sex = "O"
	case "unknown":
		a.Patient.Sex = "U"
	}
	b.p.action = hl7.ActionUpdate
	b.checkLengths()
}

// patientMRN picks the MRN: the identifier of the organization's MRN system, else the one typed
// MR, else the first with a value (then untyped, as PID-3's first identifier).
func patientMRN(pt *fhir.Patient, system string) (string, hl7.MRNSource, string) {
	if system != "" {
		for _, id := range pt.Identifier {
			if id.System == system && strings.TrimSpace(id.Value) != "" {
				return strings.TrimSpace(id.Value), hl7.MRNSourcePID3MR, id.System
			}
		}
	}
	for _, id := range pt.Identifier {
		if (fhir.Has(id.Type, "MR") || fhir.Has(id.Type, "MRN")) && strings.TrimSpace(id.Value) != "" {
			return strings.TrimSpace(id.Value), hl7.MRNSourcePID3MR, id.System
		}
	}
	for _, id := range pt.Identifier {
		if strings.TrimSpace(id.Value) != "" {
			return strings.TrimSpace(id.Value), hl7.MRNSourcePID3First, id.System
		}
	}
	return "", hl7.MRNSourceNone, ""
}

// officialName is the official name, else the usual one, else the first.
func officialName(names []fhir.HumanName) hl7.PersonName {
	var pick *fhir.HumanName
	for _, use := range []string{"official", "usual", ""} {
		for i := range names {
			if names[i].Use == use || (use == "" && pick == nil) {
				if names[i].Family != "" || len(names[i].Given) > 0 {
					pick = &names[i]
					break
				}
			}
		}
		if pick != nil {
			break
		}
	}
	if pick == nil {
		return hl7.PersonName{}
	}
	n := hl7.PersonName{Family: strings.TrimSpace(pick.Family)}
	if len(pick.Given) > 0 {
		n.Given = strings.TrimSpace(pick.Given[0])
	}
	if len(pick.Given) > 1 {
		n.Middle = strings.TrimSpace(strings.Join(pick.Given[1:], " "))
	}
	return n
}

// subject resolves the patient an entry is about and sets the ADT's MRN. It reports false when
// the entry was refused.
func (b *fhirBuilder) subject(member string, r *fhir.Reference) bool {
	t, err := b.idx.Resolve(fhirPatient, r)
	if err != nil {
		code := "not-found"
		if r == nil || (r.Reference == "" && r.Identifier == nil) {
			code = "required"
		}
		b.refuse(400, code, b.path(member), member+": "+err.Error())
		return false
	}
	a := b.p.adt
	if t.Entry < 0 {
		a.Patient.MRN, a.Patient.MRNSource, a.Patient.MRNAuthority = strings.TrimSpace(t.Identifier), hl7.MRNSourcePID3MR, t.System
	} else {
		pt := b.patients[t.Entry]
		if pt == nil {
			b.refuse(400, "invalid", b.path(member), member+": the entry it refers to is not a Patient")
			return false
		}
		a.Patient.MRN, a.Patient.MRNSource, a.Patient.MRNAuthority = patientMRN(pt, b.mrnSystem)
		if a.Patient.MRN == "" {
			b.refuse(422, "required", b.path(member), member+": the Patient it refers to has no identifier to use as the MRN")
			return false
		}
	}
	return true
}

// inpatientClasses are the v3 ActCode encounter classes of a stay in a bed.
var inpatientClasses = map[string]bool{"IMP": true, "ACUTE": true, "NONAC": true, "inpatient": true}

func (b *fhirBuilder) encounter() {
	var enc fhir.Encounter
	if !b.decode(&enc) || !b.subject("subject", enc.Subject) {
		return
	}
	a := b.p.adt
	for _, id := range enc.Identifier {
		if v := strings.TrimSpace(id.Value); v != "" {
			a.Visit.VisitNumber = v
			break
		}
	}
	if enc.Class != nil && enc.Class.Code != "" && !inpatientClasses[enc.Class.Code] {
		b.f.ignore = "encounter class " + clipText(enc.Class.Code) + " is not an inpatient stay; the census holds inpatients only"
		return
	}
	a.Visit.Class = "I"
	if enc.Period != nil {
		if t, ok := parseFHIRTime(enc.Period.Start); ok {
			a.Visit.AdmitTime = t
		}
		if t, ok := parseFHIRTime(enc.Period.End); ok {
			a.Visit.DischargeTime = t
		}
	}
	for _, l := range enc.Location {
		if l.Status == "completed" || l.Status == "planned" {
			continue
		}
		a.Visit.Location = locationOf(&l.Location)
		break
	}
	switch enc.Status {
	case "in-progress", "arrived":
		b.p.action = hl7.ActionAdmit // admit, transfer or update: decided against the census
	case "finished", "cancelled":
		b.p.action = hl7.ActionDischarge
	case "":
		b.refuse(400, "required", b.path("status"), "the Encounter has no status")
		return
	default:
		b.f.ignore = "encounter status " + clipText(enc.Status) + " does not change the census"
		return
	}
	b.f.encStatus = enc.Status
	b.checkLengths()
}

// locationOf reads unit, room and bed from a Location reference: its identifier's value, else its
// display, as UNIT^ROOM^BED (PV1-3's form) or as words "UNIT ROOM-BED" / "UNIT ROOM BED".
func locationOf(r *fhir.Reference) hl7.Location {
	s := ""
	if r.Identifier != nil {
		s = strings.TrimSpace(r.Identifier.Value)
	}
	if s == "" {
		s = strings.TrimSpace(r.Display)
	}
	if s == "" {
		return hl7.Location{}
	}
	var parts []string
	if strings.Contains(s, "^") {
		parts = strings.Split(s, "^")
	} else {
		parts = strings.Fields(s)
		if len(parts) == 2 && strings.Contains(parts[1], "-") {
			room, bed, _ := strings.Cut(parts[1], "-")
			parts = []string{parts[0], room, bed}
		}
	}
	var l hl7.Location
	for i, v := range parts {
		v = strings.TrimSpace(v)
		switch i {
		case 0:
			l.PointOfCare = v
		case 1:
			l.Room = v
		case 2:
			l.Bed = v
		}
	}
	return l
}

// checkLengths refuses values beyond the census's bounds, as the HL7 parser does: never
// truncated, which could match the wrong patient.
func (b *fhirBuilder) checkLengths() {
	a := b.p.adt
	check := func(v string, max int, what string) bool {
		if n := utf8.RuneCountInString(v); n > max {
			b.refuse(422, "too-long", b.path(what), fmt.Sprintf("%s is %d characters long; at most %d are taken", what, n, max))
			return false
		}
		return true
	}
	_ = check(a.Patient.MRN, hl7.MaxMRNLength, "the MRN") &&
		check(a.Patient.Name.Family, hl7.MaxNameLength, "name.family") &&
		check(a.Patient.Name.Given, hl7.MaxNameLength, "name.given") &&
		check(a.Patient.Name.Middle, hl7.MaxNameLength, "name.given (middle names)") &&
		check(a.Visit.Location.PointOfCare, hl7.MaxLocationLength, "location unit") &&
		check(a.Visit.Location.Room, hl7.MaxLocationLength, "location room") &&
		check(a.Visit.Location.Bed, hl7.MaxLocationLength, "location bed") &&
		check(a.Visit.VisitNumber, hl7.MaxControlIDLength, "identifier (visit number)")
}
