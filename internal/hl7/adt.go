package hl7

import (
	"fmt"
	"unicode/utf8"
)

// ADT is what Sous needs from one message: census movement from ADT
// messages and diet orders from ORM^O01 / OMD^O03 (or ODS segments riding on
// an ADT message). It holds codes as sent plus normalised values, and no
// opinion on what the caller should do beyond Action.
type ADT struct {
	Type                 MessageType // MSH-9 (event from EVN-1 when MSH-9 has none)
	ControlID            string      // MSH-10
	MessageTime          Time        // MSH-7
	Version              string      // MSH-12, e.g. "2.5.1"
	ProcessingID         string      // MSH-11: P production, T training, D debugging
	SendingApplication   string      // MSH-3
	SendingFacility      string      // MSH-4
	ReceivingApplication string      // MSH-5
	ReceivingFacility    string      // MSH-6

	RecordedTime  Time // EVN-2
	EventOccurred Time // EVN-6; when the movement really happened, if sent

	Patient Patient
	Visit   Visit

	Allergies  []Allergy
	DietOrders []DietOrder
	Trays      []TrayInstruction

	// Warnings lists values that could not be read (an invalid date, a
	// missing patient identifier). Extraction carries on past them; the
	// caller decides whether they matter. At most MaxWarnings.
	Warnings []string

	buf adtBuffers // backing storage for the slices above in typical messages
}

// Action is what a message asks Sous to do.
type Action string

const (
	ActionAdmit       Action = "admit"      // ADT^A01
	ActionTransfer    Action = "transfer"   // ADT^A02
	ActionDischarge   Action = "discharge"  // ADT^A03
	ActionUpdate      Action = "update"     // ADT^A08
	ActionDietOrder   Action = "diet_order" // ORM^O01 or OMD^O03 carrying ODS
	ActionUnsupported Action = "unsupported"
)

// Action classifies the message. Every other ADT event (A04 registration,
// A05 pre-admit, A11 cancel admit, ...) and every order message without a
// diet segment is ActionUnsupported: parsed, but not for Sous to act on.
// ODS segments inside an A01/A02/A03/A08 do not change the action; they are
// in DietOrders for the caller to apply alongside it.
func (a *ADT) Action() Action {
	switch a.Type.Code {
	case "ADT":
		switch a.Type.Event {
		case "A01":
			return ActionAdmit
		case "A02":
			return ActionTransfer
		case "A03":
			return ActionDischarge
		case "A08":
			return ActionUpdate
		}
	case "ORM":
		if a.Type.Event == "O01" && len(a.DietOrders) > 0 {
			return ActionDietOrder
		}
	case "OMD":
		if a.Type.Event == "O03" && len(a.DietOrders) > 0 {
			return ActionDietOrder
		}
	}
	return ActionUnsupported
}

// Supported reports whether Action is anything but ActionUnsupported.
func (a *ADT) Supported() bool { return a.Action() != ActionUnsupported }

// CodedValue is the first triplet of a CE/CWE field: identifier, text and
// coding system.
type CodedValue struct {
	Code   string
	Text   string
	System string
}

// IsZero reports whether neither code nor text was sent.
func (c CodedValue) IsZero() bool { return c.Code == "" && c.Text == "" }

// ADT extracts the typed content of the message. It fails for a rejected
// message (returning m.Err, and no ADT) and for a message with a value longer
// than its bound (a *MessageError wrapping a *LimitError; the ADT is returned
// too, so the caller can still acknowledge it by control ID). Unreadable
// values become Warnings.
func (m *Message) ADT() (*ADT, error) {
	if m.Err != nil {
		return nil, m.Err
	}
	a := new(ADT)
	m.extract(a)
	return a, a.checkLengths(m)
}

// ExtractADT is ADT writing into a, which is reset first: a consumer that
// handles one message at a time can reuse one ADT and allocate nothing for
// it. Everything in a, slices included, is overwritten by the next call, so
// keep a value beyond it only by copying. It fails for a rejected message,
// leaving a reset, and for a value longer than its bound, as ADT does, leaving
// a filled.
func (m *Message) ExtractADT(a *ADT) error {
	*a = ADT{Patient: Patient{MRNSource: MRNSourceNone}}
	if m.Err != nil {
		return m.Err
	}
	m.extract(a)
	return a.checkLengths(m)
}

func (m *Message) extract(a *ADT) {
	a.Patient.MRNSource = MRNSourceNone
	x := extractor{a: a}
	msh := m.Header()
	enc := &msh.enc
	f := msh.fields() // part n is MSH-(n+1); read in ascending order
	hf := func(n int) string { return f.part(n - 1) }

	a.SendingApplication = hdName(hf(3), enc)
	a.SendingFacility = hdName(hf(4), enc)
	a.ReceivingApplication = hdName(hf(5), enc)
	a.ReceivingFacility = hdName(hf(6), enc)
	a.MessageTime = x.ts(hf(7), enc, "MSH-7")
	typ := compsOf(firstRep(hf(9), enc), enc)
	a.Type = MessageType{Code: typ.code(1), Event: typ.code(2), Structure: typ.code(3)}
	a.ControlID = firstText(hf(10), enc)
	a.ProcessingID = firstCode(hf(11), enc)
	a.Version = firstText(hf(12), enc)
	if a.ControlID == "" {
		x.w.add("MSH-10 message control ID is empty")
	}

	var nAL1, nODS, nODT int
	for _, s := range m.Segments {
		switch s.ID() {
		case "AL1":
			nAL1++
		case "ODS":
			nODS++
		case "ODT":
			nODT++
		}
	}
	a.Allergies = carve(a.buf.allergies[:], &x.used.allergies, nAL1)
	a.DietOrders = carve(a.buf.dietOrders[:], &x.used.dietOrders, nODS)
	if nODT > 0 {
		a.Trays = make([]TrayInstruction, 0, nODT)
	}

	var seenEVN, seenPID, seenPV1 bool
	var order orderContext
	for i := range m.Segments {
		s := &m.Segments[i]
		switch s.ID() {
		case "EVN":
			if !seenEVN {
				seenEVN = true
				e := s.fields()
				if event := firstCode(e.part(1), &s.enc); a.Type.Event == "" {
					// Old senders put only "ADT" in MSH-9 and the event in EVN-1.
					a.Type.Event = event
				}
				a.RecordedTime = x.ts(e.part(2), &s.enc, "EVN-2")
				a.EventOccurred = x.ts(e.part(6), &s.enc, "EVN-6")
			}
		case "PID":
			if seenPID {
				x.w.add("more than one PID segment; using the first")
				continue
			}
			seenPID = true
			x.patient(s, &a.Patient)
		case "PV1":
			if !seenPV1 {
				seenPV1 = true
				x.visit(s, &a.Visit)
			}
		case "AL1":
			n := len(a.Allergies)
			a.Allergies = a.Allergies[:n+1]
			if !x.allergy(s, &a.Allergies[n]) {
				a.Allergies[n] = Allergy{}
				a.Allergies = a.Allergies[:n]
			}
		case "ORC":
			order = x.orderContext(s)
		case "TQ1":
			q := s.fields()
			order.start = x.ts(q.part(7), &s.enc, "TQ1-7")
		case "ODS":
			n := len(a.DietOrders)
			a.DietOrders = a.DietOrders[:n+1]
			x.dietOrder(s, &order, &a.DietOrders[n])
		case "ODT":
			a.Trays = append(a.Trays, x.tray(s, &order))
		}
	}
	if len(a.Allergies) == 0 {
		a.Allergies = nil
	}
	if len(a.DietOrders) == 0 {
		a.DietOrders = nil
	}
	if a.Type.Code == "ADT" {
		if !seenPID {
			x.w.add("no PID segment")
		} else if a.Patient.MRNSource == MRNSourceNone {
			x.w.add("no patient identifier in PID-3 or PID-2")
		}
	}
	a.Warnings = x.w.result()
}

// checkLengths rejects a message whose stored values exceed their bounds (see
// MaxControlIDLength and the others), naming the first such field.
func (a *ADT) checkLengths(m *Message) error {
	type bound struct {
		field string
		value string
		limit int
	}
	bounds := [...]bound{
		{"MSH-10 message control ID", a.ControlID, MaxControlIDLength},
		{"MSH-3 sending application", a.SendingApplication, MaxSenderLength},
		{"MSH-4 sending facility", a.SendingFacility, MaxSenderLength},
		{"PID-3 MRN", a.Patient.MRN, MaxMRNLength},
		{"PID-5 family name", a.Patient.Name.Family, MaxNameLength},
		{"PID-5 given name", a.Patient.Name.Given, MaxNameLength},
		{"PID-5 middle name", a.Patient.Name.Middle, MaxNameLength},
		{"PV1-3 point of care (unit)", a.Visit.Location.PointOfCare, MaxLocationLength},
		{"PV1-3 room", a.Visit.Location.Room, MaxLocationLength},
		{"PV1-3 bed", a.Visit.Location.Bed, MaxLocationLength},
	}
	for _, b := range bounds {
		// A value no longer in bytes than its limit in characters is within it: nearly all are.
		if len(b.value) <= b.limit {
			continue
		}
		if n := utf8.RuneCountInString(b.value); n > b.limit {
			return &MessageError{
				Index: m.Index, Offset: m.Offset,
				Reason: fmt.Sprintf("%s is %d characters long; at most %d are accepted", b.field, n, b.limit),
				Err:    &LimitError{What: "characters in " + b.field, Limit: b.limit},
			}
		}
	}
	return nil
}
