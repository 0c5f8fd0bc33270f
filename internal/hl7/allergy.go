package hl7

// Allergy is one AL1 segment, as sent and as mapped.
type Allergy struct {
	TypeCode     string          // AL1-2 code as sent, e.g. FA, DA, MA, EA
	Category     AllergyCategory // AL1-2 normalised
	Allergen     CodedValue      // AL1-3 as sent
	SeverityCode string          // AL1-4 code as sent
	Severity     Severity        // AL1-4 normalised
	Reactions    []string        // AL1-5
	Match        AllergenMatch   // MapAllergen(Category, Allergen)
}

func (x *extractor) allergy(s *Segment, al *Allergy) bool {
	enc := &s.enc
	c := s.fields()
	var f [5]string // AL1-1 … AL1-5
	for i := range f {
		f[i] = c.part(i + 1)
	}

	al.Allergen = codedValue(firstRep(f[2], enc), enc)
	if al.Allergen.IsZero() {
		x.w.add("AL1 %s has no allergen (AL1-3); skipped", preview(firstText(f[0], enc)))
		return false
	}
	typ := compsOf(firstRep(f[1], enc), enc)
	al.TypeCode = typ.code(1)
	if al.Category = NormalizeAllergyCategory(al.TypeCode); al.Category == CategoryUnknown {
		al.Category = NormalizeAllergyCategory(typ.text(2))
	}
	sev := compsOf(firstRep(f[3], enc), enc)
	al.SeverityCode = sev.code(1)
	if al.Severity = NormalizeSeverity(al.SeverityCode); al.Severity == SeverityUnknown {
		al.Severity = NormalizeSeverity(sev.text(2))
	}
	// ST in the standard, but CE ("^Hives^LOCAL") in the wild.
	al.Reactions = x.texts(f[4], enc)
	al.Match = MapAllergen(al.Category, al.Allergen)
	return true
}
