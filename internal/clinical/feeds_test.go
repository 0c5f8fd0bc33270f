package clinical_test

import (
	"fmt"
	"strings"
)

// Messages in the styles of the feeds hospitals send: Epic-like v2.5.1 with typed identifiers and
// Z-segments, Cerner-like v2.3 with CRLF line ends and "MRN"-typed identifiers, Meditech-like
// v2.4 with LF line ends and an untyped identifier, and a legacy v2.2 sender with its own
// delimiters. Names, numbers and people are invented.

// visit describes one ADT message.
type visit struct {
	Event     string // A01, A02, A03, A08
	Control   string // MSH-10
	MRN       string
	Family    string
	Given     string
	DOB       string // HL7 date
	Sex       string
	Unit      string
	Room      string
	Bed       string
	PriorUnit string // A02: PV1-6
	Visit     string // PV1-19
	At        string // event time, HL7 timestamp (no offset: the site's wall clock)
	AL1       []string
	ODS       []string
}

func (v visit) orDefault() visit {
	if v.Family == "" {
		v.Family, v.Given = "DOE", "JANE"
	}
	if v.DOB == "" {
		v.DOB = "19800412"
	}
	if v.Sex == "" {
		v.Sex = "F"
	}
	if v.At == "" {
		v.At = "20260302083000"
	}
	if v.Visit == "" {
		v.Visit = "V" + v.MRN
	}
	return v
}

// epic renders a v2.5.1 message with CR segment terminators.
func (v visit) epic() string {
	v = v.orDefault()
	typ := "ADT^" + v.Event + "^ADT_" + v.Event
	if v.Event == "A08" || v.Event == "A02" || v.Event == "A03" {
		typ = "ADT^" + v.Event + "^ADT_A01"
	}
	admit, discharge := "", ""
	switch v.Event {
	case "A01":
		admit = v.At
	case "A03":
		discharge = v.At
	}
	lines := []string{
		fmt.Sprintf("MSH|^~\\&|EPIC|HARBORVIEW^1.2.840.114350.1.13.1^ISO|SOUS|SOUS|%s-0600||%s|%s|P|2.5.1|||AL|NE||UNICODE UTF-8", v.At, typ, v.Control),
		fmt.Sprintf("EVN|%s|%s|||JSMITH^SMITH^JOHN^^^^^^HMC|%s", v.Event, v.At, v.At),
		fmt.Sprintf("PID|1||%s^^^HMC&1.2.840.114350.1.13.1.1&ISO^MR~123-45-%s^^^SSA^SS||%s^%s^Q^^^^L~%s^%s^^^^^M||%s|%s|||1200 12TH AVE^^SEATTLE^WA^98122^USA||(206)555-0142|||S||%s",
			v.MRN, last4(v.MRN), v.Family, v.Given, v.Family, v.Given, v.DOB, v.Sex, v.Visit),
		"PD1||||1234^PRIMARY^PAT^^^^^^^^^^NPI",
		fmt.Sprintf("NK1|1|%s^MARIA|SPO^Spouse^HL70063|1200 12TH AVE^^SEATTLE^WA^98122|(206)555-0143", v.Family),
		fmt.Sprintf("PV1|1|I|%s^%s^%s^HMC^^^MAIN^4|E|||1234^ATTEND^ALICE^^^^MD|||MED||||1|||1234^ATTEND^ALICE^^^^MD|IN|%s|||||||||||||||||||||||||%s|%s",
			v.Unit, v.Room, v.Bed, v.Visit, admit, discharge),
		"PV2|||^CHEST PAIN",
		"DG1|1||I21.4^Non-ST elevation myocardial infarction^I10|||A",
	}
	if v.PriorUnit != "" {
		lines[5] = fmt.Sprintf("PV1|1|I|%s^%s^%s^HMC^^^MAIN^4|E||%s^101^A^HMC|1234^ATTEND^ALICE^^^^MD|||MED||||1|||1234^ATTEND^ALICE^^^^MD|IN|%s|||||||||||||||||||||||||%s|%s",
			v.Unit, v.Room, v.Bed, v.PriorUnit, v.Visit, admit, discharge)
	}
	lines = append(lines, v.AL1...)
	lines = append(lines, v.ODS...)
	lines = append(lines, "ZPV|1|EPIC-SPECIFIC|DATA")
	return strings.Join(lines, "\r") + "\r"
}

// cerner renders a v2.3 message with CRLF line ends, the MRN in PID-2 and PID-3 typed "MRN".
func (v visit) cerner() string {
	v = v.orDefault()
	lines := []string{
		fmt.Sprintf("MSH|^~\\&|HNAM|CERNERHOSP|SOUS|SOUS|%s||ADT^%s|%s|P|2.3", v.At, v.Event, v.Control),
		fmt.Sprintf("EVN|%s|%s|||JDOE|%s", v.Event, v.At, v.At),
		fmt.Sprintf("PID|1|%s^^^CERNERHOSP^MRN|%s^^^CERNERHOSP^MRN~88%s^^^CERNERHOSP^FIN NBR||%s^%s^A||%s|%s", v.MRN, v.MRN, v.MRN, v.Family, v.Given, v.DOB, v.Sex),
		fmt.Sprintf("PV1|1|I|%s^%s^%s^CERNERHOSP|||%s|2345^CARDIO^BOB|||CAR||||7|||2345^CARDIO^BOB|IN|%s", v.Unit, v.Room, v.Bed, prior(v.PriorUnit), v.Visit),
	}
	lines = append(lines, v.AL1...)
	lines = append(lines, v.ODS...)
	lines = append(lines, "ZCR|TRANSFER REASON|CARDIAC MONITORING")
	return strings.Join(lines, "\r\n") + "\r\n"
}

// meditech renders a v2.4 message with LF line ends and a patient-internal (PI) identifier only,
// so the MRN is the first PID-3 identifier.
func (v visit) meditech() string {
	v = v.orDefault()
	discharge := ""
	if v.Event == "A03" {
		discharge = v.At + "^M"
	}
	lines := []string{
		fmt.Sprintf("MSH|^~\\&|MEDITECH|MTHOSP|SOUS|SOUS|%s||ADT^%s|%s|P|2.4", v.At, v.Event, v.Control),
		fmt.Sprintf("EVN|%s|%s", v.Event, v.At),
		fmt.Sprintf("PID|1||%s^^^MTHOSP^PI||  %s  ^%s^^JR^DR||%s|%s", v.MRN, v.Family, v.Given, v.DOB, v.Sex),
		fmt.Sprintf("PV1|1|I|%s^%s^%s^MTHOSP||||5555^DOC^DAN|||SUR||||1|||5555^DOC^DAN|IN|%s|||||||||||||||||||||||||%s^M|%s", v.Unit, v.Room, v.Bed, v.Visit, v.At, discharge),
	}
	lines = append(lines, v.AL1...)
	lines = append(lines, v.ODS...)
	return strings.Join(lines, "\n") + "\n"
}

func prior(unit string) string {
	if unit == "" {
		return ""
	}
	return unit + "^101^A"
}

func last4(s string) string {
	if len(s) < 4 {
		return fmt.Sprintf("%04s", s)
	}
	return s[len(s)-4:]
}

// dietOrderMsg renders an ORM^O01 (or OMD^O03 when omd) carrying ORC groups and ODS segments.
func dietOrderMsg(control, mrn string, omd bool, groups ...string) string {
	typ := "ORM^O01"
	if omd {
		typ = "OMD^O03^OMD_O03"
	}
	lines := []string{
		fmt.Sprintf("MSH|^~\\&|EPIC|HARBORVIEW|SOUS|SOUS|20260302120000||%s|%s|P|2.5", typ, control),
		fmt.Sprintf("PID|1||%s^^^HMC^MR||DOE^JANE", mrn),
		"PV1|1|I|4W^412^A",
	}
	lines = append(lines, groups...)
	return strings.Join(lines, "\r") + "\r"
}

// mllp wraps a message in MLLP framing bytes, as interface engines write them to a socket.
func mllp(msg string) string { return "\x0b" + msg + "\x1c\r" }

// Allergy and diet segments used across tests.
const (
	al1Peanut     = "AL1|1|FA^Food Allergy^HL70127|762952008^Peanut^SCT|SV^Severe^HL70128|Anaphylaxis~Hives"
	al1Penicillin = "AL1|2|DA^Drug Allergy^HL70127|70618^Penicillin^RXNORM|MO|Rash"
	al1Shellfish  = "AL1|3|FA|^Shellfish|MI"
	al1Quinoa     = "AL1|1|FA^Food Allergy^HL70127|Q-77^Quinoa^LOCAL|MO|Hives"
	odsCarbNa     = "ODS|D|B~L~D|CCHO^Consistent Carbohydrate 1800 kcal^EPICDIET~2GNA^2 gram sodium^EPICDIET|No concentrated sweets"
	odsRegular    = "ODS|D||REG^Regular Diet^EPICDIET"
	odsModCho     = "ODS|D||MODCHO^Modified carbohydrate^LOCAL"
	odsNPO        = "ODS|D||NPO^NPO after midnight^EPICDIET|Procedure at 0800"
)

// bigA01 is an admission as a large EHR sends it, with insurance, guarantor, next of kin,
// observations and problem-list segments: about 4 KB.
func bigA01(control, mrn string) string {
	v := visit{Event: "A01", Control: control, MRN: mrn, Unit: "4W", Room: "412", Bed: "A", AL1: []string{al1Peanut, al1Penicillin, al1Shellfish}, ODS: []string{odsCarbNa}}
	base := strings.TrimSuffix(v.epic(), "\r")
	extra := []string{
		"ROL|1|AD|AT^Attending^HL70443|1234^ATTEND^ALICE^^^^MD^^^^^^NPI|20260302083000",
		"ROL|2|AD|PP^Primary Care Provider^HL70443|5678^PRIMARY^PAUL^^^^MD^^^^^^NPI",
		"NK1|2|DOE^ROBERT^^JR|CHD^Child^HL70063|455 PINE ST^APT 3^SEATTLE^WA^98101|(206)555-0177||EMC^Emergency Contact",
		"OBX|1|NM|8302-2^Body height^LN||165|cm^centimeter^UCUM|||||F|||20260302082000",
		"OBX|2|NM|29463-7^Body weight^LN||72.5|kg^kilogram^UCUM|||||F|||20260302082000",
		"OBX|3|ST|SS003^Tobacco use^LOCAL||Never smoker||||||F",
		"DG1|2||E11.9^Type 2 diabetes mellitus without complications^I10|||W",
		"DG1|3||I10^Essential (primary) hypertension^I10|||W",
		"PR1|1||02703ZZ^Dilation of coronary artery, one artery^I10P|PCI|20260302100000",
		"GT1|1|G" + mrn + "|DOE^JANE^Q||1200 12TH AVE^^SEATTLE^WA^98122^USA|(206)555-0142||19800412|F||SEL^Self^HL70063|123-45-6789",
		"IN1|1|BCBS-PPO^Blue Cross PPO|60054|BLUE CROSS BLUE SHIELD OF WASHINGTON|PO BOX 91059^^SEATTLE^WA^98111^USA||(800)555-0199|GRP-55021|HARBORVIEW EMPLOYEES|||20260101|20261231|||DOE^JANE^Q|SEL^Self^HL70063|19800412|1200 12TH AVE^^SEATTLE^WA^98122^USA|||1||||||||||||||XYZ123456789",
		"IN2|1|123-45-6789|||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||(206)555-0142",
		"IN1|2|MCR^Medicare Part A|CMS|CENTERS FOR MEDICARE AND MEDICAID SERVICES|7500 SECURITY BLVD^^BALTIMORE^MD^21244^USA||(800)633-4227|||||20250101||||DOE^JANE^Q|SEL^Self^HL70063|19800412|1200 12TH AVE^^SEATTLE^WA^98122^USA|||2||||||||||||||1EG4-TE5-MK72",
		"ACC|20260301|HO^Home^HL70050",
		"UB2|1|||||||01^20260302",
		"ZPD|1|LANG^English|INTERP^N|RELIGION^Catholic|ADVDIR^Y^Living will on file",
		"ZIN|1|PRIORAUTH^PA-2026-000451|AUTHDATE^20260302",
	}
	return base + "\r" + strings.Join(extra, "\r") + "\r"
}
