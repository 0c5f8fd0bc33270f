package hl7

import "strings"

// Hand-written messages in the styles of the feeds Sous receives. Segment
// terminators are written as "\r" and converted where a test needs another
// style. Identifiers and names are invented.

// epicA01: v2.5.1 admission, PID-3 with MR and SS identifiers, a Z-segment,
// three AL1 (food, drug, free-text food) and a diet order riding on the A01.
const epicA01 = "MSH|^~\\&|EPIC|UCHEALTH^1.2.840.114350.1.13.1^ISO|SOUS|SOUS|20240115083012-0700||ADT^A01^ADT_A01|MSG00001|P|2.5.1|||AL|NE||UNICODE UTF-8\r" +
	"EVN|A01|20240115083000|||JSMITH^SMITH^JOHN^^^^^^UCH|20240115082500\r" +
	"PID|1||100234567^^^UCH&1.2.840.114350.1.13.1.1&ISO^MR~123-45-6789^^^SSA^SS||DOE^JANE^QUINN^^^^L~SMITH^JANE^^^^^M||19800412|F|||123 MAIN ST^^DENVER^CO^80202^USA||(303)555-0100|||M||V000123456\r" +
	"PD1||||1234^PRIMARY^PAT\r" +
	"PV1|1|I|4W^412^A^UCH^^^MAIN^4|E|||1234^ATTEND^ALICE|||MED||||1|||1234^ATTEND^ALICE|IN|V000123456|||||||||||||||||||||||||20240115082500\r" +
	"PV2|||^CHEST PAIN\r" +
	"AL1|1|FA^Food Allergy^HL70127|762952008^Peanut^SCT|SV^Severe^HL70128|Anaphylaxis~Hives\r" +
	"AL1|2|DA^Drug Allergy^HL70127|70618^Penicillin^RXNORM|MO|Rash\r" +
	"AL1|3|FA|^Shellfish|MI\r" +
	"ODS|D|B~L~D|CCHO^Consistent Carbohydrate 1800 kcal^EPICDIET~2GNA^2 gram sodium^EPICDIET|No concentrated sweets\r" +
	"ZPV|1|EPIC-SPECIFIC|DATA\r"

// cernerA02: transfer with CRLF line ends, identifiers typed "MRN" and
// "FIN NBR", a prior location, EVN-6 and names needing escapes.
const cernerA02 = "MSH|^~\\&|HNAM|CERNERHOSP|SOUS|SOUS|20240116101500||ADT^A02|Q2938471T3302|P|2.3\r" +
	"EVN|A02|20240116101455|||JDOE|20240116100000\r" +
	"PID|1|4455667^^^CERNERHOSP^MRN|4455667^^^CERNERHOSP^MRN~88001234^^^CERNERHOSP^FIN NBR||MU\\XC391\\OZ-O'NEIL^JOS\\XC389\\^A||19551103|M\r" +
	"PV1|1|I|5E^512^B^CERNERHOSP|||4W^412^A^CERNERHOSP|2345^CARDIO^BOB|||CAR||||7|||2345^CARDIO^BOB|IN|88001234\r" +
	"ZCR|TRANSFER REASON|CARDIAC MONITORING\r"

// meditechA03: discharge with LF line ends, a patient-internal identifier
// only (no MR type), PID-2 present, discharge time in PV1-45 and the v2.5
// degree-of-precision component after timestamps.
const meditechA03 = "MSH|^~\\&|MEDITECH|MTHOSP|SOUS|SOUS|202401201430||ADT^A03|MT-20240120-0042|P|2.4\r" +
	"EVN|A03|202401201430\r" +
	"PID|1|M000998877|J000123456^^^MTHOSP^PI||  SMITH  ^ROBERT^^JR^DR||19440229|M\r" +
	"PV1|1|I|3N^301^1^MTHOSP||||5555^DOC^DAN|||SUR||||1|||5555^DOC^DAN|IN|A00099887|||||||||||||||||||||||||202401150800^M|202401201415^M\r"

// legacyA08: a v2.2 sender with its own delimiters (! @ # $ %), event only
// in EVN-1, PID-2 as the only identifier, allergy and diet as text only.
const legacyA08 = "MSH!@#$%!OLDADT!COMMUNITY!SOUS!SOUS!19990101120000!!ADT!CTL0001!P!2.2\r" +
	"EVN!A08!19990101120000\r" +
	"PID!1!77665544!!!BROWN@ALICE@M!!1961!F\r" +
	"PV1!1!I!ICU@7@2\r" +
	"AL1!1!!@EGGS AND MILK\r" +
	"ODS!D!!@NPO AFTER MIDNIGHT#@MECH SOFT!PROCEDURE AT 0800\r"

// v27A01: v2.7 with the truncation character in MSH-2 and \P\ in data.
const v27A01 = "MSH|^~\\&#|EPIC|UCH|SOUS|SOUS|20240301090000.1234+0100||ADT^A01^ADT_A01|V27-1|P|2.7\r" +
	"PID|1||555^^^UCH^MR||NUMBER\\P\\ONE^TEST||2001|U\r" +
	"PV1|1|O|CLINIC^^^UCH\r"

// v21A01: an old sender with only two encoding characters.
const v21A01 = "MSH|^~|LEGACY|HOSP|SOUS|SOUS|19970605||ADT^A01|OLD-1|P|2.1\r" +
	"PID|||42^^^HOSP^MR~43^^^HOSP^AN||OLD^TIMER\r" +
	"PV1||I|2S^201^2\r"

// ormO01: a diet order as an ORM, start time in ORC-7.
const ormO01 = "MSH|^~\\&|EPIC|UCH|SOUS|SOUS|20240115120000||ORM^O01|ORD-1001|P|2.3\r" +
	"PID|1||100234567^^^UCH^MR||DOE^JANE\r" +
	"PV1|1|I|4W^412^A\r" +
	"ORC|NW|DIET-5566^EPIC|||||^^^20240115120000||20240115115900\r" +
	"ODS|D|B~L~D|REG^Regular Diet^EPICDIET~THIN^Thin Liquids^EPICDIET|Patient prefers \\T\\ requests decaf\r" +
	"ODS|S||ENSURE^Ensure Plus TID^EPICDIET\r" +
	"ORC|DC|DIET-5500^EPIC\r" +
	"ODS|D||NPO^NPO^EPICDIET\r"

// omdO03: the dedicated diet message, with TQ1, ODS and ODT.
const omdO03 = "MSH|^~\\&|CERNER|CERNERHOSP|SOUS|SOUS|20240117070000||OMD^O03^OMD_O03|OMD-77|P|2.5\r" +
	"PID|1||4455667^^^CERNERHOSP^MRN||MUNOZ^JOSE\r" +
	"PV1|1|I|5E^512^B\r" +
	"ORC|NW|ORD-9911|||||||20240117065500\r" +
	"TQ1|1||||||20240117080000\r" +
	"ODS|D|B~L~D|DYS6^Dysphagia Soft \\T\\ Bite Sized^LOCAL~NECTAR^Nectar Thick Liquids^LOCAL~RENAL^Renal 2gm Na 2gm K^LOCAL|Cut meat small\\.br\\No straws\r" +
	"ODS|P||NOPORK^No pork - religious preference^LOCAL\r" +
	"ODT|EARLY^Early tray^LOCAL|B|Dialysis at 0700\r"

// a04 is a registration: parsed, but not a Sous action.
const a04 = "MSH|^~\\&|EPIC|UCH|SOUS|SOUS|20240115083012||ADT^A04|REG-1|P|2.5.1\r" +
	"PID|1||999^^^UCH^MR||REG^ISTER\r" +
	"PV1|1|O|ED\r"

// withTerminators rewrites "\r" segment terminators.
func withTerminators(msg, term string) string {
	return strings.ReplaceAll(msg, "\r", term)
}
