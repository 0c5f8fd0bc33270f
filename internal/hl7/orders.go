package hl7

// DietOrder is one ODS segment with the order it belongs to.
type DietOrder struct {
	Type           DietOrderType // ODS-1 normalised
	TypeCode       string        // ODS-1 as sent
	ServicePeriods []CodedValue  // ODS-2, meals the order applies to; empty means all
	Codes          []DietCode    // ODS-3
	Instructions   []string      // ODS-4 free text

	// From the preceding ORC (and TQ1); empty for ODS inside ADT messages.
	OrderControl      string // ORC-1: NW new, CA cancel, DC discontinue, XO change, ...
	PlacerOrderNumber string // ORC-2
	FillerOrderNumber string // ORC-3
	TransactionTime   Time   // ORC-9
	StartTime         Time   // TQ1-7, else ORC-7 (TQ) start
}

// DietCode is one ODS-3 code, as sent and as mapped.
type DietCode struct {
	Code  CodedValue
	Match DietMatch // MapDiet(Code)
}

// DietOrderType is ODS-1 (HL7 table 0159).
type DietOrderType string

const (
	DietOrderDiet       DietOrderType = "diet"       // D
	DietOrderSupplement DietOrderType = "supplement" // S
	DietOrderPreference DietOrderType = "preference" // P
	DietOrderUnknown    DietOrderType = "unknown"
)

// TrayInstruction is one ODT segment: early/late trays, guest trays and the
// like.
type TrayInstruction struct {
	Type           CodedValue   // ODT-1, e.g. EARLY, LATE, GUEST, NO
	ServicePeriods []CodedValue // ODT-2
	Text           string       // ODT-3
	OrderControl   string       // ORC-1 of the governing order, if any
}

// orderContext carries ORC (and TQ1) values to the ODS and ODT segments that
// follow them, which is how ORM and OMD group an order.
type orderContext struct {
	control, placer, filler string
	transaction, start      Time
}

func (x *extractor) orderContext(s *Segment) orderContext {
	enc := &s.enc
	c := s.fields()
	control, placer, filler := c.part(1), c.part(2), c.part(3)
	// ORC-7 is a TQ whose component 4 is the start; its DTM may itself carry
	// a precision subcomponent in v2.5.
	tq := compsOf(firstRep(c.part(7), enc), enc)
	start := value(nth(tq.raw(4), enc.SubComponent, 1), enc)
	st, err := ParseTime(start)
	if err != nil {
		x.w.add("ORC-7 start %q is not an HL7 timestamp", preview(start))
	}
	return orderContext{
		control:     firstCode(control, enc),
		placer:      firstText(placer, enc),
		filler:      firstText(filler, enc),
		transaction: x.ts(c.part(9), enc, "ORC-9"),
		start:       st,
	}
}

func (x *extractor) dietOrder(s *Segment, o *orderContext, d *DietOrder) {
	enc := &s.enc
	c := s.fields()
	f := [4]string{c.part(1), c.part(2), c.part(3), c.part(4)} // ODS-1 … ODS-4

	d.TypeCode = firstCode(f[0], enc)
	d.ServicePeriods = x.codedValues(f[1], enc)
	d.Instructions = x.texts(f[3], enc)
	d.OrderControl = o.control
	d.PlacerOrderNumber = o.placer
	d.FillerOrderNumber = o.filler
	d.TransactionTime = o.transaction
	d.StartTime = o.start
	switch d.TypeCode {
	case "D":
		d.Type = DietOrderDiet
	case "S":
		d.Type = DietOrderSupplement
	case "P":
		d.Type = DietOrderPreference
	default:
		d.Type = DietOrderUnknown
	}
	d.Codes = carve(x.a.buf.codes[:], &x.used.codes, countReps(f[2], enc))
	eachRep(f[2], enc, func(rep string) {
		if c := codedValue(rep, enc); !c.IsZero() {
			d.Codes = append(d.Codes, DietCode{Code: c, Match: MapDiet(c)})
		}
	})
	if len(d.Codes) == 0 {
		d.Codes = nil
		x.w.add("ODS has no diet, supplement or preference code (ODS-3)")
	}
}

func (x *extractor) tray(s *Segment, o *orderContext) TrayInstruction {
	enc := &s.enc
	c := s.fields()
	f := [3]string{c.part(1), c.part(2), c.part(3)} // ODT-1 … ODT-3
	return TrayInstruction{
		Type:           codedValue(firstRep(f[0], enc), enc),
		ServicePeriods: x.codedValues(f[1], enc),
		Text:           firstText(f[2], enc),
		OrderControl:   o.control,
	}
}
