// Command fhirgen writes request bodies for benchmarking POST /v1/orgs/{orgId}/fhir: batch
// Bundles of FHIR R4 resources as a FHIR gateway forwards them, plus a vegeta targets file for
// tools/loadgen. Every patient's stay is eight resources: Patient, Encounter (in-progress, with a
// location), two AllergyIntolerance (a SNOMED CT peanut allergy and a local code the vocabulary
// does not know), a NutritionOrder (a text-only diet as Oracle Health sends it, with a sodium
// limit), then an Encounter moving the patient, a NutritionOrder changing the diet, and an
// Encounter finished. Stays interleave (up to -inflight open at once), so a patient's resources
// fall in different bundles, in order. Entries name their patient conditionally
// (Patient?identifier=<MRN>); MRNs derive from -prefix, so every run starts from an empty census.
//
//	go run -C tools ./fhirgen -org <orgId> -site <siteId> -bodies 400 -per 50 -prefix F1 -out /tmp/fhirbench
//	/tmp/loadgen -targets /tmp/fhirbench/targets.txt -header 'x-api-key: …' -rate 40 -duration 20s
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	var (
		org    = flag.String("org", "", "organization id (required)")
		site   = flag.String("site", "", "site id (required)")
		base   = flag.String("base", "http://127.0.0.1:8080", "server base URL for the targets file")
		bodies = flag.Int("bodies", 400, "request bodies to write")
		per    = flag.Int("per", 50, "resources per bundle")
		prefix = flag.String("prefix", "F", "MRN prefix; use a new one for every run")
		out    = flag.String("out", "fhirbench", "output directory")
		seed   = flag.Uint64("seed", 1, "random seed")
		flight = flag.Int("inflight", 500, "stays open at once")
		typ    = flag.String("type", "batch", "bundle type: batch or transaction")
	)
	flag.Parse()
	if *org == "" || *site == "" {
		fmt.Fprintln(os.Stderr, "fhirgen: -org and -site are required")
		os.Exit(2)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	h := fnv.New32a()
	h.Write([]byte(*prefix))
	s := &stays{r: rand.New(rand.NewPCG(*seed, 11)), max: *flight, next: int(h.Sum32()%900) * 1_000_000}
	var targets strings.Builder
	size := 0
	for b := range *bodies {
		entries := make([]any, 0, *per)
		for range *per {
			entries = append(entries, map[string]any{"resource": s.step(), "request": map[string]string{"method": "POST"}})
		}
		raw, err := json.Marshal(map[string]any{"resourceType": "Bundle", "type": *typ, "entry": entries})
		if err != nil {
			fail(err)
		}
		path, err := filepath.Abs(filepath.Join(*out, fmt.Sprintf("bundle-%05d.json", b)))
		if err != nil {
			fail(err)
		}
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			fail(err)
		}
		size += len(raw)
		fmt.Fprintf(&targets, "POST %s/v1/orgs/%s/fhir?siteId=%s\nContent-Type: application/fhir+json\n@%s\n\n", strings.TrimRight(*base, "/"), *org, *site, path)
	}
	if err := os.WriteFile(filepath.Join(*out, "targets.txt"), []byte(targets.String()), 0o644); err != nil {
		fail(err)
	}
	fmt.Printf("%d bundles of %d resources, %.0f KB per bundle on average, in %s\n", *bodies, *per, float64(size)/float64(*bodies)/1024, *out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fhirgen:", err)
	os.Exit(1)
}

type stay struct {
	mrn  string
	step int
}

type stays struct {
	r    *rand.Rand
	max  int
	next int
	open []*stay
}

var (
	units    = []string{"4W", "5E", "ICU", "3N", "MED2", "ONC", "PEDS"}
	families = []string{"Doe", "Smith", "Nguyen", "García", "Muñoz", "O'Neil", "Kowalski", "Okafor"}
	givens   = []string{"Jane", "John", "María", "Wei", "Ahmed", "Olga", "José", "Amara"}
	dietText = []string{"Consistent Carbohydrate Diet 1800 Calorie", "Cardiac Diet 2gm Sodium", "Regular Diet",
		"Renal Diet", "Mechanical Soft Diet", "Clear Liquid Diet", "Heart Healthy Diet"}
	localAllergy = []string{"Q-77 Quinoa", "Local: kiwi-strawberry mix", "House code 114 (dyes)", "Local: sumac"}
)

// step returns the next resource of a random open stay, opening stays while fewer than max are.
func (s *stays) step() map[string]any {
	if len(s.open) < s.max {
		s.next++
		s.open = append(s.open, &stay{mrn: fmt.Sprintf("F%09d", s.next)})
	}
	i := s.r.IntN(len(s.open))
	st := s.open[i]
	res := s.resource(st)
	st.step++
	if st.step == 8 {
		s.open[i] = s.open[len(s.open)-1]
		s.open = s.open[:len(s.open)-1]
	}
	return res
}

func (s *stays) resource(st *stay) map[string]any {
	ref := map[string]any{"reference": "Patient?identifier=" + st.mrn}
	loc := func() []any {
		return []any{map[string]any{"location": map[string]any{
			"display": fmt.Sprintf("%s %d-%c", units[s.r.IntN(len(units))], 100+s.r.IntN(400), 'A'+rune(s.r.IntN(2)))}}}
	}
	enc := func(status string) map[string]any {
		e := map[string]any{"resourceType": "Encounter", "status": status, "subject": ref,
			"identifier": []any{map[string]any{"value": "V" + st.mrn}},
			"class":      map[string]any{"system": "http://terminology.hl7.org/CodeSystem/v3-ActCode", "code": "IMP"},
			"period":     map[string]any{"start": "2026-03-02T08:25:00-06:00"}}
		if status != "finished" {
			e["location"] = loc()
		}
		return e
	}
	order := func() map[string]any {
		return map[string]any{"resourceType": "NutritionOrder", "status": "active", "intent": "order", "patient": ref,
			"identifier": []any{map[string]any{"system": "urn:oid:2.16.840.1.113883.3.13.6", "value": "NO" + st.mrn}},
			"dateTime":   "2026-03-02T09:00:00-06:00",
			"oralDiet": map[string]any{"type": []any{map[string]any{"text": dietText[s.r.IntN(len(dietText))]}},
				"nutrient": []any{map[string]any{"modifier": map[string]any{"text": "Sodium"}, "amount": map[string]any{"value": 2, "unit": "grams"}}}},
		}
	}
	switch st.step {
	case 0:
		return map[string]any{"resourceType": "Patient",
			"identifier": []any{map[string]any{"type": map[string]any{"coding": []any{map[string]any{"system": "http://terminology.hl7.org/CodeSystem/v2-0203", "code": "MR"}}},
				"system": "urn:oid:1.2.840.114350.1.13.1.1", "value": st.mrn}},
			"name":      []any{map[string]any{"use": "official", "family": families[s.r.IntN(len(families))], "given": []string{givens[s.r.IntN(len(givens))]}}},
			"gender":    []string{"female", "male"}[s.r.IntN(2)],
			"birthDate": fmt.Sprintf("19%02d-%02d-%02d", 30+s.r.IntN(70), 1+s.r.IntN(12), 1+s.r.IntN(28))}
	case 1:
		return enc("in-progress")
	case 2:
		return map[string]any{"resourceType": "AllergyIntolerance", "patient": ref, "category": []string{"food"}, "criticality": "high",
			"clinicalStatus": map[string]any{"coding": []any{map[string]any{"code": "active"}}},
			"code":           map[string]any{"coding": []any{map[string]any{"system": "http://snomed.info/sct", "code": "762952008", "display": "Peanut"}}}}
	case 3:
		return map[string]any{"resourceType": "AllergyIntolerance", "patient": ref, "category": []string{"food"},
			"clinicalStatus": map[string]any{"coding": []any{map[string]any{"code": "active"}}},
			"code":           map[string]any{"text": localAllergy[s.r.IntN(len(localAllergy))]}}
	case 4, 6:
		return order()
	case 5:
		return enc("in-progress")
	}
	return enc("finished")
}
