package clinical

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/internal/hl7"
)

// The ingest works in two steps. prepare parses and extracts every message of the body without
// touching the database. Then, holding the census locks of the body's patients and control ids
// (locks.go), a census is loaded with the stored state of those patients, and apply runs each
// message against it in order, in memory, deciding its outcome and recording the rows to write.
// The rows are written together (see write.go), which is what makes a batch of a hundred
// messages a handful of statements.

// prepared is one message of a body, parsed and extracted.
type prepared struct {
	index     int
	raw       string
	typ       string // MSH-9 as CODE^EVENT
	controlID string
	sender    sender // MSH-3 and MSH-4: control ids are unique per sender
	reject    string // why the parser rejected the message; empty when it was not
	adt       *hl7.ADT
	action    hl7.Action
	warnings  []string
	fhir      *fhirEntry // set for an entry of a FHIR bundle (fhirprep.go), whose adt is built from it
}

func prepare(batch *hl7.Batch, adts *[]hl7.ADT) []prepared {
	out := make([]prepared, len(batch.Messages))
	if cap(*adts) < len(batch.Messages) {
		*adts = make([]hl7.ADT, len(batch.Messages))
	}
	*adts = (*adts)[:len(batch.Messages)]
	for i := range batch.Messages {
		m := &batch.Messages[i]
		p := &out[i]
		p.index, p.raw = i, m.Raw
		if m.Err != nil {
			p.typ, p.controlID = typeString(m.Type()), m.ControlID()
			p.sender.app, p.sender.facility = m.Sender()
			p.reject = rejection(m.Err)
			continue
		}
		a := &(*adts)[i]
		if err := m.ExtractADT(a); err != nil {
			// A value beyond its length bound: the header is read, the message goes no further.
			p.typ, p.controlID = typeString(a.Type), a.ControlID
			p.sender = sender{a.SendingApplication, a.SendingFacility}
			p.reject = rejection(err)
			continue
		}
		p.adt, p.action = a, a.Action()
		p.typ, p.controlID = typeString(a.Type), a.ControlID
		p.sender = sender{a.SendingApplication, a.SendingFacility}
		p.warnings = appendWarnings(m.Warnings, a.Warnings)
	}
	return out
}

// sender is who sent a message: MSH-3 and MSH-4 as the parser reads them.
type sender struct{ app, facility string }

// messageKey identifies a message for the duplicate check: a control id is unique only per
// sending application and facility.
type messageKey struct {
	sender
	controlID string
}

func (p *prepared) key() messageKey { return messageKey{p.sender, p.controlID} }

func rejection(err error) string {
	var me *hl7.MessageError
	if errors.As(err, &me) {
		return me.Reason
	}
	return "rejected by the parser"
}

func typeString(t hl7.MessageType) string {
	switch {
	case t.Code == "":
		return ""
	case t.Event == "":
		return t.Code
	}
	return t.Code + "^" + t.Event
}

func appendWarnings(a, b []string) []string {
	if len(a)+len(b) == 0 {
		return nil
	}
	out := make([]string, 0, len(a)+len(b))
	out = append(append(out, a...), b...)
	if len(out) > hl7.MaxWarnings {
		out = out[:hl7.MaxWarnings]
	}
	return out
}

// mrn returns the message's MRN when it comes from PID-3 (the spec skips messages without one;
// the parser's PID-2 fallback is reported, not used).
func (p *prepared) mrn() (string, string) {
	pt := &p.adt.Patient
	switch pt.MRNSource {
	case hl7.MRNSourcePID3MR, hl7.MRNSourcePID3First:
		return pt.MRN, ""
	case hl7.MRNSourcePID2:
		return "", fmt.Sprintf("no MRN in PID-3 (PID-2 holds %q, a withdrawn field that is not used)", pt.MRN)
	}
	return "", "no MRN in PID-3"
}

// Rows written by an ingest (see write.go).
type patientRow struct {
	ID           uuid.UUID
	MRN          string
	MRNSource    string
	MRNAuthority string
	FamilyName   string
	GivenName    string
	MiddleName   string
	BirthDate    string
	Sex          string
	EncounterID  *uuid.UUID
	Unit         string
	Room         string
	Bed          string
	AdmittedAt   *time.Time
}

type encounterRow struct {
	ID           uuid.UUID
	PatientID    uuid.UUID
	VisitNumber  string
	PatientClass string
	AdmittedAt   time.Time
	DischargedAt *time.Time
	Unit         string
	Room         string
	Bed          string
}

// trailRow is one message of the trail. Empty values are stored as NULL.
type trailRow struct {
	ID          uuid.UUID
	BatchIndex  int
	Sender      sender
	ControlID   string
	MessageType string
	Outcome     string
	Action      string
	Reason      string
	MRN         string
	PatientID   uuid.UUID
	EncounterID uuid.UUID
	EventAt     time.Time
	Unit        string
	Room        string
	Bed         string
	Raw         string
}

// codeRow is one unmapped code of a batch; the fields are jsonb_to_recordset's columns.
type codeRow struct {
	Kind   string `json:"kind"`
	Code   string `json:"code"`
	Text   string `json:"text"`
	System string `json:"system"`
	N      int    `json:"n"`
}

type patientState struct {
	row     patientRow
	touched bool
	// stored is the row as loaded (exists is false for a patient new to the census) and the
	// hashes of its stored documents, so that write skips what did not change.
	stored                    patientRow
	exists                    bool
	allergiesHash, ordersHash int64
	// orders are the current diet orders, decoded from storedOrders when first needed (which
	// load fetches only for the patients of order messages). orderIDs are the ids of the
	// stored orders, which tell a new order from a restated one.
	orders       []dietOrderDoc
	storedOrders []byte
	orderIDs     string
	ordersSet    bool
	allergies    []allergyDoc
	allergiesSet bool
	// storedAllergies is the stored list, loaded only for the patients of FHIR entries that add
	// or remove one allergy (decoded by allergiesOf).
	storedAllergies []byte
	enc             *encounterState // the open encounter, nil when not in house
}

type encounterState struct {
	row     encounterRow
	touched bool
}

// census is the in-memory state of one ingest: the stored state of the body's patients as
// loaded, changed message by message, and the rows to write.
type census struct {
	loc      *time.Location
	now      time.Time
	maps     orgMappings
	consumed map[messageKey]bool
	patients map[string]*patientState // by MRN; absent means unknown at this site

	touched         []*patientState
	patientsWritten int // of touched, those that changed (set by queueWrites)
	encounters      []*encounterState
	trail           []trailRow
	codes           map[mappingKey]*codeRow
	codeOrder       []mappingKey
	// deferCodes leaves the code occurrences out of write, for writeCodes: their rows are
	// shared by every body of the organization, and are best locked just before the commit.
	deferCodes bool
	// unreadable lists the stored documents that could not be decoded, for the log; the
	// messages that needed them were rejected.
	unreadable []error
}

func newCensus(loc *time.Location, now time.Time, maps orgMappings) *census {
	return &census{
		loc: loc, now: now, maps: maps, consumed: map[messageKey]bool{},
		patients: map[string]*patientState{}, codes: map[mappingKey]*codeRow{},
	}
}

// Actions as reported (the API's Hl7Action).
const (
	actAdmitted    = "admitted"
	actTransferred = "transferred"
	actUpdated     = "updated"
	actDischarged  = "discharged"
	actDietOrdered = "diet_ordered"
)

// Outcomes (the API's Hl7Outcome).
const (
	outApplied   = "applied"
	outSkipped   = "skipped"
	outDuplicate = "duplicate"
	outRejected  = "rejected"
)

// step is what applying one message did, before it becomes a result and a trail row.
type step struct {
	outcome, action, reason string
	mrn                     string
	patient                 *patientState
	orderCreated            bool
	eventAt                 time.Time
	unmapped                []unmapped
	warnings                []string // beyond the parser's
}

// apply runs one message against the census and returns its result. The trail row is recorded
// whatever the outcome.
func (c *census) apply(p *prepared) api.Hl7MessageResult {
	s := c.step(p)
	res := api.Hl7MessageResult{Type: p.typ, Outcome: api.Hl7Outcome(s.outcome)}
	tr := trailRow{
		ID: uuid.Must(uuid.NewV7()), BatchIndex: p.index, Sender: p.sender, ControlID: p.controlID, MessageType: p.typ,
		Outcome: s.outcome, Raw: cleanRaw(p.raw),
	}
	d := &res.Detail
	if p.controlID != "" {
		d.ControlId = ptr(p.controlID)
	}
	if s.mrn != "" {
		d.Mrn, tr.MRN = ptr(s.mrn), s.mrn
	}
	if s.reason != "" {
		d.Reason, tr.Reason = ptr(s.reason), s.reason
	}
	if w := appendWarnings(p.warnings, s.warnings); len(w) > 0 {
		d.Warnings = &w
	}
	if s.outcome == outApplied {
		act := api.Hl7Action(s.action)
		d.Action, tr.Action = &act, s.action
		d.OrderCreated = ptr(s.orderCreated)
		ps := s.patient
		d.PatientId, tr.PatientID = ptr(ps.row.ID), ps.row.ID
		if ps.enc != nil {
			d.EncounterId = ptr(ps.enc.row.ID)
		}
		tr.EventAt = s.eventAt
		if e := ps.enc; e != nil || s.action == actDischarged {
			if e == nil { // discharged: the location the patient left
				e = c.lastEncounterOf(ps)
			}
			if e != nil {
				tr.EncounterID = e.row.ID
				tr.Unit, tr.Room, tr.Bed = e.row.Unit, e.row.Room, e.row.Bed
			}
		}
	}
	if len(s.unmapped) > 0 {
		refs := make([]api.CodeRef, 0, len(s.unmapped))
		for _, u := range s.unmapped {
			refs = append(refs, api.CodeRef{Kind: api.CodeKind(u.kind), Code: u.key, Text: u.text})
		}
		d.UnmappedCodes = &refs
	}
	if (s.outcome == outApplied || s.outcome == outSkipped) && p.controlID != "" {
		c.consumed[p.key()] = true
	}
	c.trail = append(c.trail, tr)
	return res
}

func (c *census) step(p *prepared) step {
	switch {
	case p.reject != "":
		return step{outcome: outRejected, reason: p.reject}
	case p.fhir != nil:
		return c.fhirStep(p)
	case p.controlID != "" && c.consumed[p.key()]:
		return step{outcome: outDuplicate, reason: fmt.Sprintf("control id %s from this sending application and facility was already processed", p.controlID)}
	case p.action == hl7.ActionUnsupported:
		reason := "unsupported message type " + p.typ
		if p.typ == "" {
			reason = "unsupported message: MSH-9 has no message type"
		} else if p.adt.Type.Code == "ORM" || p.adt.Type.Code == "OMD" {
			reason = p.typ + " without a diet order (ODS segment) is not supported"
		}
		return step{outcome: outSkipped, reason: reason}
	}
	mrn, why := p.mrn()
	if mrn == "" {
		return step{outcome: outSkipped, reason: why}
	}
	s := step{outcome: outApplied, mrn: mrn}
	a := p.adt
	switch p.action {
	case hl7.ActionAdmit:
		s.action = actAdmitted
		c.admit(p, &s)
	case hl7.ActionTransfer:
		s.action = actTransferred
		if isZeroLocation(a.Visit.Location) {
			return step{outcome: outSkipped, mrn: mrn, reason: "transfer without a new location in PV1-3"}
		}
		c.transfer(p, &s)
	case hl7.ActionUpdate:
		s.action = actUpdated
		c.update(p, &s)
	case hl7.ActionDischarge:
		ps := c.patients[mrn]
		if ps == nil {
			return step{outcome: outSkipped, mrn: mrn, reason: "discharge for unknown MRN " + mrn}
		}
		if ps.enc == nil {
			return step{outcome: outSkipped, mrn: mrn, reason: "patient with MRN " + mrn + " is not in house"}
		}
		s.action = actDischarged
		c.discharge(p, ps, &s)
	case hl7.ActionDietOrder:
		s.action = actDietOrdered
		ps := c.patient(p, mrn)
		if _, err := c.ordersOf(ps); err != nil {
			c.unreadable = append(c.unreadable, err)
			return step{outcome: outRejected, mrn: mrn, reason: "the patient's stored diet orders cannot be read, so this order " +
				"cannot be applied to them (the server logged the cause under this request's id)"}
		}
		c.demographics(ps, a)
		s.patient = ps
		s.eventAt = p.time(c, a.EventOccurred, a.RecordedTime, a.MessageTime)
		s.orderCreated = c.orderDiets(p, ps, &s)
	}
	c.touch(s.patient)
	c.countCodes(s.unmapped)
	return s
}

func (c *census) admit(p *prepared, s *step) {
	a := p.adt
	ps := c.patient(p, s.mrn)
	c.demographics(ps, a)
	s.patient = ps
	at := p.time(c, a.Visit.AdmitTime, a.EventOccurred, a.RecordedTime, a.MessageTime)
	s.eventAt = at
	if e := ps.enc; e != nil && e.row.VisitNumber != "" && a.Visit.VisitNumber != "" && e.row.VisitNumber != a.Visit.VisitNumber {
		// A new visit while the previous one is still open: the discharge never came.
		c.closeEncounter(ps, at)
		s.warnings = append(s.warnings, fmt.Sprintf("visit %s was still open and is closed by this admission", e.row.VisitNumber))
	}
	if ps.enc == nil {
		c.openEncounter(ps, at)
	}
	e := ps.enc
	if !e.row.AdmittedAt.Equal(at) {
		e.row.AdmittedAt = at
		c.touchEncounter(e)
	}
	ps.row.AdmittedAt = ptr(at)
	c.visit(ps, a)
	if isZeroLocation(a.Visit.Location) {
		s.warnings = append(s.warnings, "no location in PV1-3")
	} else {
		c.move(ps, a.Visit.Location)
	}
	c.allergies(ps, a, s)
	s.orderCreated = c.adtDiets(p, ps, s)
}

func (c *census) transfer(p *prepared, s *step) {
	a := p.adt
	ps := c.patient(p, s.mrn)
	c.demographics(ps, a)
	s.patient = ps
	at := p.time(c, a.EventOccurred, a.RecordedTime, a.MessageTime)
	s.eventAt = at
	if ps.enc == nil {
		admitted := p.time(c, a.Visit.AdmitTime, a.EventOccurred, a.RecordedTime, a.MessageTime)
		c.openEncounter(ps, admitted)
		ps.row.AdmittedAt = ptr(admitted)
		s.warnings = append(s.warnings, "no admission on record: admitted at the new location")
	}
	c.visit(ps, a)
	c.move(ps, a.Visit.Location)
	c.allergies(ps, a, s)
	s.orderCreated = c.adtDiets(p, ps, s)
}

func (c *census) update(p *prepared, s *step) {
	a := p.adt
	ps := c.patient(p, s.mrn)
	c.demographics(ps, a)
	s.patient = ps
	s.eventAt = p.time(c, a.EventOccurred, a.RecordedTime, a.MessageTime)
	if ps.enc == nil && !ps.exists && admitsOnUpdate(&a.Visit) {
		// An update upserts the location too: an inpatient the census has never seen (the feed
		// started mid-stay, or the admission was lost) is admitted where PV1-3 says. A patient
		// already known and not in house is not: late corrections of a finished stay are common,
		// and a ghost in the census is worse than a missing patient the next A01/A02 brings in.
		admitted := p.time(c, a.Visit.AdmitTime, a.EventOccurred, a.RecordedTime, a.MessageTime)
		c.openEncounter(ps, admitted)
		ps.row.AdmittedAt = ptr(admitted)
		s.warnings = append(s.warnings, "no admission on record: admitted at the location in PV1-3")
	}
	if ps.enc != nil {
		c.visit(ps, a)
		if !isZeroLocation(a.Visit.Location) {
			c.move(ps, a.Visit.Location)
		}
	}
	c.allergies(ps, a, s)
	s.orderCreated = c.adtDiets(p, ps, s)
}

func (c *census) discharge(p *prepared, ps *patientState, s *step) {
	a := p.adt
	c.demographics(ps, a)
	s.patient = ps
	at := p.time(c, a.Visit.DischargeTime, a.EventOccurred, a.RecordedTime, a.MessageTime)
	s.eventAt = at
	c.allergies(ps, a, s)
	c.closeEncounter(ps, at)
	// Diet orders belong to the stay.
	ps.orders, ps.ordersSet = []dietOrderDoc{}, true
}

// time returns the first timestamp sent, read in the site's time zone when it has no offset,
// else the time the message was received.
func (p *prepared) time(c *census, ts ...hl7.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t.In(c.loc).UTC()
		}
	}
	return c.now
}

// dateString renders a birth date at the precision it was sent.
func dateString(t hl7.Time) string {
	w := t.Time
	if t.HasZone { // the sender's own calendar date
		w = w.Add(time.Duration(t.ZoneOffset) * time.Second)
	}
	switch {
	case t.IsZero():
		return ""
	case t.Precision == hl7.PrecisionYear:
		return fmt.Sprintf("%04d", w.Year())
	case t.Precision == hl7.PrecisionMonth:
		return fmt.Sprintf("%04d-%02d", w.Year(), int(w.Month()))
	}
	return fmt.Sprintf("%04d-%02d-%02d", w.Year(), int(w.Month()), w.Day())
}

// cleanRaw makes the raw text storable: PostgreSQL text cannot hold NUL.
func cleanRaw(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		return strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return s
}

func ptr[T any](v T) *T { return &v }

// admitsOnUpdate reports whether an A08 describes a current inpatient stay: a location in PV1-3,
// no discharge time (PV1-45), and an inpatient class (PV1-2 I, or none sent). Outpatient and
// emergency registrations are updated too, but never enter the census.
func admitsOnUpdate(v *hl7.Visit) bool {
	return !isZeroLocation(v.Location) && v.DischargeTime.IsZero() && (v.Class == "" || strings.EqualFold(v.Class, "I"))
}
