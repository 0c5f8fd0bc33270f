package fhir

import "encoding/json"

// Coding is a code from a code system.
type Coding struct {
	System  string `json:"system,omitempty"`
	Code    string `json:"code,omitempty"`
	Display string `json:"display,omitempty"`
}

// CodeableConcept is a concept as codes and text.
type CodeableConcept struct {
	Coding []Coding `json:"coding,omitempty"`
	Text   string   `json:"text,omitempty"`
}

// Identifier is a business identifier.
type Identifier struct {
	Use    string           `json:"use,omitempty"`
	Type   *CodeableConcept `json:"type,omitempty"`
	System string           `json:"system,omitempty"`
	Value  string           `json:"value,omitempty"`
}

// Reference points to another resource.
type Reference struct {
	Reference  string      `json:"reference,omitempty"`
	Identifier *Identifier `json:"identifier,omitempty"`
	Display    string      `json:"display,omitempty"`
}

// Period is a start and end.
type Period struct {
	Start string `json:"start,omitempty"`
	End   string `json:"end,omitempty"`
}

// Quantity is an amount with its unit.
type Quantity struct {
	Value *float64 `json:"value,omitempty"`
	Unit  string   `json:"unit,omitempty"`
	Code  string   `json:"code,omitempty"`
}

// HumanName is a person's name.
type HumanName struct {
	Use    string   `json:"use,omitempty"`
	Text   string   `json:"text,omitempty"`
	Family string   `json:"family,omitempty"`
	Given  []string `json:"given,omitempty"`
}

// Patient is the census's part of a FHIR Patient.
type Patient struct {
	ResourceType string       `json:"resourceType"`
	ID           string       `json:"id,omitempty"`
	Identifier   []Identifier `json:"identifier,omitempty"`
	Name         []HumanName  `json:"name,omitempty"`
	Gender       string       `json:"gender,omitempty"`
	BirthDate    string       `json:"birthDate,omitempty"`
}

// Encounter is the census's part of a FHIR Encounter.
type Encounter struct {
	ResourceType string              `json:"resourceType"`
	ID           string              `json:"id,omitempty"`
	Identifier   []Identifier        `json:"identifier,omitempty"`
	Status       string              `json:"status,omitempty"`
	Class        *Coding             `json:"class,omitempty"`
	Subject      *Reference          `json:"subject,omitempty"`
	Period       *Period             `json:"period,omitempty"`
	Location     []EncounterLocation `json:"location,omitempty"`
}

// EncounterLocation is one location of an encounter.
type EncounterLocation struct {
	Location Reference `json:"location"`
	Status   string    `json:"status,omitempty"`
}

// AllergyIntolerance is the census's part of a FHIR AllergyIntolerance.
type AllergyIntolerance struct {
	ResourceType       string            `json:"resourceType"`
	ID                 string            `json:"id,omitempty"`
	ClinicalStatus     *CodeableConcept  `json:"clinicalStatus,omitempty"`
	VerificationStatus *CodeableConcept  `json:"verificationStatus,omitempty"`
	Type               string            `json:"type,omitempty"`
	Category           []string          `json:"category,omitempty"`
	Criticality        string            `json:"criticality,omitempty"`
	Code               *CodeableConcept  `json:"code,omitempty"`
	Patient            *Reference        `json:"patient,omitempty"`
	Reaction           []AllergyReaction `json:"reaction,omitempty"`
}

// AllergyReaction is one reaction of an allergy.
type AllergyReaction struct {
	Manifestation []CodeableConcept `json:"manifestation,omitempty"`
	Severity      string            `json:"severity,omitempty"`
}

// NutritionOrder is the census's part of a FHIR NutritionOrder.
type NutritionOrder struct {
	ResourceType           string            `json:"resourceType"`
	ID                     string            `json:"id,omitempty"`
	Identifier             []Identifier      `json:"identifier,omitempty"`
	Status                 string            `json:"status,omitempty"`
	Intent                 string            `json:"intent,omitempty"`
	Patient                *Reference        `json:"patient,omitempty"`
	DateTime               string            `json:"dateTime,omitempty"`
	AllergyIntolerance     []Reference       `json:"allergyIntolerance,omitempty"`
	FoodPreferenceModifier []CodeableConcept `json:"foodPreferenceModifier,omitempty"`
	ExcludeFoodModifier    []CodeableConcept `json:"excludeFoodModifier,omitempty"`
	OralDiet               *OralDiet         `json:"oralDiet,omitempty"`
	Supplement             []Supplement      `json:"supplement,omitempty"`
	EnteralFormula         *EnteralFormula   `json:"enteralFormula,omitempty"`
}

// OralDiet is a NutritionOrder's diet by mouth.
type OralDiet struct {
	Type                 []CodeableConcept `json:"type,omitempty"`
	Schedule             []Timing          `json:"schedule,omitempty"`
	Nutrient             []Nutrient        `json:"nutrient,omitempty"`
	Texture              []Texture         `json:"texture,omitempty"`
	FluidConsistencyType []CodeableConcept `json:"fluidConsistencyType,omitempty"`
	Instruction          string            `json:"instruction,omitempty"`
}

// Timing is the part of a schedule the census reads: when it starts.
type Timing struct {
	Repeat *struct {
		BoundsPeriod *Period `json:"boundsPeriod,omitempty"`
	} `json:"repeat,omitempty"`
}

// Nutrient is a nutrient limit of an oral diet.
type Nutrient struct {
	Modifier *CodeableConcept `json:"modifier,omitempty"`
	Amount   *Quantity        `json:"amount,omitempty"`
}

// Texture is a texture modifier of an oral diet, optionally for one food type.
type Texture struct {
	Modifier *CodeableConcept `json:"modifier,omitempty"`
	FoodType *CodeableConcept `json:"foodType,omitempty"`
}

// Supplement is a nutritional supplement of a NutritionOrder.
type Supplement struct {
	Type        *CodeableConcept `json:"type,omitempty"`
	ProductName string           `json:"productName,omitempty"`
	Quantity    *Quantity        `json:"quantity,omitempty"`
	Instruction string           `json:"instruction,omitempty"`
}

// EnteralFormula is a NutritionOrder's tube feeding.
type EnteralFormula struct {
	BaseFormulaType           *CodeableConcept `json:"baseFormulaType,omitempty"`
	BaseFormulaProductName    string           `json:"baseFormulaProductName,omitempty"`
	AdditiveProductName       string           `json:"additiveProductName,omitempty"`
	RouteOfAdministration     *CodeableConcept `json:"routeofAdministration,omitempty"`
	CaloricDensity            *Quantity        `json:"caloricDensity,omitempty"`
	MaxVolumeToDeliver        *Quantity        `json:"maxVolumeToDeliver,omitempty"`
	AdministrationInstruction string           `json:"administrationInstruction,omitempty"`
}

// Bundle is a request Bundle.
type Bundle struct {
	ResourceType string  `json:"resourceType"`
	Type         string  `json:"type"`
	Entry        []Entry `json:"entry"`
}

// Entry is one entry of a request Bundle. Resource stays raw until its type is known.
type Entry struct {
	FullURL  string          `json:"fullUrl,omitempty"`
	Resource json.RawMessage `json:"resource,omitempty"`
	Request  *EntryRequest   `json:"request,omitempty"`
}

// EntryRequest is how an entry asks to be applied.
type EntryRequest struct {
	Method string `json:"method,omitempty"`
	URL    string `json:"url,omitempty"`
}

// OperationOutcome reports errors, warnings and information about a request or an entry.
type OperationOutcome struct {
	ResourceType string  `json:"resourceType"`
	Issue        []Issue `json:"issue"`
}

// Issue is one issue of an OperationOutcome.
type Issue struct {
	Severity    string   `json:"severity"`
	Type        string   `json:"code"` // the FHIR issue type
	Diagnostics string   `json:"diagnostics,omitempty"`
	Expression  []string `json:"expression,omitempty"`
}

// Outcome builds an OperationOutcome of one issue.
func Outcome(severity, code, diagnostics string, expression ...string) *OperationOutcome {
	return &OperationOutcome{ResourceType: "OperationOutcome", Issue: []Issue{{Severity: severity, Type: code, Diagnostics: diagnostics, Expression: expression}}}
}
