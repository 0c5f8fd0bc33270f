package clinical

import (
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/hl7"
)

// fhirStep applies one FHIR entry to the census: Patient and Encounter through the same admit,
// transfer, update and discharge as HL7 ADT; AllergyIntolerance and NutritionOrder one allergy or
// order at a time.
func (c *census) fhirStep(p *prepared) step {
	f := p.fhir
	if f.ignore != "" {
		return step{outcome: outSkipped, reason: f.ignore}
	}
	mrn, why := p.mrn()
	if mrn == "" {
		return step{outcome: outSkipped, reason: why}
	}
	s := step{outcome: outApplied, mrn: mrn}
	known := c.patients[mrn]
	if f.resourceType != fhirPatient {
		keepIdentity(p, known)
	}
	switch f.resourceType {
	case fhirPatient:
		s.action = actUpdated
		c.update(p, &s)
	case fhirEncounter:
		a := p.adt
		switch {
		case p.action == hl7.ActionDischarge:
			if known == nil {
				return step{outcome: outSkipped, mrn: mrn, reason: "discharge for unknown MRN " + mrn}
			}
			if known.enc == nil {
				return step{outcome: outSkipped, mrn: mrn, reason: "patient with MRN " + mrn + " is not in house"}
			}
			s.action = actDischarged
			c.discharge(p, known, &s)
		case known == nil || known.enc == nil:
			s.action = actAdmitted
			c.admit(p, &s)
		case !isZeroLocation(a.Visit.Location) && !sameLocation(known.enc, a.Visit.Location):
			s.action = actTransferred
			c.transfer(p, &s)
		default:
			// In house where the encounter says: the visit is restated, its admission time kept.
			s.action = actUpdated
			c.update(p, &s)
		}
	case fhirAllergy:
		s.action = actUpdated
		ps := c.patient(p, mrn)
		list, err := c.allergiesOf(ps)
		if err != nil {
			c.unreadable = append(c.unreadable, err)
			return step{outcome: outRejected, mrn: mrn, reason: "the patient's stored allergies cannot be read, so this allergy " +
				"cannot be applied to them (the server logged the cause under this request's id)"}
		}
		c.demographics(ps, p.adt)
		s.patient, s.eventAt = ps, c.now
		ps.allergies, ps.allergiesSet = c.changeAllergy(list, f.allergy, &s), true
	case fhirNutrition:
		s.action = actDietOrdered
		ps := c.patient(p, mrn)
		if _, err := c.ordersOf(ps); err != nil {
			c.unreadable = append(c.unreadable, err)
			return step{outcome: outRejected, mrn: mrn, reason: "the patient's stored diet orders cannot be read, so this order " +
				"cannot be applied to them (the server logged the cause under this request's id)"}
		}
		if len(f.order.allergyRefs) > 0 {
			list, err := c.allergiesOf(ps)
			if err != nil {
				c.unreadable = append(c.unreadable, err)
				return step{outcome: outRejected, mrn: mrn, reason: "the patient's stored allergies cannot be read, so the order's " +
					"allergies cannot be applied to them (the server logged the cause under this request's id)"}
			}
			for _, ref := range f.order.allergyRefs {
				ch := &fhirAllergyChange{allergy: hl7.Allergy{Category: hl7.CategoryFood, Allergen: ref, Severity: hl7.SeverityUnknown,
					Match: hl7.MapAllergen(hl7.CategoryFood, ref)}}
				if !slices.ContainsFunc(list, func(d allergyDoc) bool { return d.Key == codeKey(ref) || sharesAllergen(d, ch) }) {
					list = c.changeAllergy(list, ch, &s)
				}
			}
			ps.allergies, ps.allergiesSet = list, true
		}
		c.demographics(ps, p.adt)
		s.patient = ps
		s.eventAt = p.time(c, p.adt.EventOccurred)
		s.orderCreated = c.fhirOrder(p, ps, &s)
	}
	f.created = s.orderCreated || (known == nil && s.patient != nil)
	c.touch(s.patient)
	c.countCodes(s.unmapped)
	return s
}

// keepIdentity keeps a known patient's MRN source and authority when an entry other than a
// Patient names them (by reference, which says nothing of how the MRN was typed).
func keepIdentity(p *prepared, ps *patientState) {
	if ps == nil {
		return
	}
	pt := &p.adt.Patient
	pt.MRNSource, pt.MRNAuthority = hl7.MRNSource(ps.row.MRNSource), ps.row.MRNAuthority
}

func sameLocation(e *encounterState, l hl7.Location) bool {
	return e.row.Unit == l.PointOfCare && e.row.Room == l.Room && e.row.Bed == l.Bed
}

func sharesAllergen(d allergyDoc, ch *fhirAllergyChange) bool {
	for _, a := range ch.allergy.Match.Allergens {
		if slices.Contains(d.Allergens, string(a)) {
			return true
		}
	}
	return false
}

// allergiesOf returns the patient's current allergies, decoding the stored ones on first use.
func (c *census) allergiesOf(ps *patientState) ([]allergyDoc, error) {
	if ps.allergiesSet {
		return ps.allergies, nil
	}
	list, err := decodeAllergies(ps.storedAllergies)
	if err != nil {
		return nil, err
	}
	if list == nil {
		list = []allergyDoc{}
	}
	ps.allergies, ps.allergiesSet, ps.storedAllergies = list, true, nil
	return list, nil
}

// changeAllergy adds (or replaces, by code) or removes one allergy. A real allergy replaces a
// "no known allergy" statement; such a statement is added only when no allergy is on record.
func (c *census) changeAllergy(list []allergyDoc, ch *fhirAllergyChange, s *step) []allergyDoc {
	d, u := allergyFrom(&ch.allergy, c.maps)
	out := slices.DeleteFunc(slices.Clone(list), func(x allergyDoc) bool { return x.Key == d.Key })
	if ch.remove {
		return out
	}
	if u != nil {
		s.unmapped = appendUnmapped(s.unmapped, *u)
	}
	if d.Status == string(hl7.StatusNoneKnown) {
		if slices.ContainsFunc(out, func(x allergyDoc) bool {
			return x.Status == string(hl7.StatusMapped) || x.Status == string(hl7.StatusUnmapped)
		}) {
			s.warnings = append(s.warnings, "a no-known-allergy statement was not recorded: the patient has allergies on record")
			return out
		}
	} else if d.Status == string(hl7.StatusMapped) || d.Status == string(hl7.StatusUnmapped) {
		out = slices.DeleteFunc(out, func(x allergyDoc) bool { return x.Status == string(hl7.StatusNoneKnown) })
	}
	return append(out, d)
}

// fhirOrder applies a NutritionOrder: it replaces the orders it sent before (by its placer),
// and a new oral diet replaces the patient's current diet, whatever sent it; supplements and
// enteral formulas add up. An ending status removes the order. It reports whether an order is new.
func (c *census) fhirOrder(p *prepared, ps *patientState, s *step) bool {
	o := p.fhir.order
	prev, _ := c.ordersOf(ps) // read by fhirStep, which rejects the entry when it cannot be
	cur := slices.DeleteFunc(slices.Clone(prev), func(d dietOrderDoc) bool { return d.Source == "fhir" && d.Placer == o.placer })
	if o.end {
		ps.orders, ps.ordersSet = cur, true
		return false
	}
	created := false
	docs := make([]dietOrderDoc, 0, len(o.docs))
	for k, item := range o.docs {
		d := dietOrderDoc{
			Type: item.typ, Codes: make([]dietCodeDoc, 0, len(item.codes)), Instructions: cloneStrings(item.instructions),
			ServicePeriods: []string{}, Placer: o.placer, Source: "fhir", OrderedAt: c.now, Product: item.product,
		}
		if o.status == "on-hold" {
			d.Status = o.status
		} else {
			d.Status = "active"
		}
		if d.Instructions == nil {
			d.Instructions = []string{}
		}
		if !o.startAt.IsZero() {
			d.StartAt = ptr(o.startAt.In(c.loc).UTC())
		}
		if k == 0 {
			d.Nutrients, d.Exclusions = o.nutrients, cloneStrings(o.exclusions)
			for _, n := range o.nutrients {
				d.Instructions = append(d.Instructions, "Limit "+n.Nutrient+": "+strconv.FormatFloat(n.Amount, 'f', -1, 64)+" "+n.Unit)
			}
			if len(o.exclusions) > 0 {
				d.Instructions = append(d.Instructions, "Exclude: "+strings.Join(o.exclusions, ", "))
			}
		}
		keys := make([]string, 0, len(item.codes))
		for i := range item.codes {
			var cd dietCodeDoc
			if item.unmappable {
				cv := item.codes[i].Code
				cd = dietCodeDoc{Key: codeKey(cv), Code: cv.Code, Text: cv.Text, System: cv.System,
					Status: string(hl7.StatusNotApplicable), Diets: []string{}}
			} else {
				var u *unmapped
				cd, u = dietCodeFrom(&item.codes[i], c.maps)
				if u != nil {
					s.unmapped = appendUnmapped(s.unmapped, *u)
				}
			}
			d.Codes = append(d.Codes, cd)
			keys = append(keys, cd.Key)
		}
		ident := "fhir|" + d.Placer + "|" + d.Type + "|" + strconv.Itoa(k) + "|" + strings.Join(keys, "\x1f")
		d.ID = uuid.NewSHA1(ps.row.ID, []byte(ident))
		isNew := true
		for _, old := range prev {
			if old.ID == d.ID {
				d.OrderedAt, isNew = old.OrderedAt, false
			}
		}
		created = created || (isNew && !ps.hadOrder(d.ID))
		docs = append(docs, d)
	}
	if slices.ContainsFunc(docs, func(d dietOrderDoc) bool { return d.Type == string(hl7.DietOrderDiet) }) {
		cur = slices.DeleteFunc(cur, func(d dietOrderDoc) bool { return d.Type == string(hl7.DietOrderDiet) })
	}
	ps.orders, ps.ordersSet = append(cur, docs...), true
	return created
}
