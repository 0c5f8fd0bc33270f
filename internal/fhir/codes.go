package fhir

import "strings"

// Code systems read.
const (
	SNOMED = "http://snomed.info/sct"
	RxNorm = "http://www.nlm.nih.gov/research/umls/rxnorm"
	// IdentifierTypes is HL7 table 0203, whose MR is the medical record number.
	IdentifierTypes = "http://terminology.hl7.org/CodeSystem/v2-0203"
)

// Code is the coding of a concept the census keeps: a SNOMED CT coding, else an RxNorm one,
// else the first with a code; its text is the concept's text, else the coding's display.
type Code struct {
	Code, System, Text, Display string
}

// Pick chooses the coding of a concept the census keeps.
func Pick(cc *CodeableConcept) Code {
	if cc == nil {
		return Code{}
	}
	var best *Coding
	rank := func(c *Coding) int {
		switch {
		case c.Code == "":
			return 0
		case c.System == SNOMED:
			return 3
		case c.System == RxNorm:
			return 2
		}
		return 1
	}
	for i := range cc.Coding {
		c := &cc.Coding[i]
		if best == nil || rank(c) > rank(best) {
			best = c
		}
	}
	out := Code{Text: strings.TrimSpace(cc.Text)}
	if best != nil {
		out.Code, out.System, out.Display = strings.TrimSpace(best.Code), best.System, strings.TrimSpace(best.Display)
	}
	if out.Text == "" {
		out.Text = out.Display
	}
	if out.Text == "" && best == nil && len(cc.Coding) > 0 {
		out.Text = strings.TrimSpace(cc.Coding[0].Display)
	}
	return out
}

// Words is a concept as text: its text, else the display of its first coding with one, else its
// first code.
func Words(cc *CodeableConcept) string {
	if cc == nil {
		return ""
	}
	if t := strings.TrimSpace(cc.Text); t != "" {
		return t
	}
	for _, c := range cc.Coding {
		if d := strings.TrimSpace(c.Display); d != "" {
			return d
		}
	}
	for _, c := range cc.Coding {
		if c.Code != "" {
			return strings.TrimSpace(c.Code)
		}
	}
	return ""
}

// Has reports whether a concept carries code (in any system).
func Has(cc *CodeableConcept, code string) bool {
	if cc == nil {
		return false
	}
	for _, c := range cc.Coding {
		if strings.EqualFold(c.Code, code) {
			return true
		}
	}
	return false
}

// StatusCode is the first code of a status concept (clinicalStatus, verificationStatus).
func StatusCode(cc *CodeableConcept) string {
	if cc == nil {
		return ""
	}
	for _, c := range cc.Coding {
		if c.Code != "" {
			return strings.ToLower(strings.TrimSpace(c.Code))
		}
	}
	return strings.ToLower(strings.TrimSpace(cc.Text))
}

// NoKnownAllergy tells the SNOMED CT situations stating that there is no allergy to record:
// true for those about food or all allergies, false for those about drugs, latex or the
// environment only, which say nothing the kitchen acts on.
var NoKnownAllergy = map[string]bool{
	"716186003": true,  // No known allergy (situation)
	"429625007": true,  // No known food allergy (situation)
	"409137002": false, // No known drug allergy (situation)
	"716184000": false, // No known latex allergy (situation)
	"428607008": false, // No known environmental allergy (situation)
}

// SNOMEDDiets maps the SNOMED CT concepts of the FHIR diet, texture and fluid consistency value
// sets to the census's diet codes, where the concept means one level of the vocabulary.
// Concepts not listed are read as text (their display), as HL7 diet codes are.
var SNOMEDDiets = map[string][]string{
	"386619000":       {"low_sodium"},              // Low sodium diet
	"226208002":       {"fluid_restriction"},       // Fluid restricted diet
	"160670007":       {"consistent_carbohydrate"}, // Diabetic diet
	"33489005":        {"renal"},                   // Renal diet
	"226211001":       {"iddsi_food_4"},            // Pureed diet
	"15108003":        {"low_fiber"},               // Restricted fiber diet
	"16208003":        {"low_fat"},                 // Low fat diet
	"228049004":       {"iddsi_food_6"},            // Chopped food
	"439091000124107": {"iddsi_food_7ec"},          // Easy to chew food
	"439021000124105": {"iddsi_drink_2"},           // Nectar thick liquid
	"439031000124108": {"iddsi_drink_3"},           // Honey thick liquid
	"439041000124103": {"iddsi_drink_4"},           // Spoon thick liquid
	"439081000124109": {"iddsi_drink_0"},           // Thin liquid
}
