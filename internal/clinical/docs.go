package clinical

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/hl7"
)

// A patient's allergies and diet orders are stored as JSON documents on the patient row
// (patients.allergies, patients.diet_orders): the ingest replaces them whole, and the census reads
// them with the row. These are their shapes. key is the code as matched by mappings (see codeKey),
// so that the unmapped-codes endpoints can find the patients carrying a code with @>.

type allergyDoc struct {
	Key       string   `json:"key"`
	Category  string   `json:"category"`
	Code      string   `json:"code"`
	Text      string   `json:"text"`
	System    string   `json:"system"`
	Severity  string   `json:"severity"`
	Reactions []string `json:"reactions"`
	Status    string   `json:"status"`
	Allergens []string `json:"allergens"`
	MappedBy  string   `json:"mappedBy,omitempty"`
}

type dietCodeDoc struct {
	Key      string   `json:"key"`
	Code     string   `json:"code"`
	Text     string   `json:"text"`
	System   string   `json:"system"`
	Status   string   `json:"status"`
	Diets    []string `json:"diets"`
	MappedBy string   `json:"mappedBy,omitempty"`
}

type dietOrderDoc struct {
	// ID is derived from the patient and what the order says, so it survives a resend (see
	// census.dietOrder).
	ID             uuid.UUID     `json:"id"`
	Type           string        `json:"type"`
	Codes          []dietCodeDoc `json:"codes"`
	Instructions   []string      `json:"instructions"`
	ServicePeriods []string      `json:"servicePeriods"`
	Placer         string        `json:"placer,omitempty"`
	StartAt        *time.Time    `json:"startAt,omitempty"`
	Source         string        `json:"source"`
	OrderedAt      time.Time     `json:"orderedAt"`
	// FHIR NutritionOrder details (fhirapply.go).
	Status     string        `json:"status,omitempty"`
	Nutrients  []nutrientDoc `json:"nutrients,omitempty"`
	Exclusions []string      `json:"exclusions,omitempty"`
	Product    string        `json:"product,omitempty"`
}

// nutrientDoc is a nutrient limit of a FHIR oral diet.
type nutrientDoc struct {
	Nutrient string  `json:"nutrient"`
	Amount   float64 `json:"amount"`
	Unit     string  `json:"unit"`
}

// Who mapped a value.
const (
	byVocabulary   = "vocabulary"
	byOrganization = "organization"
)

// maxKey bounds a code key (and the {code} path parameter): free-text allergies can be long.
const maxKey = 200

// codeKey is how a coded value is matched across messages and mappings: the identifier, else
// the text, trimmed and upper-cased.
func codeKey(c hl7.CodedValue) string {
	k := strings.TrimSpace(c.Code)
	if k == "" {
		k = strings.TrimSpace(c.Text)
	}
	return normalizeKey(k)
}

// normalizeKey upper-cases and bounds a key without splitting a UTF-8 sequence.
func normalizeKey(k string) string {
	k = strings.ToUpper(strings.TrimSpace(k))
	if len(k) > maxKey {
		cut := maxKey
		for cut > 0 && !utf8.RuneStart(k[cut]) {
			cut--
		}
		k = k[:cut]
	}
	return k
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func toAPIAllergy(d allergyDoc) api.Allergy {
	out := api.Allergy{
		Category: api.AllergyCategory(d.Category), Code: d.Code, Text: d.Text, System: d.System,
		Severity: api.AllergySeverity(d.Severity), Reactions: nonNil(d.Reactions), Status: api.MatchStatus(d.Status),
		Allergens: make([]api.Allergen, 0, len(d.Allergens)),
	}
	for _, a := range d.Allergens {
		out.Allergens = append(out.Allergens, api.Allergen(a))
	}
	if d.MappedBy != "" {
		by := api.MappedBy(d.MappedBy)
		out.MappedBy = &by
	}
	return out
}

func toAPIDietOrder(d dietOrderDoc) api.DietOrder {
	out := api.DietOrder{
		Id: d.ID, Type: api.DietOrderType(d.Type), Codes: make([]api.DietCode, 0, len(d.Codes)),
		Diets: []api.Diet{}, Instructions: nonNil(d.Instructions), ServicePeriods: nonNil(d.ServicePeriods),
		Source: api.DietOrderSource(d.Source), OrderedAt: d.OrderedAt, StartAt: d.StartAt,
	}
	if d.Placer != "" {
		p := d.Placer
		out.PlacerOrderNumber = &p
	}
	if d.Status != "" {
		st := api.DietOrderStatus(d.Status)
		out.Status = &st
	}
	if len(d.Nutrients) > 0 {
		ns := make([]api.NutrientLimit, 0, len(d.Nutrients))
		for _, n := range d.Nutrients {
			ns = append(ns, api.NutrientLimit{Nutrient: n.Nutrient, Amount: float32(n.Amount), Unit: n.Unit})
		}
		out.Nutrients = &ns
	}
	if len(d.Exclusions) > 0 {
		ex := slices.Clone(d.Exclusions)
		out.Exclusions = &ex
	}
	if d.Product != "" {
		pr := d.Product
		out.Product = &pr
	}
	for _, c := range d.Codes {
		code := api.DietCode{Code: c.Code, Text: c.Text, System: c.System, Status: api.MatchStatus(c.Status), Diets: make([]api.Diet, 0, len(c.Diets))}
		for _, x := range c.Diets {
			code.Diets = append(code.Diets, api.Diet(x))
			if !slices.Contains(out.Diets, api.Diet(x)) {
				out.Diets = append(out.Diets, api.Diet(x))
			}
		}
		if c.MappedBy != "" {
			by := api.MappedBy(c.MappedBy)
			code.MappedBy = &by
		}
		out.Codes = append(out.Codes, code)
	}
	return out
}

// errUnreadable marks a stored document that does not decode into its Go type. It is a server
// fault (500, the cause logged), never an empty list: a patient shown without allergies, or
// whose diet orders a message rebuilds from nothing, is worse than an error.
var errUnreadable = errors.New("clinical: stored document cannot be read")

func decodeAllergies(raw []byte) ([]allergyDoc, error) {
	return decodeDoc[allergyDoc]("allergies", raw)
}

func decodeDietOrders(raw []byte) ([]dietOrderDoc, error) {
	return decodeDoc[dietOrderDoc]("diet orders", raw)
}

func decodeDoc[T any](what string, raw []byte) ([]T, error) {
	var out []T
	if len(raw) == 0 {
		return out, nil
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errUnreadable, what, err)
	}
	return out, nil
}

// patientSummary is the census view of a patient: its row plus what the documents imply. A
// document that cannot be read fails the whole view.
func patientSummary(p db.Patient) (api.PatientSummary, error) {
	allergies, err := decodeAllergies(p.Allergies)
	if err != nil {
		return api.PatientSummary{}, fmt.Errorf("patient %s: %w", p.ID, err)
	}
	orders, err := decodeDietOrders(p.DietOrders)
	if err != nil {
		return api.PatientSummary{}, fmt.Errorf("patient %s: %w", p.ID, err)
	}
	out := api.PatientSummary{
		Id: p.ID, SiteId: p.SiteID, Mrn: p.Mrn,
		Name: api.PersonName{Family: p.FamilyName, Given: p.GivenName, Middle: p.MiddleName},
		Sex:  p.Sex, InHouse: p.EncounterID != nil, Unit: p.Unit, Room: p.Room, Bed: p.Bed,
		AdmittedAt: p.AdmittedAt, EncounterId: p.EncounterID, UpdatedAt: p.UpdatedAt,
		Allergens: []api.Allergen{}, Allergies: make([]api.Allergy, 0, len(allergies)),
		Diets: []api.Diet{}, DietOrders: make([]api.DietOrder, 0, len(orders)), Flags: []api.CensusFlag{},
	}
	if p.BirthDate != "" {
		dob := p.BirthDate
		out.DateOfBirth = &dob
	}
	flag := func(f api.CensusFlag) {
		if !slices.Contains(out.Flags, f) {
			out.Flags = append(out.Flags, f)
		}
	}
	for _, a := range allergies {
		out.Allergies = append(out.Allergies, toAPIAllergy(a))
		for _, x := range a.Allergens {
			if !slices.Contains(out.Allergens, api.Allergen(x)) {
				out.Allergens = append(out.Allergens, api.Allergen(x))
			}
		}
		switch {
		case a.Status == string(hl7.StatusUnmapped):
			flag(api.CensusFlagUnmappedAllergen)
		case a.Status == string(hl7.StatusMapped) && a.Severity == string(hl7.SeveritySevere):
			flag(api.CensusFlagSevereAllergy)
		}
	}
	for _, o := range orders {
		ao := toAPIDietOrder(o)
		out.DietOrders = append(out.DietOrders, ao)
		for _, x := range ao.Diets {
			if !slices.Contains(out.Diets, x) {
				out.Diets = append(out.Diets, x)
			}
			if x == api.DietNpo {
				flag(api.CensusFlagNpo)
			}
		}
		for _, c := range o.Codes {
			if c.Status == string(hl7.StatusUnmapped) {
				flag(api.CensusFlagUnmappedDiet)
			}
		}
	}
	if out.InHouse && len(orders) == 0 {
		flag(api.CensusFlagNoDietOrder)
	}
	if p.MrnSource == string(hl7.MRNSourcePID3First) {
		flag(api.CensusFlagMrnUntyped)
	}
	slices.Sort(out.Flags)
	return out, nil
}
