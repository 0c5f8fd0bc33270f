package clinical

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sous-app/sous/internal/fhir"
	"github.com/sous-app/sous/internal/hl7"
)

// mapFHIRDiet maps a coded diet, texture or consistency: a SNOMED CT concept of the FHIR value
// sets by its code, else the concept's text, else the coding's display, as HL7 diet codes are read.
func mapFHIRDiet(code fhir.Code) hl7.DietCode {
	cv := hl7.CodedValue{Code: code.Code, Text: code.Text, System: code.System}
	if code.System == fhir.SNOMED {
		if ds, ok := fhir.SNOMEDDiets[code.Code]; ok {
			m := hl7.DietMatch{Status: hl7.StatusMapped, By: hl7.MatchedByCode}
			for _, d := range ds {
				m.Diets = append(m.Diets, hl7.Diet(d))
			}
			return hl7.DietCode{Code: cv, Match: m}
		}
	}
	// The code is read as words only when it is one (a local mnemonic, or the FHIR diet
	// preference codes such as dairy-free); SNOMED CT's are digits.
	m := hl7.MapDiet(hl7.CodedValue{Code: code.Code, Text: code.Text})
	if m.Status == hl7.StatusUnmapped && code.Display != "" && code.Display != code.Text {
		if d := hl7.MapDiet(hl7.CodedValue{Text: code.Display}); d.Status == hl7.StatusMapped {
			m = d
		}
	}
	return hl7.DietCode{Code: cv, Match: m}
}

func (b *fhirBuilder) nutritionOrder() {
	var no fhir.NutritionOrder
	if !b.decode(&no) || !b.subject("patient", no.Patient) {
		return
	}
	b.checkLengths()
	if b.p.reject != "" {
		return
	}
	o := &fhirOrder{placer: orderPlacer(&no, b.f)}
	if utf8.RuneCountInString(o.placer) > hl7.MaxControlIDLength {
		b.refuse(422, "too-long", b.path("identifier"), fmt.Sprintf("the order identifier is longer than %d characters", hl7.MaxControlIDLength))
		return
	}
	switch no.Status {
	case "active":
		o.status = "active"
	case "on-hold":
		o.status = "on-hold"
	case "completed", "revoked", "entered-in-error":
		o.end = true
	case "":
		b.refuse(400, "required", b.path("status"), "the NutritionOrder has no status")
		return
	default:
		b.f.ignore = "order status " + clipText(no.Status) + " does not change the census (only active, on-hold, completed, revoked and entered-in-error do)"
		return
	}
	b.p.action = hl7.ActionDietOrder
	b.f.order = o
	if t, ok := parseFHIRTime(no.DateTime); ok {
		b.p.adt.EventOccurred = t
	}
	if o.end {
		return
	}
	for _, cc := range no.ExcludeFoodModifier {
		if w := fhir.Words(&cc); w != "" {
			o.exclusions = append(o.exclusions, w)
		}
	}
	for _, r := range no.AllergyIntolerance {
		if _, err := b.idx.Resolve(fhirAllergy, &r); err == nil {
			continue // an entry of the bundle, applied as such
		}
		if d := strings.TrimSpace(r.Display); d != "" {
			o.allergyRefs = append(o.allergyRefs, hl7.CodedValue{Text: d})
		}
	}
	var prefs []hl7.DietCode
	for i := range no.FoodPreferenceModifier {
		if c := fhir.Pick(&no.FoodPreferenceModifier[i]); c.Code != "" || c.Text != "" {
			prefs = append(prefs, mapFHIRDiet(c))
		}
	}
	if od := no.OralDiet; od != nil {
		item := fhirOrderItem{typ: string(hl7.DietOrderDiet)}
		for i := range od.Type {
			if c := fhir.Pick(&od.Type[i]); c.Code != "" || c.Text != "" {
				item.codes = append(item.codes, mapFHIRDiet(c))
			}
		}
		for _, t := range od.Texture {
			if c := fhir.Pick(t.Modifier); c.Code != "" || c.Text != "" {
				item.codes = append(item.codes, mapFHIRDiet(c))
				line := "Texture: " + fhir.Words(t.Modifier)
				if ft := fhir.Words(t.FoodType); ft != "" {
					line += " (" + ft + ")"
				}
				item.instructions = append(item.instructions, line)
			}
		}
		for i := range od.FluidConsistencyType {
			if c := fhir.Pick(&od.FluidConsistencyType[i]); c.Code != "" || c.Text != "" {
				item.codes = append(item.codes, mapFHIRDiet(c))
				item.instructions = append(item.instructions, "Fluids: "+fhir.Words(&od.FluidConsistencyType[i]))
			}
		}
		for _, n := range od.Nutrient {
			name := fhir.Words(n.Modifier)
			if name == "" || n.Amount == nil || n.Amount.Value == nil {
				continue
			}
			unit := n.Amount.Unit
			if unit == "" {
				unit = n.Amount.Code
			}
			o.nutrients = append(o.nutrients, nutrientDoc{Nutrient: name, Amount: *n.Amount.Value, Unit: unit})
		}
		if s := strings.TrimSpace(od.Instruction); s != "" {
			item.instructions = append(item.instructions, s)
		}
		for _, sc := range od.Schedule {
			if sc.Repeat != nil && sc.Repeat.BoundsPeriod != nil {
				if t, ok := parseFHIRTime(sc.Repeat.BoundsPeriod.Start); ok {
					o.startAt = t
					break
				}
			}
		}
		o.docs = append(o.docs, item)
	}
	for _, s := range no.Supplement {
		item := fhirOrderItem{typ: string(hl7.DietOrderSupplement), product: strings.TrimSpace(s.ProductName)}
		if c := fhir.Pick(s.Type); c.Code != "" || c.Text != "" {
			item.codes = append(item.codes, mapFHIRDiet(c))
		}
		if s.Quantity != nil && s.Quantity.Value != nil {
			item.instructions = append(item.instructions, "Quantity: "+strconv.FormatFloat(*s.Quantity.Value, 'f', -1, 64)+" "+s.Quantity.Unit)
		}
		if in := strings.TrimSpace(s.Instruction); in != "" {
			item.instructions = append(item.instructions, in)
		}
		o.docs = append(o.docs, item)
	}
	if ef := no.EnteralFormula; ef != nil {
		item := fhirOrderItem{typ: "enteral", unmappable: true, product: strings.TrimSpace(ef.BaseFormulaProductName)}
		if c := fhir.Pick(ef.BaseFormulaType); c.Code != "" || c.Text != "" {
			item.codes = append(item.codes, hl7.DietCode{Code: hl7.CodedValue{Code: c.Code, Text: c.Text, System: c.System}})
		}
		if r := fhir.Words(ef.RouteOfAdministration); r != "" {
			item.instructions = append(item.instructions, "Route: "+r)
		}
		if q := ef.CaloricDensity; q != nil && q.Value != nil {
			item.instructions = append(item.instructions, "Caloric density: "+strconv.FormatFloat(*q.Value, 'f', -1, 64)+" "+q.Unit)
		}
		if a := strings.TrimSpace(ef.AdditiveProductName); a != "" {
			item.instructions = append(item.instructions, "Additive: "+a)
		}
		if q := ef.MaxVolumeToDeliver; q != nil && q.Value != nil {
			item.instructions = append(item.instructions, "Maximum volume: "+strconv.FormatFloat(*q.Value, 'f', -1, 64)+" "+q.Unit)
		}
		if s := strings.TrimSpace(ef.AdministrationInstruction); s != "" {
			item.instructions = append(item.instructions, s)
		}
		o.docs = append(o.docs, item)
	}
	if len(prefs) > 0 {
		o.docs = append(o.docs, fhirOrderItem{typ: string(hl7.DietOrderPreference), codes: prefs})
	}
	if len(o.docs) == 0 && len(o.allergyRefs) == 0 {
		b.refuse(422, "required", b.path("oralDiet"), "the NutritionOrder has no oral diet, supplement, enteral formula or food preference")
		b.f.order = nil
	}
}

// orderPlacer identifies an order across resends: its first identifier, else its id, else the
// entry's fullUrl.
func orderPlacer(no *fhir.NutritionOrder, f *fhirEntry) string {
	for _, id := range no.Identifier {
		if v := strings.TrimSpace(id.Value); v != "" {
			if id.System != "" {
				return id.System + "|" + v
			}
			return v
		}
	}
	if no.ID != "" {
		return "NutritionOrder/" + no.ID
	}
	return f.fullURL
}

// parseFHIRTime reads a FHIR date or dateTime (YYYY, YYYY-MM, YYYY-MM-DD, or a full time with
// an offset) as an HL7 timestamp, so that the census reads it as it reads HL7's.
func parseFHIRTime(s string) (hl7.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 40 {
		return hl7.Time{}, false
	}
	t := hl7.Time{Raw: s}
	for _, f := range []struct {
		layout string
		prec   hl7.Precision
	}{{"2006", hl7.PrecisionYear}, {"2006-01", hl7.PrecisionMonth}, {"2006-01-02", hl7.PrecisionDay}} {
		if v, err := time.Parse(f.layout, s); err == nil {
			t.Time, t.Precision = v, f.prec
			return t, true
		}
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return hl7.Time{}, false
	}
	_, off := v.Zone()
	t.Time, t.Precision, t.HasZone, t.ZoneOffset = v.UTC(), hl7.PrecisionSecond, true, off
	return t, true
}
