package clinical

import (
	"github.com/sous-app/sous/internal/hl7"
)

// Code kinds, as in clinical_codes.kind and the API's CodeKind.
const (
	kindAllergen = "allergen"
	kindDiet     = "diet"
)

type mappingKey struct{ kind, code string }

// orgMappings are the organization's own mappings of codes the vocabulary does not recognise:
// targets are allergens or diets; an empty list means reviewed, nothing for the kitchen.
type orgMappings map[mappingKey][]string

// unmapped is one code of a message that no vocabulary term matched.
type unmapped struct {
	kind, key, text, system string
}

// allergyFrom builds the stored form of an AL1 allergy, applying the organization's mapping when
// the vocabulary left it unmapped. The second result is set when the vocabulary did not
// recognise the allergen (whether or not the organization has mapped it since).
func allergyFrom(al *hl7.Allergy, maps orgMappings) (allergyDoc, *unmapped) {
	d := allergyDoc{
		Key: codeKey(al.Allergen), Category: string(al.Category), Code: al.Allergen.Code, Text: al.Allergen.Text,
		System: al.Allergen.System, Severity: string(al.Severity), Reactions: cloneStrings(al.Reactions),
		Status: string(al.Match.Status), Allergens: make([]string, 0, len(al.Match.Allergens)),
	}
	for _, a := range al.Match.Allergens {
		d.Allergens = append(d.Allergens, string(a))
	}
	if al.Match.Status == hl7.StatusMapped {
		d.MappedBy = byVocabulary
	}
	if al.Match.Status != hl7.StatusUnmapped {
		return d, nil
	}
	u := &unmapped{kind: kindAllergen, key: d.Key, text: al.Allergen.Text, system: al.Allergen.System}
	if targets, ok := maps[mappingKey{kindAllergen, d.Key}]; ok {
		applyAllergyMapping(&d, targets)
	}
	return d, u
}

func applyAllergyMapping(d *allergyDoc, targets []string) {
	d.Allergens = cloneStrings(targets)
	if d.Allergens == nil {
		d.Allergens = []string{}
	}
	d.Status = string(hl7.StatusNotApplicable)
	if len(targets) > 0 {
		d.Status = string(hl7.StatusMapped)
	}
	d.MappedBy = byOrganization
}

// dietCodeFrom is allergyFrom for one ODS-3 code.
func dietCodeFrom(c *hl7.DietCode, maps orgMappings) (dietCodeDoc, *unmapped) {
	d := dietCodeDoc{
		Key: codeKey(c.Code), Code: c.Code.Code, Text: c.Code.Text, System: c.Code.System,
		Status: string(c.Match.Status), Diets: make([]string, 0, len(c.Match.Diets)),
	}
	for _, x := range c.Match.Diets {
		d.Diets = append(d.Diets, string(x))
	}
	if c.Match.Status == hl7.StatusMapped {
		d.MappedBy = byVocabulary
	}
	if c.Match.Status != hl7.StatusUnmapped {
		return d, nil
	}
	u := &unmapped{kind: kindDiet, key: d.Key, text: c.Code.Text, system: c.Code.System}
	if targets, ok := maps[mappingKey{kindDiet, d.Key}]; ok {
		applyDietMapping(&d, targets)
	}
	return d, u
}

func applyDietMapping(d *dietCodeDoc, targets []string) {
	d.Diets = cloneStrings(targets)
	if d.Diets == nil {
		d.Diets = []string{}
	}
	d.Status = string(hl7.StatusNotApplicable)
	if len(targets) > 0 {
		d.Status = string(hl7.StatusMapped)
	}
	d.MappedBy = byOrganization
}

// remappable reports whether a stored value takes an organization mapping of its key: it is
// unmapped, or an earlier organization mapping decided it.
func remappable(status, mappedBy string) bool {
	return status == string(hl7.StatusUnmapped) || mappedBy == byOrganization
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s...)
}
