package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestJSONStringProblemsNameTheField(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		body string
		want []string // "field: message"
	}{
		{`{"email":"a@example.com","password":"x"}`, nil},
		{`{"email":"a\u0000b@example.com"}`, []string{"email: " + msgNUL}},
		{"{\"name\":\"a\xffb\",\"note\":\"ok\"}", []string{"name: " + msgNotUTF8}},
		{`{"config":{"stations":["grill","x\u0000"],"theme":"dark"},"name":"n"}`, []string{"config.stations.1: " + msgNUL}},
		{`{"dayParts":[{"name":"a","start":"06:00"},{"name":"b\u0000"}]}`, []string{"dayParts.1.name: " + msgNUL}},
		{`{"a\u0000":1,"b":[1,2,{"c":"\u0000"}]}`, []string{"a\uFFFD: " + msgNUL, "b.2.c: " + msgNUL}},
		{`"\u0000"`, []string{"body: " + msgNUL}},
		{`{"literal":"\\u0000 is text, not NUL"}`, nil},
		{`{"broken":`, nil}, // not JSON: the validator's to report
	} {
		var got []string
		for _, d := range jsonStringProblems([]byte(c.body)) {
			got = append(got, d.Field+": "+d.Message)
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%q: %q, want %q", c.body, got, c.want)
		}
	}
}

// The backstop: PostgreSQL's refusal of a NUL or non-UTF-8 string is the client's 400, however
// it is wrapped; other data errors stay 500.
func TestUnstorableTextIsABadRequest(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]int{"22021": http.StatusBadRequest, "22P05": http.StatusBadRequest, "22001": http.StatusInternalServerError} {
		err := fmt.Errorf("insert: %w", &pgconn.PgError{Code: code, Message: "x"})
		e := classify(err)
		if got := statusOf(e.Kind); got != want {
			t.Errorf("SQLSTATE %s: %d, want %d", code, got, want)
		}
		if want == http.StatusBadRequest && (len(e.Details) == 0 || defaultCode(e.Kind) != "validation_failed") {
			t.Errorf("SQLSTATE %s: %+v", code, e)
		}
	}
}

// hl7Body is a JSON HL7 batch of about size bytes, as the ingest receives it.
func hl7Body(size int) []byte {
	msg := `MSH|^~\\&|EPIC|HARBORVIEW|SOUS|SOUS|20260302090000||ADT^A01|MSG%06d|P|2.5.1\rPID|1||120000001^^^HV^MR||GOMEZ^ANA||19700101|F\rPV1|1|I|4W^412^A`
	var b strings.Builder
	b.WriteString(`{"messages":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"`+msg+`"`, i)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkHostileStringsScan measures the cost the check adds to a clean body (the fast
// path every real request takes): a login and a 4 MB HL7 batch.
func BenchmarkHostileStringsScan(b *testing.B) {
	for _, c := range []struct {
		name string
		body []byte
	}{
		{"login", []byte(`{"email":"ana@example.com","password":"walk-in-cooler-pantry-9"}`)},
		{"hl7-4MB", hl7Body(4_000_000)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.body)))
			for b.Loop() {
				if p := jsonStringProblems(c.body); p != nil {
					b.Fatal(p)
				}
			}
		})
	}
}
