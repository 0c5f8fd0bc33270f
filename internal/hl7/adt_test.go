package hl7

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func mustADT(t *testing.T, body string) *ADT {
	t.Helper()
	m, err := Parse([]byte(body))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	a, err := m.ADT()
	if err != nil {
		t.Fatalf("ADT: %v", err)
	}
	return a
}

func TestADTFlavours(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		action     Action
		typ        string
		control    string
		mrn        string
		mrnSource  MRNSource
		name_      PersonName
		dob        string // RFC 3339 date, "" for none
		dobPrec    Precision
		sex        string
		class      string
		loc        Location
		prior      Location
		visit      string
		admit      string // wall clock "2006-01-02 15:04"
		discharge  string
		warnings   int
		allergies  int
		dietOrders int
	}{
		{
			name: "epic A01 MLLP framed", body: "\x0b" + epicA01 + "\x1c\r",
			action: ActionAdmit, typ: "ADT^A01^ADT_A01", control: "MSG00001",
			mrn: "100234567", mrnSource: MRNSourcePID3MR,
			name_: PersonName{Family: "DOE", Given: "JANE", Middle: "QUINN"},
			dob:   "1980-04-12", dobPrec: PrecisionDay, sex: "F", class: "I",
			loc:   Location{PointOfCare: "4W", Room: "412", Bed: "A", Facility: "UCH", Building: "MAIN", Floor: "4"},
			visit: "V000123456", admit: "2024-01-15 08:25",
			allergies: 3, dietOrders: 1,
		},
		{
			name: "cerner A02 CRLF", body: withTerminators(cernerA02, "\r\n"),
			action: ActionTransfer, typ: "ADT^A02", control: "Q2938471T3302",
			mrn: "4455667", mrnSource: MRNSourcePID3MR,
			name_: PersonName{Family: "MUÑOZ-O'NEIL", Given: "JOSÉ", Middle: "A"},
			dob:   "1955-11-03", dobPrec: PrecisionDay, sex: "M", class: "I",
			loc:   Location{PointOfCare: "5E", Room: "512", Bed: "B", Facility: "CERNERHOSP"},
			prior: Location{PointOfCare: "4W", Room: "412", Bed: "A", Facility: "CERNERHOSP"},
			visit: "88001234",
		},
		{
			name: "meditech A03 LF", body: withTerminators(meditechA03, "\n"),
			action: ActionDischarge, typ: "ADT^A03", control: "MT-20240120-0042",
			mrn: "J000123456", mrnSource: MRNSourcePID3First,
			name_: PersonName{Family: "SMITH", Given: "ROBERT", Suffix: "JR", Prefix: "DR"},
			dob:   "1944-02-29", dobPrec: PrecisionDay, sex: "M", class: "I",
			loc:   Location{PointOfCare: "3N", Room: "301", Bed: "1", Facility: "MTHOSP"},
			visit: "A00099887", admit: "2024-01-15 08:00", discharge: "2024-01-20 14:15",
		},
		{
			name: "legacy A08 own delimiters", body: legacyA08,
			action: ActionUpdate, typ: "ADT^A08", control: "CTL0001",
			mrn: "77665544", mrnSource: MRNSourcePID2,
			name_: PersonName{Family: "BROWN", Given: "ALICE", Middle: "M"},
			dob:   "1961-01-01", dobPrec: PrecisionYear, sex: "F", class: "I",
			loc:       Location{PointOfCare: "ICU", Room: "7", Bed: "2"},
			allergies: 1, dietOrders: 1,
		},
		{
			name: "v2.7 truncation character", body: v27A01,
			action: ActionAdmit, typ: "ADT^A01^ADT_A01", control: "V27-1",
			mrn: "555", mrnSource: MRNSourcePID3MR,
			name_: PersonName{Family: "NUMBER#ONE", Given: "TEST"},
			dob:   "2001-01-01", dobPrec: PrecisionYear, sex: "U", class: "O",
			loc: Location{PointOfCare: "CLINIC", Facility: "UCH"},
		},
		{
			name: "v2.1 two encoding characters", body: v21A01,
			action: ActionAdmit, typ: "ADT^A01", control: "OLD-1",
			mrn: "42", mrnSource: MRNSourcePID3MR,
			name_: PersonName{Family: "OLD", Given: "TIMER"},
			class: "I", loc: Location{PointOfCare: "2S", Room: "201", Bed: "2"},
		},
		{
			name: "ORM diet order", body: ormO01,
			action: ActionDietOrder, typ: "ORM^O01", control: "ORD-1001",
			mrn: "100234567", mrnSource: MRNSourcePID3MR,
			name_: PersonName{Family: "DOE", Given: "JANE"},
			class: "I", loc: Location{PointOfCare: "4W", Room: "412", Bed: "A"},
			dietOrders: 3,
		},
		{
			name: "OMD diet order", body: omdO03,
			action: ActionDietOrder, typ: "OMD^O03^OMD_O03", control: "OMD-77",
			mrn: "4455667", mrnSource: MRNSourcePID3MR,
			name_: PersonName{Family: "MUNOZ", Given: "JOSE"},
			class: "I", loc: Location{PointOfCare: "5E", Room: "512", Bed: "B"},
			dietOrders: 2,
		},
		{
			name: "A04 is unsupported", body: a04,
			action: ActionUnsupported, typ: "ADT^A04", control: "REG-1",
			mrn: "999", mrnSource: MRNSourcePID3MR,
			name_: PersonName{Family: "REG", Given: "ISTER"},
			class: "O", loc: Location{PointOfCare: "ED"},
		},
		{
			name:   "order message without diet is unsupported",
			body:   "MSH|^~\\&|LAB|H|SOUS|S|20240101||ORM^O01|L1|P|2.3\rPID|||1^^^H^MR\rORC|NW|LAB-1\rOBR|1|LAB-1||CBC\r",
			action: ActionUnsupported, typ: "ORM^O01", control: "L1", mrn: "1", mrnSource: MRNSourcePID3MR,
		},
		{
			name: "ADT without PID", body: "MSH|^~\\&|A|B|C|D|20240101||ADT^A01|X|P|2.5\rPV1|1|I|4W\r",
			action: ActionAdmit, typ: "ADT^A01", control: "X", mrnSource: MRNSourceNone,
			class: "I", loc: Location{PointOfCare: "4W"}, warnings: 1,
		},
		{
			name: "empty PID identifiers and bad dates",
			body: "MSH|^~\\&|A|B|C|D|2024011||ADT^A08|Y|P|2.5\rPID|1||||NOBODY^X||19800230\r" +
				"PV1|1|I" + strings.Repeat("|", 42) + "20240101\r",
			action: ActionUpdate, typ: "ADT^A08", control: "Y", mrnSource: MRNSourceNone,
			name_: PersonName{Family: "NOBODY", Given: "X"},
			class: "I", admit: "2024-01-01 00:00", warnings: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := mustADT(t, tt.body)
			if got := a.Action(); got != tt.action {
				t.Errorf("Action = %q, want %q", got, tt.action)
			}
			if a.Supported() != (tt.action != ActionUnsupported) {
				t.Errorf("Supported = %v", a.Supported())
			}
			if got := a.Type.String(); got != tt.typ {
				t.Errorf("Type = %q, want %q", got, tt.typ)
			}
			if a.ControlID != tt.control {
				t.Errorf("ControlID = %q, want %q", a.ControlID, tt.control)
			}
			p := a.Patient
			if p.MRN != tt.mrn || p.MRNSource != tt.mrnSource {
				t.Errorf("MRN = %q (%s), want %q (%s)", p.MRN, p.MRNSource, tt.mrn, tt.mrnSource)
			}
			if p.Name != tt.name_ {
				t.Errorf("Name = %+v, want %+v", p.Name, tt.name_)
			}
			if got := dateOf(p.BirthDate); got != tt.dob || p.BirthDate.Precision != tt.dobPrec {
				t.Errorf("BirthDate = %q (%v), want %q (%v)", got, p.BirthDate.Precision, tt.dob, tt.dobPrec)
			}
			if p.Sex != tt.sex {
				t.Errorf("Sex = %q, want %q", p.Sex, tt.sex)
			}
			v := a.Visit
			if v.Class != tt.class || v.Location != tt.loc || v.PriorLocation != tt.prior || v.VisitNumber != tt.visit {
				t.Errorf("Visit = %+v", v)
			}
			if got := wallOf(v.AdmitTime); got != tt.admit {
				t.Errorf("AdmitTime = %q, want %q", got, tt.admit)
			}
			if got := wallOf(v.DischargeTime); got != tt.discharge {
				t.Errorf("DischargeTime = %q, want %q", got, tt.discharge)
			}
			if len(a.Warnings) != tt.warnings {
				t.Errorf("Warnings = %q, want %d", a.Warnings, tt.warnings)
			}
			if len(a.Allergies) != tt.allergies || len(a.DietOrders) != tt.dietOrders {
				t.Errorf("%d allergies, %d diet orders; want %d, %d", len(a.Allergies), len(a.DietOrders), tt.allergies, tt.dietOrders)
			}
		})
	}
}

func dateOf(t Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Time.Format(time.DateOnly)
}

func wallOf(t Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Time.Format("2006-01-02 15:04")
}

func TestADTHeaderAndEvent(t *testing.T) {
	a := mustADT(t, epicA01)
	if a.Version != "2.5.1" || a.ProcessingID != "P" {
		t.Errorf("Version %q ProcessingID %q", a.Version, a.ProcessingID)
	}
	if a.SendingApplication != "EPIC" || a.SendingFacility != "UCHEALTH" || a.ReceivingApplication != "SOUS" || a.ReceivingFacility != "SOUS" {
		t.Errorf("applications: %+v", a)
	}
	want := time.Date(2024, 1, 15, 15, 30, 12, 0, time.UTC)
	if !a.MessageTime.HasZone || !a.MessageTime.Time.Equal(want) || a.MessageTime.ZoneOffset != -7*3600 {
		t.Errorf("MessageTime = %+v", a.MessageTime)
	}
	if wallOf(a.RecordedTime) != "2024-01-15 08:30" || wallOf(a.EventOccurred) != "2024-01-15 08:25" {
		t.Errorf("EVN times %+v %+v", a.RecordedTime, a.EventOccurred)
	}
	ids := a.Patient.Identifiers
	if len(ids) != 2 || ids[0] != (Identifier{ID: "100234567", Authority: "UCH", TypeCode: "MR"}) ||
		ids[1] != (Identifier{ID: "123-45-6789", Authority: "SSA", TypeCode: "SS"}) {
		t.Errorf("Identifiers = %+v", ids)
	}
	if a.Patient.MRNAuthority != "UCH" {
		t.Errorf("MRNAuthority = %q", a.Patient.MRNAuthority)
	}
}

func TestADTAllergies(t *testing.T) {
	a := mustADT(t, epicA01)
	want := []Allergy{
		{
			TypeCode: "FA", Category: CategoryFood,
			Allergen:     CodedValue{Code: "762952008", Text: "Peanut", System: "SCT"},
			SeverityCode: "SV", Severity: SeveritySevere, Reactions: []string{"Anaphylaxis", "Hives"},
			Match: AllergenMatch{Status: StatusMapped, Allergens: []Allergen{AllergenPeanuts}, By: MatchedByBoth},
		},
		{
			TypeCode: "DA", Category: CategoryDrug,
			Allergen:     CodedValue{Code: "70618", Text: "Penicillin", System: "RXNORM"},
			SeverityCode: "MO", Severity: SeverityModerate, Reactions: []string{"Rash"},
			Match: AllergenMatch{Status: StatusNotApplicable},
		},
		{
			TypeCode: "FA", Category: CategoryFood,
			Allergen:     CodedValue{Text: "Shellfish"},
			SeverityCode: "MI", Severity: SeverityMild,
			Match: AllergenMatch{Status: StatusMapped, Allergens: []Allergen{AllergenCrustaceanShellfish}, By: MatchedByText},
		},
	}
	if len(a.Allergies) != len(want) {
		t.Fatalf("got %d allergies", len(a.Allergies))
	}
	for i, w := range want {
		g := a.Allergies[i]
		if g.TypeCode != w.TypeCode || g.Category != w.Category || g.Allergen != w.Allergen ||
			g.SeverityCode != w.SeverityCode || g.Severity != w.Severity || !slices.Equal(g.Reactions, w.Reactions) ||
			g.Match.Status != w.Match.Status || !slices.Equal(g.Match.Allergens, w.Match.Allergens) || g.Match.By != w.Match.By {
			t.Errorf("allergy %d:\n got %+v\nwant %+v", i+1, g, w)
		}
	}

	legacy := mustADT(t, legacyA08)
	if al := legacy.Allergies[0]; al.Category != CategoryUnknown || al.Severity != SeverityUnknown ||
		!slices.Equal(al.Match.Allergens, []Allergen{AllergenEgg, AllergenMilk}) {
		t.Errorf("legacy allergy = %+v", al)
	}
}

func TestADTDietOrders(t *testing.T) {
	epic := mustADT(t, epicA01)
	d := epic.DietOrders[0]
	if d.Type != DietOrderDiet || len(d.ServicePeriods) != 3 || d.ServicePeriods[2].Code != "D" ||
		!slices.Equal(d.Instructions, []string{"No concentrated sweets"}) || d.OrderControl != "" {
		t.Errorf("epic ODS = %+v", d)
	}
	if got := dietsOf(d); !slices.Equal(got, []Diet{DietConsistentCarbohydrate, DietLowSodium}) {
		t.Errorf("epic diets = %v", got)
	}

	orm := mustADT(t, ormO01)
	if len(orm.DietOrders) != 3 {
		t.Fatalf("ORM diet orders = %d", len(orm.DietOrders))
	}
	first, supp, npo := orm.DietOrders[0], orm.DietOrders[1], orm.DietOrders[2]
	if first.OrderControl != "NW" || first.PlacerOrderNumber != "DIET-5566" || wallOf(first.StartTime) != "2024-01-15 12:00" ||
		wallOf(first.TransactionTime) != "2024-01-15 11:59" {
		t.Errorf("ORM order context = %+v", first)
	}
	if !slices.Equal(first.Instructions, []string{"Patient prefers & requests decaf"}) {
		t.Errorf("instructions = %q", first.Instructions)
	}
	if got := dietsOf(first); !slices.Equal(got, []Diet{DietRegular, DietIDDSIDrink0}) {
		t.Errorf("ORM diets = %v", got)
	}
	if supp.Type != DietOrderSupplement || !slices.Equal(dietsOf(supp), []Diet{DietOralSupplement}) || supp.OrderControl != "NW" {
		t.Errorf("supplement = %+v", supp)
	}
	if npo.OrderControl != "DC" || npo.PlacerOrderNumber != "DIET-5500" || !slices.Equal(dietsOf(npo), []Diet{DietNPO}) {
		t.Errorf("discontinued NPO = %+v", npo)
	}

	omd := mustADT(t, omdO03)
	diet, pref := omd.DietOrders[0], omd.DietOrders[1]
	if wallOf(diet.StartTime) != "2024-01-17 08:00" || wallOf(diet.TransactionTime) != "2024-01-17 06:55" {
		t.Errorf("OMD times = %+v", diet)
	}
	if got := dietsOf(diet); !slices.Equal(got, []Diet{DietIDDSIFood6, DietIDDSIDrink2, DietRenal, DietLowSodium, DietLowPotassium}) {
		t.Errorf("OMD diets = %v", got)
	}
	if !slices.Equal(diet.Instructions, []string{"Cut meat small\nNo straws"}) {
		t.Errorf("OMD instructions = %q", diet.Instructions)
	}
	if pref.Type != DietOrderPreference || pref.Codes[0].Match.Status != StatusUnmapped || pref.Codes[0].Code.Code != "NOPORK" {
		t.Errorf("preference = %+v", pref)
	}
	if len(omd.Trays) != 1 || omd.Trays[0].Type.Code != "EARLY" || omd.Trays[0].Text != "Dialysis at 0700" ||
		omd.Trays[0].OrderControl != "NW" || omd.Trays[0].ServicePeriods[0].Code != "B" {
		t.Errorf("trays = %+v", omd.Trays)
	}

	legacy := mustADT(t, legacyA08)
	if got := dietsOf(legacy.DietOrders[0]); !slices.Equal(got, []Diet{DietNPO, DietIDDSIFood6}) {
		t.Errorf("legacy diets = %v", got)
	}
}

func dietsOf(d DietOrder) []Diet {
	var out []Diet
	for _, c := range d.Codes {
		out = append(out, c.Match.Diets...)
	}
	return out
}

func TestADTRejectedMessage(t *testing.T) {
	b, _ := ParseBatch([]byte("MSH|^^\\&|A|B\r"))
	if _, err := b.Messages[0].ADT(); err == nil {
		t.Fatal("ADT of a rejected message succeeded")
	}
}

func TestADTWarningsAreCapped(t *testing.T) {
	body := "MSH|^~\\&|A|B|C|D|20240101||ORM^O01|X|P|2.5\r"
	for range 3 * MaxWarnings {
		body += "ODS|D\r"
	}
	a := mustADT(t, body)
	if len(a.Warnings) != MaxWarnings {
		t.Fatalf("%d warnings, want %d", len(a.Warnings), MaxWarnings)
	}
}
