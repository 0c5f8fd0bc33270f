package clinical

import (
	"github.com/sous-app/sous/internal/fhir"
	"github.com/sous-app/sous/internal/hl7"
)

// allergyIntolerance adds, replaces or removes one allergy of the patient (AL1 as one entry).
func (b *fhirBuilder) allergyIntolerance() {
	var ai fhir.AllergyIntolerance
	if !b.decode(&ai) || !b.subject("patient", ai.Patient) {
		return
	}
	b.checkLengths()
	if b.p.reject != "" {
		return
	}
	switch v := fhir.StatusCode(ai.VerificationStatus); v {
	case "refuted", "entered-in-error":
		b.f.ignore = "verificationStatus " + v + ": the allergy is ignored"
		return
	}
	code := fhir.Pick(ai.Code)
	if code.Code == "" && code.Text == "" {
		b.refuse(422, "required", b.path("code"), "the AllergyIntolerance has no code or text")
		return
	}
	ch := &fhirAllergyChange{}
	al := &ch.allergy
	al.Allergen = hl7.CodedValue{Code: code.Code, Text: code.Text, System: code.System}
	al.Category = hl7.CategoryUnknown
	if len(ai.Category) > 0 {
		al.TypeCode = ai.Category[0]
		switch ai.Category[0] {
		case "food":
			al.Category = hl7.CategoryFood
		case "medication":
			al.Category = hl7.CategoryDrug
		case "environment":
			al.Category = hl7.CategoryEnvironmental
		case "biologic":
			al.Category = hl7.CategoryMisc
		}
	}
	al.Severity = hl7.SeverityUnknown
	for _, r := range ai.Reaction {
		sev := hl7.NormalizeSeverity(r.Severity)
		if severityRank(sev) > severityRank(al.Severity) {
			al.Severity, al.SeverityCode = sev, r.Severity
		}
		for _, m := range r.Manifestation {
			if w := fhir.Words(&m); w != "" && len(al.Reactions) < 10 {
				al.Reactions = append(al.Reactions, w)
			}
		}
	}
	if al.Severity == hl7.SeverityUnknown && ai.Criticality == "high" {
		// No reaction severity sent: a high criticality (a risk of a life-threatening
		// reaction) is shown as severe, so the tray line treats it as such.
		al.Severity = hl7.SeveritySevere
	}
	if food, ok := fhir.NoKnownAllergy[code.Code]; ok && code.System == fhir.SNOMED {
		ch.noneKnown = true
		if food {
			al.Match = hl7.AllergenMatch{Status: hl7.StatusNoneKnown, By: hl7.MatchedByCode}
		} else {
			al.Match = hl7.AllergenMatch{Status: hl7.StatusNotApplicable, By: hl7.MatchedByCode}
		}
	} else {
		al.Match = mapFHIRAllergen(al.Category, code)
	}
	switch c := fhir.StatusCode(ai.ClinicalStatus); c {
	case "inactive", "resolved":
		ch.remove = true
	}
	b.f.allergy = ch
}

func severityRank(s hl7.Severity) int {
	switch s {
	case hl7.SeveritySevere:
		return 3
	case hl7.SeverityModerate:
		return 2
	case hl7.SeverityMild:
		return 1
	}
	return 0
}

// mapFHIRAllergen maps a coded allergen: the code alone first (a standard code is precise where
// words such as "nuts" are broad), else the concept's text, else the coding's display.
func mapFHIRAllergen(cat hl7.AllergyCategory, code fhir.Code) hl7.AllergenMatch {
	if cat == hl7.CategoryDrug {
		return hl7.MapAllergen(cat, hl7.CodedValue{})
	}
	if code.Code != "" {
		if m := hl7.MapAllergen(cat, hl7.CodedValue{Code: code.Code}); m.Status == hl7.StatusMapped || m.Status == hl7.StatusNoneKnown {
			return m
		}
	}
	m := hl7.MapAllergen(cat, hl7.CodedValue{Text: code.Text})
	if m.Status == hl7.StatusUnmapped && code.Display != "" && code.Display != code.Text {
		if d := hl7.MapAllergen(cat, hl7.CodedValue{Text: code.Display}); d.Status != hl7.StatusUnmapped {
			return d
		}
	}
	return m
}
