package clinical

import (
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/hl7"
)

// allergies replaces the patient's allergy list when the message carries AL1 segments.
func (c *census) allergies(ps *patientState, a *hl7.ADT, s *step) {
	if len(a.Allergies) == 0 {
		return
	}
	list := make([]allergyDoc, 0, len(a.Allergies))
	for i := range a.Allergies {
		d, u := allergyFrom(&a.Allergies[i], c.maps)
		list = append(list, d)
		if u != nil {
			s.unmapped = appendUnmapped(s.unmapped, *u)
		}
	}
	ps.allergies, ps.allergiesSet = list, true
}

// adtDiets replaces the patient's diet orders with the ODS segments of an ADT message, which
// state the current diet. It reports whether an order is new.
func (c *census) adtDiets(p *prepared, ps *patientState, s *step) bool {
	if len(p.adt.DietOrders) == 0 {
		return false
	}
	next := make([]dietOrderDoc, 0, len(p.adt.DietOrders))
	created := false
	for i := range p.adt.DietOrders {
		d, isNew := c.dietOrder(p, ps, &p.adt.DietOrders[i], "adt", nil, s)
		created = created || isNew
		next = append(next, d)
	}
	ps.orders, ps.ordersSet = next, true
	return created
}

// Order control codes (HL7 table 0119) that end an order.
var endingControls = []string{"CA", "DC", "OC", "OD", "DR", "CR", "OR"}

// orderDiets applies the orders of an ORM^O01 / OMD^O03: each ORC group either ends the orders
// with its placer number, or (new, change, replace, …) supersedes them; a new diet (ODS-1 D)
// also supersedes the current diet, since a patient has one diet at a time, while supplements
// and preferences add up.
func (c *census) orderDiets(p *prepared, ps *patientState, s *step) bool {
	prev, _ := c.ordersOf(ps) // read by step, which rejects the message when it cannot be
	cur := slices.Clone(prev)
	created := false
	orders := p.adt.DietOrders
	for i := 0; i < len(orders); {
		j := i + 1
		for j < len(orders) && orders[j].OrderControl == orders[i].OrderControl && orders[j].PlacerOrderNumber == orders[i].PlacerOrderNumber {
			j++
		}
		group := orders[i:j]
		control, placer := group[0].OrderControl, group[0].PlacerOrderNumber
		docs := make([]dietOrderDoc, 0, len(group))
		for k := range group {
			d, isNew := c.dietOrder(p, ps, &group[k], "order", prev, s)
			docs = append(docs, d)
			if !slices.Contains(endingControls, control) {
				created = created || isNew
			}
		}
		if slices.Contains(endingControls, control) {
			cur = slices.DeleteFunc(cur, func(o dietOrderDoc) bool {
				if placer != "" {
					return o.Placer == placer
				}
				return slices.ContainsFunc(docs, func(d dietOrderDoc) bool { return d.ID == o.ID })
			})
		} else {
			newDiet := slices.ContainsFunc(docs, func(d dietOrderDoc) bool { return d.Type == string(hl7.DietOrderDiet) })
			cur = slices.DeleteFunc(cur, func(o dietOrderDoc) bool {
				return (placer != "" && o.Placer == placer) || (newDiet && o.Type == string(hl7.DietOrderDiet)) ||
					slices.ContainsFunc(docs, func(d dietOrderDoc) bool { return d.ID == o.ID })
			})
			cur = append(cur, docs...)
		}
		i = j
	}
	ps.orders, ps.ordersSet = cur, true
	return created
}

// dietOrder builds the stored form of one ODS. Its id is derived from the patient and what the
// order says (its source, placer number, type and codes), so the same order sent again keeps its id, and the sign-offs referring
// to it, without reading the stored orders; prev, when given, keeps the received time of an order
// that is restated. isNew reports that the patient had no such order.
func (c *census) dietOrder(p *prepared, ps *patientState, o *hl7.DietOrder, source string, prev []dietOrderDoc, s *step) (dietOrderDoc, bool) {
	d := dietOrderDoc{
		Type: string(o.Type), Codes: make([]dietCodeDoc, 0, len(o.Codes)), Instructions: cloneStrings(o.Instructions),
		Placer: o.PlacerOrderNumber, Source: source, OrderedAt: c.now,
	}
	if d.Instructions == nil {
		d.Instructions = []string{}
	}
	d.ServicePeriods = make([]string, 0, len(o.ServicePeriods))
	for _, sp := range o.ServicePeriods {
		v := sp.Code
		if v == "" {
			v = sp.Text
		}
		d.ServicePeriods = append(d.ServicePeriods, v)
	}
	if !o.StartTime.IsZero() {
		d.StartAt = ptr(o.StartTime.In(c.loc).UTC())
	}
	keys := make([]string, 0, len(o.Codes))
	for i := range o.Codes {
		cd, u := dietCodeFrom(&o.Codes[i], c.maps)
		d.Codes = append(d.Codes, cd)
		keys = append(keys, cd.Key)
		if u != nil {
			s.unmapped = appendUnmapped(s.unmapped, *u)
		}
	}
	ident := source + "|" + d.Placer + "|" + d.Type + "|" + strings.Join(keys, "\x1f")
	d.ID = uuid.NewSHA1(ps.row.ID, []byte(ident))
	for _, old := range prev {
		if old.ID == d.ID {
			d.OrderedAt = old.OrderedAt
			return d, false
		}
	}
	return d, !ps.hadOrder(d.ID)
}

func appendUnmapped(list []unmapped, u unmapped) []unmapped {
	for _, x := range list {
		if x.kind == u.kind && x.key == u.key {
			return list
		}
	}
	return append(list, u)
}

// countCodes adds a message's unmapped codes to the batch's occurrences.
func (c *census) countCodes(list []unmapped) {
	for _, u := range list {
		k := mappingKey{u.kind, u.key}
		r := c.codes[k]
		if r == nil {
			r = &codeRow{Kind: u.kind, Code: u.key}
			c.codes[k] = r
			c.codeOrder = append(c.codeOrder, k)
		}
		r.Text, r.System = u.text, u.system
		r.N++
	}
}
