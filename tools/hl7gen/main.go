// Command hl7gen writes request bodies for benchmarking POST /v1/orgs/{orgId}/adt/hl7: batches
// of realistic HL7 v2 messages (a hospital's mix of 20% admissions, 40% updates, 15% transfers,
// 15% discharges and 10% diet orders; Epic-style segments: PID, PD1, NK1, PV1, PV2, DG1, OBX, AL1,
// ODS, a Z-segment; about 900 bytes a message), every message with a control id of its own, plus
// a vegeta targets file for tools/loadgen. As in real feeds, a patient stays in their bed until a
// transfer, their allergies stay the same from message to message, and the diet changes in one
// update out of ten.
//
//	go run -C tools ./hl7gen -org <orgId> -site <siteId> -bodies 2000 -per 100 -prefix R1 -out /tmp/hl7bench
//	/tmp/loadgen -targets /tmp/hl7bench/targets.txt -header 'x-api-key: …' -rate 60 -duration 20s
//
// Control ids are <prefix>-<body>-<message>, so every run needs a new prefix (a resent control
// id is a duplicate and changes nothing). MRNs come from a pool shared by all bodies, so later
// bodies transfer, update and discharge patients earlier bodies admitted.
//
// -mix stay writes another feed instead: every patient goes A01 → A08 → A02 → A03, each stay
// interleaved with up to -inflight others (so a patient's messages fall in different bodies),
// and every admission carries two AL1 and an ODS, with one code the vocabulary does not know in
// each (one of twenty local allergy codes, one of twenty local diet codes). MRNs are new in
// every run (derived from the prefix), so a run on a fresh database starts from an empty census.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
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
		bodies = flag.Int("bodies", 1000, "request bodies to write")
		per    = flag.Int("per", 100, "messages per body")
		prefix = flag.String("prefix", "B", "control id prefix; use a new one for every run")
		out    = flag.String("out", "hl7bench", "output directory")
		pool   = flag.Int("patients", 5000, "size of the MRN pool")
		seed   = flag.Uint64("seed", 1, "random seed")
		mix    = flag.String("mix", "hospital", "hospital (the usual mix over a pool of patients) or stay (A01 → A08 → A02 → A03 per MRN)")
		flight = flag.Int("inflight", 1000, "with -mix stay: stays open at once")
	)
	flag.Parse()
	if *org == "" || *site == "" {
		fmt.Fprintln(os.Stderr, "hl7gen: -org and -site are required")
		os.Exit(2)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	g := &gen{r: rand.New(rand.NewPCG(*seed, 7)), pool: *pool, inHouse: map[int]bool{}, diet: map[int]int{}, bed: map[int]bed{}}
	next := g.next
	switch *mix {
	case "hospital":
	case "stay":
		s := &stays{r: g.r, max: *flight, nextMRN: mrnBase(*prefix)}
		next = s.next
	default:
		fail(fmt.Errorf("unknown -mix %q", *mix))
	}
	var targets strings.Builder
	size := 0
	for b := range *bodies {
		var msg strings.Builder
		for m := range *per {
			msg.WriteString(next(fmt.Sprintf("%s-%05d-%03d", *prefix, b, m)))
		}
		raw, err := json.Marshal(map[string]string{"siteId": *site, "message": msg.String()})
		if err != nil {
			fail(err)
		}
		path, err := filepath.Abs(filepath.Join(*out, fmt.Sprintf("body-%05d.json", b)))
		if err != nil {
			fail(err)
		}
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			fail(err)
		}
		size += len(raw)
		fmt.Fprintf(&targets, "POST %s/v1/orgs/%s/adt/hl7\nContent-Type: application/json\n@%s\n\n", strings.TrimRight(*base, "/"), *org, path)
	}
	if err := os.WriteFile(filepath.Join(*out, "targets.txt"), []byte(targets.String()), 0o644); err != nil {
		fail(err)
	}
	fmt.Printf("%d bodies of %d messages, %.0f KB per body on average, in %s\n", *bodies, *per, float64(size)/float64(*bodies)/1024, *out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "hl7gen:", err)
	os.Exit(1)
}

type gen struct {
	r       *rand.Rand
	pool    int
	inHouse map[int]bool
	diet    map[int]int // the current diet of each patient, as an index into diets
	bed     map[int]bed // where each patient is; admissions and transfers move them
}

type bed struct {
	unit      string
	room      int
	letter    string
	admitTime string
}

var (
	units     = []string{"4W", "5E", "ICU", "3N", "MED2", "ONC", "L&D", "PEDS"}
	families  = []string{"DOE", "SMITH", "NGUYEN", "GARCIA", "MUÑOZ", "O'NEIL", "KOWALSKI", "OKAFOR", "LINDQVIST", "PATEL"}
	givens    = []string{"JANE", "JOHN", "MARIA", "WEI", "AHMED", "OLGA", "JOSÉ", "AMARA", "LIAM", "PRIYA"}
	allergies = []string{
		"AL1|%d|FA^Food Allergy^HL70127|762952008^Peanut^SCT|SV^Severe^HL70128|Anaphylaxis~Hives",
		"AL1|%d|DA^Drug Allergy^HL70127|70618^Penicillin^RXNORM|MO|Rash",
		"AL1|%d|FA|^Shellfish|MI",
		"AL1|%d|FA^Food Allergy^HL70127|3718001^Cow's milk^SCT|MO|GI upset",
		"AL1|%d|FA|^Tree nuts (walnut, pecan)|SV|Throat swelling",
		"AL1|%d|EA^Environmental^HL70127|^Latex|MO|Contact dermatitis",
		"AL1|%d|FA|^Gluten - celiac disease|MO",
		"AL1|%d|FA^Food Allergy^HL70127|Q-77^Quinoa^LOCAL|MI|Hives",
	}
	diets = []string{
		"ODS|D|B~L~D|CCHO^Consistent Carbohydrate 1800 kcal^EPICDIET~2GNA^2 gram sodium^EPICDIET|No concentrated sweets",
		"ODS|D||REG^Regular Diet^EPICDIET",
		"ODS|D||NPO^NPO after midnight^EPICDIET|Procedure at 0800",
		"ODS|D||CL LIQ^Clear liquid diet^EPICDIET",
		"ODS|D|B~L~D|DYS6^Dysphagia Soft \\T\\ Bite Sized^LOCAL~NECTAR^Nectar Thick Liquids^LOCAL",
		"ODS|D||RENAL^Renal 2gm Na 2gm K^LOCAL|1500 mL fluid restriction",
		"ODS|D||CARD^Cardiac heart healthy^EPICDIET",
		"ODS|D||MODCHO^Modified carbohydrate^LOCAL",
	}
)

// next returns one message: admissions while the census fills, then the usual mix.
func (g *gen) next(control string) string {
	mrn := g.r.IntN(g.pool)
	ev := "A01"
	switch x := g.r.IntN(100); {
	case x < 20:
	case x < 60:
		ev = "A08"
	case x < 75:
		ev = "A02"
	case x < 90:
		ev = "A03"
	default:
		ev = "ORM"
	}
	if ev != "A01" && !g.inHouse[mrn] {
		ev = "A01"
	}
	switch ev {
	case "A01", "A02", "A08":
		g.inHouse[mrn] = true
	case "A03":
		delete(g.inHouse, mrn)
	}
	return g.render(ev, control, mrn)
}

func (g *gen) render(ev, control string, mrn int) string {
	r := g.r
	family, given := families[mrn%len(families)], givens[(mrn/7)%len(givens)]
	at := fmt.Sprintf("202603%02d%02d%02d00", 1+r.IntN(28), r.IntN(24), r.IntN(60))
	b, ok := g.bed[mrn]
	if !ok { // where the patient was admitted, the same in every run
		b = bed{unit: units[mrn%len(units)], room: 100 + mrn%400, letter: string(rune('A' + mrn%2)), admitTime: "20260301080000"}
	}
	if ev == "A02" {
		b.unit, b.room, b.letter = units[r.IntN(len(units))], 100+r.IntN(400), string(rune('A'+r.IntN(2)))
	}
	g.bed[mrn] = b
	unit, room, bed := b.unit, b.room, b.letter
	id := fmt.Sprintf("%09d", 100000000+mrn)
	if ev == "ORM" {
		return strings.Join([]string{
			fmt.Sprintf("MSH|^~\\&|EPIC|HARBORVIEW|SOUS|SOUS|%s||ORM^O01|%s|P|2.3", at, control),
			fmt.Sprintf("PID|1||%s^^^HMC^MR||%s^%s", id, family, given),
			fmt.Sprintf("PV1|1|I|%s^%d^%s", unit, room, bed),
			fmt.Sprintf("ORC|NW|DIET-%d^EPIC|||||^^^%s||%s", r.IntN(100000), at, at),
			diets[r.IntN(len(diets))],
			"ODS|S||ENSURE^Ensure Plus TID^EPICDIET",
		}, "\r") + "\r"
	}
	lines := []string{
		fmt.Sprintf("MSH|^~\\&|EPIC|HARBORVIEW^1.2.840.114350.1.13.1^ISO|SOUS|SOUS|%s||ADT^%s^ADT_A01|%s|P|2.5.1|||AL|NE||UNICODE UTF-8", at, ev, control),
		fmt.Sprintf("EVN|%s|%s|||JSMITH^SMITH^JOHN^^^^^^HMC|%s", ev, at, at),
		fmt.Sprintf("PID|1||%s^^^HMC&1.2.840.114350.1.13.1.1&ISO^MR~%03d-45-%04d^^^SSA^SS||%s^%s^Q^^^^L||19%02d%02d%02d|%s|||%d MAIN ST^^SEATTLE^WA^98104^USA||(206)555-%04d|||M||V%s",
			id, mrn%1000, mrn%10000, family, given, 30+mrn%70, 1+mrn%12, 1+mrn%28, []string{"F", "M"}[mrn%2], 100+mrn%900, mrn%10000, id),
		"PD1||||1234^PRIMARY^PAT^^^^^^^^^^NPI",
		fmt.Sprintf("NK1|1|%s^MARIA|SPO^Spouse^HL70063|%d MAIN ST^^SEATTLE^WA^98104|(206)555-0143", family, 100+mrn%900),
		fmt.Sprintf("PV1|1|I|%s^%d^%s^HMC^^^MAIN^4|E|||1234^ATTEND^ALICE^^^^MD|||MED||||1|||1234^ATTEND^ALICE^^^^MD|IN|V%s|||||||||||||||||||||||||%s", unit, room, bed, id, b.admitTime),
		"PV2|||^CHEST PAIN",
		"DG1|1||I21.4^Non-ST elevation myocardial infarction^I10|||A",
		"OBX|1|NM|29463-7^Body weight^LN||72.5|kg^kilogram^UCUM|||||F",
	}
	if ev == "A01" || ev == "A08" {
		// As in real feeds, a patient's allergy list stays the same from message to message,
		// and the diet changes now and then (an update restates both).
		for k := range 1 + mrn%3 {
			lines = append(lines, fmt.Sprintf(allergies[(mrn+k)%len(allergies)], k+1))
		}
		d, ok := g.diet[mrn]
		if !ok {
			d = mrn % len(diets) // the same in every run, so runs continue one another
		}
		if r.IntN(10) == 0 {
			d = r.IntN(len(diets))
		}
		g.diet[mrn] = d
		lines = append(lines, diets[d])
	}
	lines = append(lines, "ZPV|1|EPIC-SPECIFIC|DATA")
	return strings.Join(lines, "\r") + "\r"
}

// stays is the -mix stay feed: each patient admitted, updated, transferred and discharged, in
// that order, with other stays interleaved.
type stays struct {
	r       *rand.Rand
	max     int
	open    []*stay
	nextMRN int
}

type stay struct {
	mrn  int
	next int // index into stayEvents
}

var stayEvents = []string{"A01", "A08", "A02", "A03"}

// mrnBase derives a run's first MRN from its prefix, so that runs do not share patients.
func mrnBase(prefix string) int {
	h := 0
	for _, c := range prefix {
		h = (h*31 + int(c)) % 9000
	}
	return 100_000_000 + h*100_000
}

// next admits a new patient a quarter of the time (always while fewer than max stays are open,
// never beyond), else moves an open stay one step on; so, over a run, each of the four events is
// a quarter of the messages.
func (s *stays) next(control string) string {
	if len(s.open) == 0 || (len(s.open) < s.max && s.r.IntN(4) == 0) {
		st := &stay{mrn: s.nextMRN}
		s.nextMRN++
		s.open = append(s.open, st)
		return s.render(st, control)
	}
	i := s.r.IntN(len(s.open))
	st := s.open[i]
	msg := s.render(st, control)
	if st.next == len(stayEvents) {
		s.open[i] = s.open[len(s.open)-1]
		s.open = s.open[:len(s.open)-1]
	}
	return msg
}

func (s *stays) render(st *stay, control string) string {
	ev := stayEvents[st.next]
	st.next++
	mrn := st.mrn
	family, given := families[mrn%len(families)], givens[(mrn/7)%len(givens)]
	at := fmt.Sprintf("202603%02d%02d%02d00", 1+st.next, s.r.IntN(24), s.r.IntN(60))
	unit, room, bed := units[mrn%len(units)], 100+mrn%400, string(rune('A'+mrn%2))
	if st.next > 2 { // transferred
		unit, room = units[(mrn+3)%len(units)], 100+(mrn+7)%400
	}
	id := fmt.Sprintf("%09d", mrn)
	lines := []string{
		fmt.Sprintf("MSH|^~\\&|EPIC|HARBORVIEW^1.2.840.114350.1.13.1^ISO|SOUS|SOUS|%s||ADT^%s^ADT_A01|%s|P|2.5.1|||AL|NE||UNICODE UTF-8", at, ev, control),
		fmt.Sprintf("EVN|%s|%s|||JSMITH^SMITH^JOHN^^^^^^HMC|%s", ev, at, at),
		fmt.Sprintf("PID|1||%s^^^HMC&1.2.840.114350.1.13.1.1&ISO^MR~%03d-45-%04d^^^SSA^SS||%s^%s^Q^^^^L||19%02d%02d%02d|%s|||%d MAIN ST^^SEATTLE^WA^98104^USA||(206)555-%04d|||M||V%s",
			id, mrn%1000, mrn%10000, family, given, 30+mrn%70, 1+mrn%12, 1+mrn%28, []string{"F", "M"}[mrn%2], 100+mrn%900, mrn%10000, id),
		fmt.Sprintf("PV1|1|I|%s^%d^%s^HMC^^^MAIN^4|E|||1234^ATTEND^ALICE^^^^MD|||MED||||1|||1234^ATTEND^ALICE^^^^MD|IN|V%s|||||||||||||||||||||||||20260301080000%s",
			unit, room, bed, id, map[bool]string{true: "|" + at, false: ""}[ev == "A03"]),
		"DG1|1||I21.4^Non-ST elevation myocardial infarction^I10|||A",
	}
	if ev == "A01" {
		lines = append(lines,
			fmt.Sprintf(allergies[mrn%4], 1), // peanut, penicillin, shellfish or milk: known
			fmt.Sprintf("AL1|2|FA|LOC-A%02d^Local allergen %d^LOCAL|MO|Hives", mrn%20, mrn%20),
			fmt.Sprintf("ODS|D|B~L~D|CCHO^Consistent Carbohydrate 1800 kcal^EPICDIET~LOC-D%02d^House diet %d^LOCAL", mrn%20, mrn%20))
	}
	return strings.Join(lines, "\r") + "\r"
}
